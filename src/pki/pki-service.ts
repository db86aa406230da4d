/**
 * PKI of a GOST network (rule PKI-2: GOST networks only), what the REST layer and the node
 * use:
 *
 * - the `certificates` of a broadcast: parsed into exactly one chain (121), validated in
 *   TEST/ON for the transaction's sender (120), and required — in TEST and ON — for the first
 *   transaction of a sender the network holds no certificate for;
 * - the same rules for the chain a peer's transaction came with (P2P 46), in TEST/ON; the
 *   chain's admission keeps an admitted chain with its transaction, to travel with it (P2P
 *   messages 45–47) until a block mines it and the chain's store keeps each certificate of a
 *   new subject DN in the block's commit (rolled back with it);
 * - lookups by DN, DN hash, public key and fingerprint (119);
 * - CAdES-BES detached signing with a keystore key and its certificate, and verification
 *   with the extended key usages a caller requires.
 */
import { decodeBase58, decodeBase64, encodeBase58, encodeBase64, EncodingError } from '../crypto/encoding.js';
import type { KeyPair } from '../crypto/suite.js';
import { buildCertificateChain, CertificateChainError, parseCertificatesBase64, type CertificateChain } from '../crypto/pki/chain.js';
import { CmsFormatError, createDetachedCadesBes, parseSignedData, verifyDetached } from '../crypto/pki/cms.js';
import { ekuOid } from '../crypto/pki/oids.js';
import { dnHash, fingerprint, type Certificate, type GostVerifiers } from '../crypto/pki/x509.js';
import type { CertificateStore } from './certificate-store.js';
import { certificateNotFound, certificatePathBuildError, customValidationError, WeError } from '../errors/catalogue.js';
import type { PkiMode, PkiSettings } from './settings.js';
import type { ChainValidator } from './validation.js';
import { certificateParseError } from '../errors/catalogue.js';

/** The keystore as PKI signing sees it: aliases are the keystore's addresses. */
export interface PkiKeystore {
  addresses(): readonly string[];
  /**
   * The key unlocked off the event loop, under the keystore's failed-unlock limits: WE's 115
   * for an unknown alias or a wrong password (status 429 while the alias refuses unlocking).
   */
  unlock(address: string, password: string | undefined): Promise<KeyPair>;
}

/** WE's PkiSignatureType. */
export const SIG_TYPES = new Map([
  [1, 'CAdES-BES'],
  [2, 'CAdES-X Long Type 1'],
  [3, 'CAdES-T'],
]);

export type CertificateKey = 'dn' | 'dnHash' | 'publicKey' | 'fingerprint';

/** What the REST layer calls (`/pki/*`; the `certificates` of broadcasts go through the chain's admission). */
export interface PkiApi {
  readonly mode: PkiMode;
  /** `node.crypto.pki.required-oids` as dotted OIDs. */
  readonly requiredOids: readonly string[];
  readonly crlChecksEnabled: boolean;
  /** A stored (or genesis) certificate; 119 when there is none. */
  certificate(key: CertificateKey, value: string): Certificate;
  keystoreAliases(): readonly string[];
  /** A detached CAdES-BES signature (Base64 DER CMS). */
  sign(request: {
    readonly inputData: string;
    readonly keystoreAlias: string;
    readonly password: string | undefined;
    readonly sigType: number;
  }): Promise<string>;
  /** Whether a detached signature verifies (and its signer has every extended key usage asked for). */
  verify(request: {
    readonly inputData: string;
    readonly signature: string;
    readonly sigType: number;
    readonly extendedKeyUsageList: readonly string[];
  }): Promise<boolean>;
}

export interface PkiServiceOptions {
  readonly settings: PkiSettings;
  readonly store: CertificateStore;
  readonly validator: ChainValidator;
  readonly verifiers: GostVerifiers;
  readonly keystore: PkiKeystore;
  /** Streebog-256. */
  readonly digest: (data: Uint8Array) => Uint8Array;
  /** The network's GOST signature with an account's private key. */
  readonly sign: (privateKey: Uint8Array, message: Uint8Array) => Uint8Array;
  readonly now: () => bigint;
}

/**
 * A request's sigType: WE's number (1, 2, 3) or its name as the specification's samples and the
 * gRPC enum spell it (`CAdES_BES`, `CADES_X_LONG_TYPE_1`, `CAdES-T`…; case, `_`, `-` and spaces
 * do not matter). Anything else: 400 naming the values.
 */
