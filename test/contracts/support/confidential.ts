/** CreateContract V6 with confidential groups, as the confidential contract tests build it. */
import type { Address } from '../../../src/crypto/address.js';
import type { KeyPair } from '../../../src/crypto/suite.js';
import type { Protocol } from '../../../src/protocol/protocol.js';
import { CallContract, CreateContract, type ContractTransferIn, type ValidationPolicy } from '../../../src/protocol/transactions/contracts.js';
import type { DataEntry } from '../../../src/protocol/transactions/fields.js';
import type { Transaction } from '../../../src/protocol/transactions/schema.js';

export interface ConfidentialCreate {
  readonly sender: KeyPair;
  readonly timestamp: bigint;
  readonly isConfidential: boolean;
  readonly participants: readonly Address[];
  readonly owners: readonly Address[];
  readonly image?: string;
  readonly imageHash?: string;
  readonly params?: readonly DataEntry[];
  readonly payments?: readonly ContractTransferIn[];
  /** `any` unless given. */
  readonly validationPolicy?: ValidationPolicy;
}

/** A signed CreateContract V6 (policy `any` unless given, API 1.0, fee 1 WEST). */
export function confidentialCreate(p: Protocol, c: ConfidentialCreate): Transaction {
  return p.sign(
    p.transaction(CreateContract, 6, {
      senderPublicKey: c.sender.publicKey,
      image: c.image ?? 'kv:1',
      imageHash: c.imageHash ?? 'cd'.repeat(32),
      contractName: 'kv',
      params: c.params ?? [],
      fee: 100_000_000n,
      timestamp: c.timestamp,
      feeAssetId: null,
      atomicBadge: null,
      validationPolicy: c.validationPolicy ?? { type: 'any' },
      apiVersion: { major: 1, minor: 0 },
      payments: c.payments ?? [],
      isConfidential: c.isConfidential,
      groupParticipants: c.participants,
      groupOwners: c.owners,
    }),
    c.sender.privateKey,
  );
}

/** A signed CallContract V6 (no public params, fee 0.1 WEST) carrying `inputCommitment`. */
export function confidentialCall(p: Protocol, sender: KeyPair, contractId: Uint8Array, inputCommitment: Uint8Array, timestamp: bigint): Transaction {
  return p.sign(
    p.transaction(CallContract, 6, {
      senderPublicKey: sender.publicKey,
      contractId,
      params: [],
      fee: 10_000_000n,
      timestamp,
      contractVersion: 1,
      feeAssetId: null,
      atomicBadge: null,
      payments: [],
      inputCommitment,
    }),
    sender.privateKey,
  );
}
