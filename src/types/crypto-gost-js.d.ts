// The GOST library ships no type declarations; src/crypto/gost.ts types the parts it uses.
declare module '@wavesenterprise/crypto-gost-js/dist/CryptoGost.js' {
  const pkg: unknown;
  export default pkg;
}