export function sigTypeNumber(value: number | string): number {
  if (typeof value === 'number') return value;
  const key = value
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, '');
  if (/^\d+$/.test(key)) return Number(key);
  for (const [n, name] of SIG_TYPES) if (name.toLowerCase().replace(/[\s_-]+/g, '') === key) return n;
  throw customValidationError(`Unknown sigType '${value}'. Possible values: 1 or CAdES_BES, 2 or CAdES_X_Long_Type_1, 3 or CAdES_T`, 'sigType');
}

function checkSigType(sigType: number): void {
  if (sigType === 1) return;
  const name = SIG_TYPES.get(sigType);
  if (name !== undefined) {
    throw customValidationError(
      `sigType ${sigType} (${name}) is not supported: Weft makes and checks only CAdES-BES (sigType 1) signatures; it has no time-stamp (TSP) client for CAdES-T and CAdES-X Long Type 1`,
      'sigType',
    );
  }
  throw customValidationError(`Unknown sigType ${sigType}. Possible values: 1 (CAdES-BES), 2 (CAdES-X Long Type 1), 3 (CAdES-T)`, 'sigType');
}

function base64Field(text: string, field: string): Uint8Array {
  try {
    return decodeBase64(text);
  } catch (e) {
    throw customValidationError(`Invalid Base64 in '${field}': ${e instanceof EncodingError ? e.message : String(e)}`, field);
  }
}

export class PkiService implements PkiApi {
  constructor(private readonly o: PkiServiceOptions) {}

  get mode(): PkiMode {
    return this.o.settings.mode;
  }

  get requiredOids(): readonly string[] {
    return this.o.settings.requiredOids;
  }

  get crlChecksEnabled(): boolean {
    return this.o.settings.crlChecksEnabled;
  }

  /** A certificate of the network (store first, then the genesis) by public key. */
  private byPublicKey(publicKey: Uint8Array): Certificate | undefined {
    return (
      this.o.store.byPublicKey(publicKey) ??
      this.o.settings.genesis.certificates.find((c) => Buffer.compare(Buffer.from(c.publicKey.bytes), Buffer.from(publicKey)) === 0)
    );
  }

  private byDnHash(hash: Uint8Array): Certificate | undefined {
    return (
      this.o.store.byDnHash(hash) ??
      this.o.settings.genesis.certificates.find((c) => Buffer.compare(Buffer.from(dnHash(c.subject.rfc2253)), Buffer.from(hash)) === 0)
    );
  }

  /**
   * The chain a broadcast's `certificates` value carries (undefined when there is none),
   * validated for the sender as the mode requires. Throws WE's 120/121.
   */
  async admitTransaction(senderPublicKey: Uint8Array | undefined, certificates: unknown): Promise<CertificateChain | undefined> {
    const texts = Array.isArray(certificates) && certificates.length > 0 && certificates.every((c) => typeof c === 'string') ? certificates : undefined;
    let chain: CertificateChain | undefined;
    if (texts !== undefined) {
      try {
        chain = buildCertificateChain(parseCertificatesBase64(texts));
      } catch (e) {
        if (e instanceof CertificateChainError) throw certificateParseError(e.message);
        throw e;
      }
    }
    await this.checkSender(senderPublicKey, chain);
    return chain;
  }

  /**
   * A transaction that came from a peer with the certificates of its message (P2P 46): the
   * rules of a broadcast's `certificates` in TEST/ON; the reason it is refused, if it is.
   */
  async peerTransactionProblem(senderPublicKey: Uint8Array | undefined, certificates: readonly Certificate[]): Promise<string | undefined> {
    try {
      await this.checkSender(senderPublicKey, certificates.length === 0 ? undefined : buildCertificateChain(certificates));
      return undefined;
    } catch (e) {
      if (e instanceof CertificateChainError || e instanceof WeError) return e.message;
      throw e;
    }
  }

  /** TEST/ON: the chain validates for the sender, or without one the network holds the sender's certificate (120). */
  private async checkSender(senderPublicKey: Uint8Array | undefined, chain: CertificateChain | undefined): Promise<void> {
    // Only signed user transactions have a sender to check (nothing without one is broadcast).
    if (this.mode === 'OFF' || senderPublicKey === undefined) return;
    if (chain !== undefined) {
      await this.o.validator.validate(chain, senderPublicKey);
      return;
    }
    if (this.byPublicKey(senderPublicKey) === undefined) {
      throw certificatePathBuildError(
        encodeBase58(senderPublicKey),
        `the network holds no certificate for this key yet: with node.crypto.pki.mode = ${this.mode} its first transaction must carry its certificate chain in 'certificates'`,
      );
    }
  }

