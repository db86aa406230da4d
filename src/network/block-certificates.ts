/**
 * The certificates a peer's block (HistoryBlock, 45) or micro-block (MicroBlockResponse V2,
 * 47) carried, put through the rule a transaction's own certificates (46) go through before
 * any of them may be stored with the block.
 *
 * Such a message carries one set for all of its transactions: the chains of several senders
 * side by side. Each sender of the block whose certificate is in the set has its chain (that
 * certificate, then its issuers in the set) checked by the network's certificate policy
 * exactly as a 46 of that sender's transaction would be (PKI TEST/ON: chain to a trusted
 * root, validity, CRLs and required OIDs as configured). The certificates of the chains it
 * accepts are admitted; every other one — a chain it refuses, or a certificate on no
 * sender's chain — is refused, with the reason.
 */
import { chainOfKey } from '../crypto/pki/chain.js';
import { bytesKey } from '../crypto/encoding.js';
import type { Certificate } from '../crypto/pki/x509.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import type { NetworkDeps } from './chain-deps.js';

export interface BlockCertificates {
  readonly admitted: readonly Certificate[];
  /** Why each refused certificate (by its subject DN) was refused. */
  readonly refused: ReadonlyArray<{ readonly subject: string; readonly reason: string }>;
}

type CertificatePolicy = NonNullable<NetworkDeps['certificatePolicy']>;

/** Sorts a block's certificates into those its senders' checked chains hold and the rest. */
export async function admitBlockCertificates(
  transactions: readonly Transaction[],
  certificates: readonly Certificate[],
  policy: CertificatePolicy,
): Promise<BlockCertificates> {
  const admitted = new Map<string, Certificate>();
  const reasons = new Map<string, string>();
  const senders = new Set<string>();
  for (const tx of transactions) {
    const sender = tx.senderPublicKey;
    if (sender === undefined || senders.has(bytesKey(sender))) continue;
    senders.add(bytesKey(sender));
    const chain = chainOfKey(certificates, sender);
    if (chain === undefined) continue;
    const problem = await policy(tx, chain.certificates);
    for (const c of chain.certificates) {
      const dn = c.subject.rfc2253;
      if (problem === undefined) admitted.set(dn, c);
      else if (!reasons.has(dn)) reasons.set(dn, problem);
    }
  }
  const refused = certificates
    .filter((c) => !admitted.has(c.subject.rfc2253))
    .map((c) => ({ subject: c.subject.rfc2253, reason: reasons.get(c.subject.rfc2253) ?? 'it is on the certificate chain of no sender of the block' }));
  return { admitted: [...admitted.values()], refused };
}
