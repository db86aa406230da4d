/**
 * Confidential contract calls and reads as `/confidential-contracts/*` offers them (WE's
 * ConfidentialContractsApiService):
 *
 * - `call`: the contract must exist (600), be confidential (650), have this node's owner in
 *   its groups (651) and at least 3 participants (652). The params' commitment is checked
 *   (`commitmentVerification`: 624, 625, 626) or made with a fresh 32-byte key. The
 *   CallContract V6 carrying the commitment is signed by the node owner (the request's
 *   sender/password are not used), sent to the pool (`broadcast`), and the params are kept
 *   as the call's confidential input and announced to the group (replication.ts).
 * - `executed`: the 105 V4 of a confidential call with its input and output, on a node of
 *   the contract's groups.
 * - `entries`: the contract's confidential state (state.ts).
 */
import { base58OrUndefined, encodeBase58 } from '../../crypto/encoding.js';
import type { KeyPair } from '../../crypto/suite.js';
import type { Protocol } from '../../protocol/protocol.js';
import { CallContract, type CallContractTransaction, type ExecutedContractTransaction } from '../../protocol/transactions/contracts.js';
import type { AtomicBadge, DataEntry } from '../../protocol/transactions/fields.js';
import type { ContractInfo } from '../../state/contract-info.js';
import { executedContractFor } from '../../state/executed-contract.js';
import type { StateView } from '../../state/view.js';
import { isGroupMember } from '../../state/appliers/confidential-contracts.js';
import { commitmentHolds, COMMITMENT_KEY_LENGTH, entriesCommitment, type ConfidentialDataUnit } from './data.js';
import type { ConfidentialState } from './state.js';
import type { ConfidentialStorage } from './storage.js';
import {
  commitmentKeyNotPresent,
  commitmentNotPresent,
  commitmentValidationFailed,
  confidentialCallNotAllowed,
  contractNotFound,
  customValidationError,
  executedTransactionNotFound,
  genericError,
  groupsNotContainNodeOwner,
  invalidAssetId,
  invalidContractId,
  notEnoughGroupParticipants,
} from '../../errors/catalogue.js';

/** What a confidential call asks for (WE's ConfidentialContractCallRequest; `sender` and `password` are not used). */
export interface ConfidentialCallRequest {
  readonly contractId: string;
  readonly contractVersion: number;
  readonly params: readonly DataEntry[];
  readonly timestamp: bigint;
  readonly atomicBadge: AtomicBadge | null;
  readonly fee: bigint;
  readonly feeAssetId: string | null;
  readonly commitment: string | undefined;
  readonly commitmentKey: string | undefined;
}

export interface ConfidentialCallAnswer {
  readonly tx: CallContractTransaction;
  readonly input: ConfidentialDataUnit;
}

export interface ConfidentialExecutedAnswer {
  /** The ExecutedContract V4 of the call. */
  readonly executed: ExecutedContractTransaction;
  /** The confidential call (CallContract V6) it executed: its `tx`. */
  readonly call: CallContractTransaction;
  readonly input: ConfidentialDataUnit;
  readonly output: ConfidentialDataUnit;
}

/** `/confidential-contracts/*` as the API layer reaches it. */
export interface ConfidentialContractsApi {
  call(request: ConfidentialCallRequest, broadcast: boolean, commitmentVerification: boolean): Promise<ConfidentialCallAnswer>;
  executed(txIdText: string): ConfidentialExecutedAnswer;
  /** The confidential state of a contract (this node must be in its groups), in the order its keys were first written. */
  entries(contractIdText: string): DataEntry[];
}

export interface ConfidentialServiceOptions {
  readonly protocol: Protocol;
  readonly storage: ConfidentialStorage;
  /** The node owner: member checks, and the signer of confidential calls. */
  readonly owner: KeyPair;
  /** The current state (liquid block included). */
  state(): StateView;
  /** The contracts' confidential state. */
  readonly confidentialState: ConfidentialState;
  /** The node's way to send a transaction (pool, miner, peers); throws WE's errors. */
  broadcast(tx: CallContractTransaction): Promise<unknown>;
  /** Tells the group's peers this node holds a unit (replication). */
  announce(type: 'input' | 'output', unit: ConfidentialDataUnit): void;
  readonly random: (n: number) => Uint8Array;
}

export class ConfidentialContractsService implements ConfidentialContractsApi {
  private readonly ownerAddress: Uint8Array;

  constructor(private readonly o: ConfidentialServiceOptions) {
    this.ownerAddress = o.protocol.addresses.fromPublicKey(o.owner.publicKey).bytes;
  }

  private ownerText(): string {
    return this.o.protocol.addresses.fromPublicKey(this.o.owner.publicKey).toString();
  }

