/**
 * A GOST network's PKI settings: `node.crypto.pki` (mode, required OIDs, CRL checks, CRL
 * sync period), `node.pki.tsp-server`, and `blockchain.custom.genesis.pki` (trusted root
 * fingerprints, certificates and CRLs the chain starts with).
 */
import type { Certificate } from '../crypto/pki/x509.js';
import type { RevocationList } from '../crypto/pki/crl.js';

export type PkiMode = 'OFF' | 'ON' | 'TEST';

/** A CRL the genesis lists: its issuer's public key, where it is published, and the CRL. */
export interface GenesisCrl {
  readonly issuerPublicKey: Uint8Array;
  readonly cdp: string;
  readonly crl: RevocationList;
}

export interface GenesisPki {
  /** SHA-1 fingerprints of the trusted roots. */
  readonly trustedRootFingerprints: readonly Uint8Array[];
  readonly certificates: readonly Certificate[];
  readonly crls: readonly GenesisCrl[];
}

export interface PkiSettings {
  readonly mode: PkiMode;
  /** Dotted OIDs every user certificate's extended key usage must contain. */
  readonly requiredOids: readonly string[];
  readonly crlChecksEnabled: boolean;
  /** How long a CRL fetched from a distribution point is kept before it is fetched again (ms). */
  readonly crlSyncPeriodMs: number;
  /** `node.pki.tsp-server` (not used: Weft makes no CAdES-T / X Long signatures). */
  readonly tspServer: string | undefined;
  readonly genesis: GenesisPki;
}

export const PKI_OFF: PkiSettings = {
  mode: 'OFF',
  requiredOids: [],
  crlChecksEnabled: false,
  crlSyncPeriodMs: 2 * 3_600_000,
  tspServer: undefined,
  genesis: { trustedRootFingerprints: [], certificates: [], crls: [] },
};
