/** CreateContract V6 with confidential groups, as the confidential contract tests build it. */
import type { Address } from '../../../src/crypto/address.js';
import type { KeyPair } from '../../../src/crypto/suite.js';
import type { Protocol } from '../../../src/protocol/protocol.js';
import {
  CallContract,
  CreateContract,
  type CallContractTransaction,
  type ContractTransferIn,
  type CreateContractTransaction,
  type ValidationPolicy,
} from '../../../src/protocol/transactions/contracts.js';
import type { DataEntry } from '../../../src/protocol/transactions/fields.js';
import type { ConfidentialState } from '../../../src/contracts/confidential/state.js';
import type { ConfidentialStorage } from '../../../src/contracts/confidential/storage.js';
import { ConfidentialContractsService } from '../../../src/contracts/confidential/service.js';
import { applyCallContract } from '../../../src/state/appliers/contracts.js';
import type { ApplyContext } from '../../../src/state/appliers/context.js';
import type { MutableState } from '../../../src/state/view.js';
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
export function confidentialCreate(p: Protocol, c: ConfidentialCreate): CreateContractTransaction {
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
export function confidentialCall(
  p: Protocol,
  sender: KeyPair,
  contractId: Uint8Array,
  inputCommitment: Uint8Array,
  timestamp: bigint,
): CallContractTransaction {
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

/**
 * The confidential contracts service of a test node owned by `owner`: a call "broadcast" is
 * admitted to `state` (as the pool would) and listed in `broadcasted`; commitment keys are
 * 32 bytes of 42.
 */
export function testConfidentialService(o: {
  readonly protocol: Protocol;
  readonly state: MutableState;
  readonly storage: ConfidentialStorage;
  readonly confidentialState: ConfidentialState;
  readonly owner: KeyPair;
  readonly broadcasted: Transaction[];
  readonly poolContext: ApplyContext;
}): ConfidentialContractsService {
  return new ConfidentialContractsService({
    protocol: o.protocol,
    storage: o.storage,
    owner: o.owner,
    state: () => o.state,
    confidentialState: o.confidentialState,
    broadcast: (tx) => {
      applyCallContract(o.state, tx, o.poolContext);
      o.broadcasted.push(tx);
      return Promise.resolve(tx);
    },
    announce: () => undefined,
    random: (n) => new Uint8Array(n).fill(42),
  });
}