  /** The contract named by `text`, as the routes look it up: 199 not Base58, 600 unknown. */
  private contractNamed(text: string): ContractInfo {
    const id = base58OrUndefined(text);
    if (id === undefined) throw invalidContractId(text, 'contractId');
    const info = this.o.state().contract(id);
    if (info === undefined) throw contractNotFound(text);
    return info;
  }

  private checkMember(info: ContractInfo): void {
    if (!isGroupMember(info, this.ownerAddress)) throw groupsNotContainNodeOwner(encodeBase58(info.contractId), this.ownerText());
  }

  async call(request: ConfidentialCallRequest, broadcast: boolean, commitmentVerification: boolean): Promise<ConfidentialCallAnswer> {
    const { protocol } = this.o;
    const info = this.contractNamed(request.contractId);
    const contractText = encodeBase58(info.contractId);
    if (!info.isConfidential) throw confidentialCallNotAllowed(contractText);
    this.checkMember(info);
    if (info.groupParticipants.length < 3) throw notEnoughGroupParticipants(contractText);
    const { commitment, commitmentKey } = commitmentVerification ? this.givenCommitment(request) : this.newCommitment(request.params);
    let feeAssetId: Uint8Array | null = null;
    if (request.feeAssetId !== null) {
      const decoded = base58OrUndefined(request.feeAssetId);
      if (decoded === undefined) throw invalidAssetId('failed decoding asset id', 'feeAssetId');
      feeAssetId = decoded;
    }
    const tx = protocol.sign(
      protocol.transaction(CallContract, 6, {
        senderPublicKey: this.o.owner.publicKey,
        contractId: info.contractId,
        params: [],
        fee: request.fee,
        timestamp: request.timestamp,
        contractVersion: request.contractVersion,
        feeAssetId,
        atomicBadge: request.atomicBadge,
        payments: [],
        inputCommitment: commitment,
      }),
      this.o.owner.privateKey,
    );
    if (broadcast) await this.o.broadcast(tx);
    const input: ConfidentialDataUnit = { commitment, txId: tx.id, contractId: info.contractId, commitmentKey, entries: request.params };
    this.o.storage.save('input', input);
    this.o.announce('input', input);
    return { tx, input };
  }

  private newCommitment(params: readonly DataEntry[]): { commitment: Uint8Array; commitmentKey: Uint8Array } {
    const commitmentKey = this.o.random(COMMITMENT_KEY_LENGTH);
    return { commitment: entriesCommitment(params, commitmentKey, this.o.protocol), commitmentKey };
  }

  private givenCommitment(request: ConfidentialCallRequest): { commitment: Uint8Array; commitmentKey: Uint8Array } {
    if (request.commitment === undefined) throw commitmentNotPresent();
    const commitment = base58OrUndefined(request.commitment);
    if (commitment === undefined) throw genericError('error decoding commitment', 'commitment');
    if (request.commitmentKey === undefined) throw commitmentKeyNotPresent();
    const commitmentKey = base58OrUndefined(request.commitmentKey);
    if (commitmentKey === undefined) throw genericError('error decoding commitmentKey', 'commitmentKey');
    if (!commitmentHolds(commitment, request.params, commitmentKey, this.o.protocol)) throw commitmentValidationFailed();
    return { commitment, commitmentKey };
  }

  executed(txIdText: string): ConfidentialExecutedAnswer {
    const txId = base58OrUndefined(txIdText);
    if (txId === undefined) throw customValidationError(`Failed to decode base58 transaction id value '${txIdText}'`, 'txId');
    const state = this.o.state();
    const executed = executedContractFor(state, txId);
    if (executed === undefined || executed.version !== 4) throw executedTransactionNotFound(txIdText);
    const inner = executed.data.tx;
    if (!CallContract.is(inner) || inner.version !== 6) throw executedTransactionNotFound(txIdText);
    const info = state.contract(inner.data.contractId);
    if (info === undefined) throw executedTransactionNotFound(txIdText);
    const contractText = encodeBase58(info.contractId);
    if (!info.isConfidential) throw customValidationError(`Contract: '${contractText}' for transaction with id: '${txIdText}' is not confidential`);
    if (!isGroupMember(info, this.ownerAddress)) {
      throw customValidationError(`Node owner with address '${this.ownerText()}' is not in confidential groups for contract with id: '${contractText}'`);
    }
    const input = this.o.storage.get('input', inner.data.inputCommitment!);
    const output = this.o.storage.get('output', executed.data.outputCommitment!);
    if (input === undefined || output === undefined)
      throw customValidationError(`Confidential input or output not found for transaction with id: '${txIdText}'`);
    return { executed, call: inner, input, output };
  }

  entries(contractIdText: string): DataEntry[] {
    const info = this.contractNamed(contractIdText);
    this.checkMember(info);
    return this.o.confidentialState.entries(this.o.state(), info.contractId);
  }
}
