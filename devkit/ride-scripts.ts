/**
 * RIDE sources the chain tests, the e2e tests and the bench share.
 */

/** WE's documented 2-of-3 multisig account script over three Base58 public keys (alice, bob, cooper). */
export function multisigSource(publicKeys: readonly string[]): string {
  return `
let alicePubKey  = base58'${publicKeys[0]!}'
let bobPubKey    = base58'${publicKeys[1]!}'
let cooperPubKey = base58'${publicKeys[2]!}'

let aliceSigned  = if(sigVerify(tx.bodyBytes, tx.proofs[0], alicePubKey  )) then 1 else 0
let bobSigned    = if(sigVerify(tx.bodyBytes, tx.proofs[1], bobPubKey    )) then 1 else 0
let cooperSigned = if(sigVerify(tx.bodyBytes, tx.proofs[2], cooperPubKey )) then 1 else 0

aliceSigned + bobSigned + cooperSigned >= 2
`;
}