  certificate(key: CertificateKey, value: string): Certificate {
    let found: Certificate | undefined;
    switch (key) {
      case 'dn':
        found = this.byDnHash(dnHash(value));
        if (found === undefined) throw certificateNotFound('DN', value, 'dn');
        return found;
      case 'dnHash': {
        const hash = /^[0-9a-fA-F]{40}$/.test(value) ? Buffer.from(value, 'hex') : undefined;
        found = hash === undefined ? undefined : this.byDnHash(hash);
        if (found === undefined) throw certificateNotFound('DN hash', value, 'dnHash');
        return found;
      }
      case 'publicKey': {
        let bytes: Uint8Array | undefined;
        try {
          bytes = decodeBase58(value);
        } catch {
          bytes = undefined;
        }
        found = bytes === undefined ? undefined : this.byPublicKey(bytes);
        if (found === undefined) throw certificateNotFound('public key', value, 'publicKey');
        return found;
      }
      case 'fingerprint': {
        let bytes: Uint8Array | undefined;
        try {
          bytes = decodeBase64(value);
        } catch {
          bytes = undefined;
        }
        found =
          bytes === undefined
            ? undefined
            : (this.o.store.byFingerprint(bytes) ??
              this.o.settings.genesis.certificates.find((c) => Buffer.compare(Buffer.from(fingerprint(c.der)), Buffer.from(bytes)) === 0));
        if (found === undefined) throw certificateNotFound('fingerprint', value, 'fingerprint');
        return found;
      }
    }
  }

  keystoreAliases(): readonly string[] {
    return this.o.keystore.addresses();
  }

  /** A certificate's issuers up to its root, from the store and the genesis. */
  private issuersOf(cert: Certificate): Certificate[] {
    const out: Certificate[] = [];
    let current = cert;
    while (current.issuer.rfc2253 !== current.subject.rfc2253 && out.length < 16) {
      const issuer = this.byDnHash(dnHash(current.issuer.rfc2253));
      if (issuer === undefined || out.includes(issuer)) break;
      out.push(issuer);
      current = issuer;
    }
    return out;
  }

  async sign(request: {
    readonly inputData: string;
    readonly keystoreAlias: string;
    readonly password: string | undefined;
    readonly sigType: number;
  }): Promise<string> {
    checkSigType(request.sigType);
    const content = base64Field(request.inputData, 'inputData');
    const keys = await this.o.keystore.unlock(request.keystoreAlias, request.password);
    const signer = this.byPublicKey(keys.publicKey);
    if (signer === undefined) throw certificateNotFound('public key', encodeBase58(keys.publicKey), 'keystoreAlias');
    const cms = createDetachedCadesBes({
      content,
      signer,
      chain: this.issuersOf(signer),
      signingTime: this.o.now(),
      digest: this.o.digest,
      sign: (message) => this.o.sign(keys.privateKey, message),
    });
    return encodeBase64(cms);
  }

  async verify(request: {
    readonly inputData: string;
    readonly signature: string;
    readonly sigType: number;
    readonly extendedKeyUsageList: readonly string[];
  }): Promise<boolean> {
    checkSigType(request.sigType);
    const content = base64Field(request.inputData, 'inputData');
    const cms = base64Field(request.signature, 'signature');
    const ekus = request.extendedKeyUsageList.map((text) => {
      const oid = ekuOid(text);
      if (oid === undefined)
        throw customValidationError(
          `'${text}' in extendedKeyUsageList is neither a dotted OID nor one of serverAuth, clientAuth, codeSigning, emailProtection, timeStamping, OCSPSigning`,
          'extendedKeyUsageList',
        );
      return oid;
    });
    let signed;
    try {
      signed = parseSignedData(cms);
    } catch (e) {
      if (e instanceof CmsFormatError) throw customValidationError(`Invalid signature: ${e.message}`, 'signature');
      throw e;
    }
    const check = verifyDetached(signed, content, {
      digest: this.o.digest,
      verifiers: this.o.verifiers,
      extraCertificates: [...this.o.settings.genesis.certificates],
    });
    if (!check.valid) return false;
    const usages = check.signer.extendedKeyUsage ?? [];
    if (!ekus.every((oid) => usages.includes(oid))) return false;
    if (this.mode === 'OFF') return true;
    // TEST/ON: the signer's certificate must also validate as a network certificate.
    const chain = { certificates: [check.signer, ...signed.certificates.filter((c) => c !== check.signer)] };
    let path: CertificateChain;
    try {
      path = buildCertificateChain(chain.certificates);
    } catch {
      path = { certificates: [check.signer] };
    }
    if (path.certificates[0] !== check.signer) path = { certificates: [check.signer] };
    return (await this.o.validator.problem(path, undefined, ekus)) === undefined;
  }
}
