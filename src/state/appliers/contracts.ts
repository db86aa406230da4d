/**
 * The state transitions of the contract family (WE's Create/Call/Disable/Update/Executed
 * ContractTransactionDiff): what 103–107 check against state and change.
 *
 * - 103, 104, 107 are checked and applied on their own only outside a block (pool
 *   admission); inside a block they are refused (WE's UnexpectedTransactionError): they
 *   reach the chain embedded in the 105 the miner builds. Their own changes — a contract
 *   registered or replaced, the fee, attached payments moved from the sender to the
 *   contract — are applied with the 105.
 * - 105: only from the block's generator; results hash and validation proofs re-checked;
 *   the embedded transaction's changes, then the results as contract data, then the asset
 *   operations (issue, reissue, burn, transfer, lease, cancel-lease, contract payments). A
 *   V5 with a non-zero status code keeps only the embedded transaction's changes. The
 *   executable transaction is mapped to its 105 (`/contracts/executed-tx-for`).
 * - 106: ordinary: the creator disables an active contract.
 *
 * The state is a MutableState the chain extends with contract state (ContractStateReader /
 * ContractStateWriter, state.ts).
 */
import { Address } from '../../crypto/address.js';
import { encodeBase58 } from '../../crypto/encoding.js';
import { FEATURE as F, FEATURE } from '../../protocol/features.js';
import { equalBytes, INT64 } from '../../protocol/bytes.js';
import {
  CallContract,
  confidentialResultsSignedBytes,
  contractResultsHash,
  contractResultsMapHash,
  CreateContract,
  executedAssetOperations,
  executedContractIdOf,
  UpdateContract,
  type CallContractTransaction,
  type ContractAssetOperation,
  type CreateContractTransaction,
  type DisableContractTransaction,
  type ExecutableContractTransaction,
  type ExecutedContractTransaction,
  type StoredContract,
  type UpdateContractTransaction,
  type ValidationPolicy,
} from '../../protocol/transactions/contracts.js';
import { ROLES, type RoleName } from '../../protocol/transactions/permissions.js';
import type { Transaction } from '../../protocol/transactions/schema.js';
import { validateWasmBytecode } from '../../protocol/wasm/module.js';
import { hasRole } from '../permissions.js';
import { confidentialContractOf, contractInfoAfterUpdate, contractInfoOfCreate, isGroupParticipant, type ContractInfo } from '../contract-info.js';
import type { MutableState } from '../view.js';
import { checkConfidentialCreate, checkConfidentialUpdate } from './confidential-contracts.js';
import { payFee, resolveRecipient, type Applier, type ApplyContext, type MinerFee } from './context.js';
import { featuresByVersion, ONE_WEST, paidFee, TX_PACKAGE, west, ZERO_FEE, type TransactionRules } from './rules.js';
import { createHash } from 'node:crypto';
import { contractAlreadyDisabled, contractIsDisabled, contractNotFound, genericError, permissionError, ValidationError } from '../../errors/catalogue.js';

/** The state the contract appliers work on. */
export type ContractApplyState = MutableState;

// ---------------------------------------------------------------------------
// Errors with WE's kinds and messages

const contractNotFoundError = (contractId: Uint8Array): ValidationError => contractNotFound(encodeBase58(contractId));
const isDisabledError = (contractId: Uint8Array): ValidationError => contractIsDisabled(encodeBase58(contractId));
const alreadyDisabledError = (contractId: Uint8Array): ValidationError => contractAlreadyDisabled(encodeBase58(contractId));

const unexpectedInBlock = (tx: Transaction): ValidationError =>
  genericError(`Executable transaction with id = ${tx.idBase58}, type = ${tx.type} wasn't executed`);

// ---------------------------------------------------------------------------
// Shared checks

const senderAddress = (state: ContractApplyState, tx: Transaction): Address => state.protocol.addresses.fromPublicKey(tx.senderPublicKey!);

/** Holders of `contract_validator` at `at` (WE's lastBlockContractValidators). */
export function contractValidators(state: ContractApplyState, at: bigint): Uint8Array[] {
  return state.roleHolders(ROLES.contract_validator).filter((a) => hasRole(state.permissionOps(a), ROLES.contract_validator, at));
}

/** ValidatorsValidator.checkValidators. */
function checkValidators(state: ContractApplyState, policy: ValidationPolicy, ctx: ApplyContext): void {
  if (policy.type === 'any') return;
  const validators = contractValidators(state, ctx.blockTimestamp);
  const required = policy.type === 'majority_with_one_of' ? policy.addresses : [];
  const ok = policy.type === 'majority' ? validators.length > 0 : validators.some((v) => required.some((a) => equalBytes(a.bytes, v)));
  if (!ok) {
    const suffix = required.length > 0 ? ` At least one of the validators '${required.map((a) => a.toString()).join("', '")}' is required.` : '';
    throw genericError(`Not enough network participants with 'contract_validator' role.${suffix}`);
  }
}

/** BytecodeValidator.checkBytecode: a WASM contract's hash and module. */
function checkBytecode(stored: StoredContract, contractId: Uint8Array): void {
  if (stored.engine !== 'wasm') return;
  const id = encodeBase58(contractId);
  if (!/^[0-9a-f]*$/.test(stored.bytecodeHash)) {
    throw new ValidationError('InvalidHash', 199, `Invalid bytecodeHash ${stored.bytecodeHash} for contract ${id} contains non-hex symbol`);
  }
  const expected = createHash('sha256').update(stored.bytecode).digest('hex');
  if (expected !== stored.bytecodeHash) {
    throw new ValidationError('InvalidHash', 199, `Invalid bytecodeHash for contract ${id}.Actual: ${stored.bytecodeHash}, expected: ${expected}`);
  }
  if (validateWasmBytecode(stored.bytecode) !== 0) throw genericError(`Invalid bytecode with hash ${stored.bytecodeHash} for contract ${id}`);
}

/**
 * A confidential contract is called only with confidential input (104 V6, made by
 * `/confidential-contracts/call`), and a 104 V6 only calls a confidential contract: this
 * node executes no other combination (what WE does with them is not known).
 */
function checkConfidentialCall(tx: CallContractTransaction, info: ContractInfo): void {
  if (info.isConfidential && tx.version !== 6)
    throw genericError(`Contract '${encodeBase58(info.contractId)}' is confidential: it is called by CallContract V6 only`);
  if (!info.isConfidential && tx.version === 6)
    throw genericError(`Contract '${encodeBase58(info.contractId)}' is not confidential: CallContract V6 calls confidential contracts only`);
}

/** TransferOpsSupport.contractTransfersDiff: attached payments go from the sender to the contract. */
function movePayments(state: ContractApplyState, tx: CreateContractTransaction | CallContractTransaction, contractId: Uint8Array): void {
  const payments = tx.data.payments ?? [];
  if (payments.length === 0) return;
  if (!payments.every((p) => p.assetId === null || state.asset(p.assetId) !== undefined)) throw genericError('Attempt to transfer a nonexistent asset');
  const sender = senderAddress(state, tx).bytes;
  for (const p of payments) {
    state.addBalance(sender, p.assetId, -p.amount);
    state.addBalance(contractId, p.assetId, p.amount);
  }
}

// ---------------------------------------------------------------------------
// 103, 104, 107 (their own changes, applied inside a 105 or checked for the pool)

function createChanges(state: ContractApplyState, tx: CreateContractTransaction, ctx: ApplyContext): void {
  if (tx.version === 1 && ctx.isFeatureActive(FEATURE.CONTRACT_NATIVE_TOKENS_AND_PKI)) {
    throw genericError(
      `CreateContractTransactionV1 is not allowed. Since feature '${FEATURE.CONTRACT_NATIVE_TOKENS_AND_PKI}' activation, REST-based smart-contracts are deprecated and cannot be created anymore.`,
    );
  }
  const info = contractInfoOfCreate(tx);
  checkConfidentialCreate(tx, contractValidators(state, ctx.blockTimestamp));
  checkBytecode(info.storedContract, info.contractId);
  checkValidators(state, info.validationPolicy, ctx);
  state.putContract(info);
  payFee(state, senderAddress(state, tx).bytes, tx);
  movePayments(state, tx, info.contractId);
}

function callChanges(state: ContractApplyState, tx: CallContractTransaction, ctx: ApplyContext): void {
  const d = tx.data;
  const info = state.contract(d.contractId);
  if (info === undefined) throw contractNotFoundError(d.contractId);
  checkConfidentialCall(tx, info);
  const called = d.contractVersion ?? 1;
  if (info.version !== called) {
    throw genericError(
      `Called version '${called}' of contract with id '${encodeBase58(info.contractId)}' doesn't match actual contract version '${info.version}'`,
    );
  }
  if (tx.version >= 7 && d.contractEngine !== 'docker' && (d.callFunc === null || d.callFunc === undefined || d.callFunc === '_constructor')) {
    const func = d.callFunc === null || d.callFunc === undefined ? 'None' : `Some(${d.callFunc})`;
    throw genericError(`tx ${tx.idBase58}: Unexpected callFunc ${func} for contract ${encodeBase58(d.contractId)}`);
  }
  checkValidators(state, info.validationPolicy, ctx);
  if (!info.active) throw isDisabledError(d.contractId);
  payFee(state, senderAddress(state, tx).bytes, tx);
  movePayments(state, tx, d.contractId);
}

function updateChanges(state: ContractApplyState, tx: UpdateContractTransaction, ctx: ApplyContext): void {
  const d = tx.data;
  const info = state.contract(d.contractId);
  if (info === undefined) throw contractNotFoundError(d.contractId);
  const creator = state.protocol.addresses.fromPublicKey(info.creator);
  const isCreator = equalBytes(info.creator, d.senderPublicKey);
  const senderRefused = (): ValidationError =>
    genericError(`Contract update transaction sender '${senderAddress(state, tx).toString()}' is not equal to contract creator '${creator.toString()}'`);
  const updated = contractInfoAfterUpdate(tx, info);
  if (!isCreator && JSON.stringify(storedKey(updated.storedContract)) !== JSON.stringify(storedKey(info.storedContract))) throw senderRefused();
  if (updated.storedContract.engine !== info.storedContract.engine)
    throw genericError(`changed engine in UpdateContractTransactionV${tx.version}(${tx.idBase58})`);
  checkConfidentialUpdate(tx, info, senderAddress(state, tx), contractValidators(state, ctx.blockTimestamp));
  if (!info.active) throw isDisabledError(d.contractId);
  if (!isCreator) throw senderRefused();
  checkValidators(state, updated.validationPolicy, ctx);
  checkBytecode(updated.storedContract, info.contractId);
  state.putContract(updated);
  payFee(state, senderAddress(state, tx).bytes, tx);
}

/** What decides whether an update changes the contract: image, hash and API version, or bytecode hash. */
function storedKey(c: StoredContract): unknown {
  return c.engine === 'docker' ? [c.image, c.imageHash, c.apiVersion.major, c.apiVersion.minor] : [c.bytecodeHash];
}

/** The own changes of an executable transaction, whichever it is (the one a 105 executed). */
function executableChanges(state: ContractApplyState, tx: ExecutableContractTransaction, ctx: ApplyContext): void {
  if (CreateContract.is(tx)) createChanges(state, tx, ctx);
  else if (CallContract.is(tx)) callChanges(state, tx, ctx);
  else updateChanges(state, tx, ctx);
}

/** The applier of a 103/104/107 on its own (its own `changes`): checked (pool admission) outside a block, refused inside one. */
function onItsOwn<T extends ExecutableContractTransaction>(changes: (state: ContractApplyState, tx: T, ctx: ApplyContext) => void): Applier<T> {
  return (state, tx, ctx) => {
    if (ctx.blockGenerator !== undefined) throw unexpectedInBlock(tx);
    changes(state, tx, ctx);
    return undefined;
  };
}

export const applyCreateContract = onItsOwn(createChanges);
export const applyCallContract = onItsOwn(callChanges);
export const applyUpdateContract = onItsOwn(updateChanges);

// ---------------------------------------------------------------------------
// 106

export const applyDisableContract: Applier<DisableContractTransaction> = (state, tx) => {
  const d = tx.data;
  const info = state.contract(d.contractId);
  if (info === undefined) throw contractNotFoundError(d.contractId);
  if (!equalBytes(info.creator, d.senderPublicKey)) {
    throw genericError(
      `Can't disable contract: transaction sender '${senderAddress(state, tx).toString()}' is not developer of contract '${encodeBase58(d.contractId)}'`,
    );
  }
  if (!info.active) throw alreadyDisabledError(d.contractId);
  state.putContract({ ...info, active: false });
  payFee(state, senderAddress(state, tx).bytes, tx);
  return undefined;
};

// ---------------------------------------------------------------------------
// 105

/** The validation policy the 105's proofs are checked against (WE's validationPolicy(tx.tx)). */
export function policyOf(state: ContractApplyState, inner: ExecutableContractTransaction): ValidationPolicy {
  if (CreateContract.is(inner)) return contractInfoOfCreate(inner).validationPolicy;
  const contractId = inner.data.contractId;
  const info = state.contract(contractId);
  if (info === undefined) throw contractNotFoundError(contractId);
  return UpdateContract.is(inner) ? contractInfoAfterUpdate(inner, info).validationPolicy : info.validationPolicy;
}

function checkResultsHash(tx: ExecutedContractTransaction): void {
  const d = tx.data;
  if (tx.version === 1 || tx.version === 4 || d.resultsHash === undefined) return;
  const expected =
    tx.version === 5
      ? contractResultsMapHash(tx.protocol, d.resultsMap ?? [], d.assetOperationsMap ?? [])
      : contractResultsHash(tx.protocol, d.results ?? [], tx.version === 3 ? (d.assetOperations ?? []) : []);
  if (!equalBytes(expected, d.resultsHash)) {
    throw genericError(`Invalid results hash. Actual '${encodeBase58(d.resultsHash)}', expected '${encodeBase58(expected)}'.`);
  }
}

/**
 * A 105 V4 (a confidential call's) is judged among its contract's group participants that
 * are validators, and its proofs are the validators' V2 signatures over its readings,
 * readingsHash, outputCommitment and resultsHash (WE's checkValidationProofMajority set;
 * WE 1.14 itself checks V4 proofs over the results hash alone, which its validators' V2
 * signatures never satisfy).
 */
function checkValidationProofs(state: ContractApplyState, tx: ExecutedContractTransaction, miner: Uint8Array, ctx: ApplyContext): void {
  const d = tx.data;
  if (tx.version === 1 || d.resultsHash === undefined) return;
  const proofs = d.validationProofs ?? [];
  const policy = policyOf(state, d.tx);
  const confidential = confidentialContractOf(d.tx, state);
  const signed =
    tx.version === 4 && d.outputCommitment !== undefined
      ? confidentialResultsSignedBytes(tx.protocol, d.readings ?? [], d.readingsHash ?? null, d.outputCommitment, d.resultsHash)
      : d.resultsHash;
  if (policy.type !== 'any') {
    const minerAddress = state.protocol.addresses.fromPublicKey(miner).bytes;
    const validators = contractValidators(state, ctx.blockTimestamp).filter(
      (v) => !equalBytes(v, minerAddress) && (confidential === undefined || isGroupParticipant(confidential, v)),
    );
    const proofAddresses = proofs.map((p) => state.protocol.addresses.fromPublicKey(p.validatorPublicKey).bytes);
    const count = new Set(proofAddresses.filter((a) => validators.some((v) => equalBytes(v, a))).map((a) => encodeBase58(a))).size;
    const majority = Math.ceil((2 / 3) * validators.length);
    const required = policy.type === 'majority_with_one_of' ? policy.addresses : [];
    const hasRequired = required.length === 0 || required.some((r) => proofAddresses.some((a) => equalBytes(a, r.bytes)));
    if (!hasRequired || count < majority) {
      const names = validators.map((v) => state.protocol.addresses.addressFromBytes(v).toString());
      throw genericError(
        `Invalid validation proofs for results hash '${encodeBase58(d.resultsHash)}'. Actual '${count}', expected '${majority}'.Current validators set: '${names.join("', '")}'.` +
          (hasRequired ? '' : ` Proofs does not contain one of required addresses: '${required.map((r) => r.toString()).join("', '")}'`),
      );
    }
  }
  for (const p of proofs) {
    if (!state.protocol.crypto.verify(p.validatorPublicKey, signed, p.signature)) {
      throw genericError(
        `Invalid validator '${state.protocol.addresses.fromPublicKey(p.validatorPublicKey).toString()}' signature '${encodeBase58(p.signature)}'`,
      );
    }
  }
}

/** The embedded transaction's signature and its sender's roles (it was checked by the miner's pool, not by this node). */
function checkEmbedded(state: ContractApplyState, inner: ExecutableContractTransaction): void {
  if (!inner.hasValidSenderSignature())
    throw genericError(`Script doesn't exist and proof doesn't validate as signature for the executed transaction '${inner.idBase58}'`);
  const sender = senderAddress(state, inner);
  const ops = state.permissionOps(sender.bytes);
  if (hasRole(ops, ROLES.banned, inner.timestamp)) throw permissionError(`Sender ${sender.toString()} permission validation failed: Sender is 'banned'`);
  const required: RoleName | undefined = CreateContract.is(inner) || UpdateContract.is(inner) ? 'contract_developer' : undefined;
  if (required !== undefined && !hasRole(ops, ROLES[required], inner.timestamp)) {
    throw permissionError(`Sender ${sender.toString()} permission validation failed: Has no active '${required}' role`);
  }
}

/** Asset operation bytes take 32-byte ids; WE's checkAssetIdLength. */
function checkIdLength(id: Uint8Array): void {
  if (id.length !== 32) throw new ValidationError('InvalidAssetId', 199, `Invalid assetId length. Current - '${id.length}', expected – '32'`);
}

function checkNonces(ops: readonly ContractAssetOperation[]): void {
  const issue = ops.flatMap((o) => (o.operationType === 'issue' ? [o.nonce] : []));
  if (new Set(issue).size !== issue.length) throw genericError('Attempt to issue multiple assets with the same nonce');
  if (issue.includes(0)) throw genericError('Attempt to issue asset with nonce = 0');
  const lease = ops.flatMap((o) => (o.operationType === 'lease' ? [o.nonce] : []));
  if (new Set(lease).size !== lease.length) throw genericError('Attempt to create multiple contract leases with the same nonce');
  if (lease.includes(0)) throw genericError('Attempt to create contract lease with nonce = 0');
}

function assetMustExist(state: ContractApplyState, assetId: Uint8Array | null): void {
  if (assetId === null) return;
  checkIdLength(assetId);
  if (state.asset(assetId) === undefined) throw genericError(`Asset '${encodeBase58(assetId)}' does not exist`);
}

/** One asset operation of contract `contractId`, applied in order (WE's applyContractOpsToDiff). */
function applyOperation(state: ContractApplyState, executed: Transaction, contractId: Uint8Array, op: ContractAssetOperation, ctx: ApplyContext): void {
  const contract = `Contract(${encodeBase58(contractId)})`;
  switch (op.operationType) {
    case 'issue':
      checkIdLength(op.assetId);
      if (state.asset(op.assetId) !== undefined) throw genericError(`Asset '${encodeBase58(op.assetId)}' already exists`);
      state.putAsset(op.assetId, {
        issuer: contractId,
        issuedByContract: true,
        height: ctx.height,
        timestamp: executed.timestamp,
        name: new Uint8Array(Buffer.from(op.name, 'utf8')),
        description: new Uint8Array(Buffer.from(op.description, 'utf8')),
        decimals: op.decimals,
        reissuable: op.isReissuable,
        volume: op.quantity,
        script: null,
        sponsorship: false,
      });
      state.addBalance(contractId, op.assetId, op.quantity);
      return;
    case 'reissue': {
      const asset = state.asset(op.assetId);
      if (asset === undefined) throw genericError(`Referenced assetId '${encodeBase58(op.assetId)}' doesn't exist`);
      checkIdLength(op.assetId);
      if (asset.issuedByContract !== true || !equalBytes(asset.issuer, contractId))
        throw genericError(`Asset '${encodeBase58(op.assetId)}' was not issued by '${contract}'`);
      if (!asset.reissuable) throw genericError('Asset is not reissuable');
      if (INT64.MAX - op.quantity < asset.volume) throw genericError('Asset total value overflow');
      state.putAsset(op.assetId, { ...asset, volume: asset.volume + op.quantity, reissuable: op.isReissuable });
      state.addBalance(contractId, op.assetId, op.quantity);
      return;
    }
    case 'burn': {
      if (op.assetId === null) throw genericError('Attempt to burn WEST token');
      const asset = state.asset(op.assetId);
      if (asset === undefined) throw genericError(`Referenced assetId '${encodeBase58(op.assetId)}' doesn't exist`);
      checkIdLength(op.assetId);
      state.putAsset(op.assetId, { ...asset, volume: asset.volume - op.amount });
      state.addBalance(contractId, op.assetId, -op.amount);
      return;
    }
    case 'transfer': {
      assetMustExist(state, op.assetId);
      const recipient = resolveRecipient(state, op.recipient).bytes;
      state.addBalance(contractId, op.assetId, -op.amount);
      state.addBalance(recipient, op.assetId, op.amount);
      return;
    }
    case 'contract-payment': {
      assetMustExist(state, op.assetId);
      if (state.contract(op.recipient) === undefined) throw contractNotFoundError(op.recipient);
      state.addBalance(contractId, op.assetId, -op.amount);
      state.addBalance(op.recipient, op.assetId, op.amount);
      return;
    }
    case 'lease': {
      checkIdLength(op.leaseId);
      if (state.lease(op.leaseId) !== undefined) throw genericError(`Lease '${encodeBase58(op.leaseId)}' already exists`);
      const recipient = resolveRecipient(state, op.recipient).bytes;
      const balance = state.balance(contractId, null);
      const leased = state.leaseBalance(contractId).out;
      if (balance - leased < op.amount) throw genericError(`Cannot lease more than own: balance:${balance}, already leased: ${leased}`);
      state.addLeaseBalance(contractId, 0n, op.amount);
      state.addLeaseBalance(recipient, op.amount, 0n);
      state.putLease(op.leaseId, { sender: contractId, leasedByContract: true, recipient, amount: op.amount, active: true, height: ctx.height });
      return;
    }
    case 'cancel-lease': {
      const lease = state.lease(op.leaseId);
      if (lease === undefined) throw genericError('Related LeaseTransaction not found');
      if (!lease.active) throw genericError('Cannot cancel already cancelled lease');
      if (lease.leasedByContract !== true || !equalBytes(lease.sender, contractId))
        throw genericError(`Lease '${encodeBase58(op.leaseId)}' was leased by other sender`);
      state.addLeaseBalance(contractId, 0n, -lease.amount);
      state.addLeaseBalance(lease.recipient, -lease.amount, 0n);
      state.putLease(op.leaseId, { ...lease, active: false });
      return;
    }
  }
}

/** What the block's miner gets for an executable transaction's fee (sponsored asset fees 1:1 in WEST). */
function minerFeeOf(state: ContractApplyState, tx: Transaction): MinerFee {
  const feeAssetId = tx.feeAssetId;
  if (feeAssetId === null) return { fee: tx.fee };
  return { fee: state.asset(feeAssetId)?.sponsorship === true ? tx.fee : 0n };
}

/** What every 105 must be before its changes apply: not executed yet, sent by the block's generator, its results hash that of its results. Returns the generator. */
function checkExecutedContract(state: ContractApplyState, tx: ExecutedContractTransaction, ctx: ApplyContext): Uint8Array {
  const d = tx.data;
  const inner = d.tx;
  if (state.executedTxFor(inner.id) !== undefined) throw genericError(`Executable transaction ${inner.idBase58} has been already executed`);
  const miner = ctx.blockGenerator;
  if (miner === undefined) throw genericError('Block or microblock is needed to validate this transaction');
  if (!equalBytes(miner, d.senderPublicKey)) {
    throw new ValidationError(
      'InvalidSender',
      199,
      `InvalidSender(ExecutedContractTransaction should be created only by block creator: tx sender is '${state.protocol.addresses.fromPublicKey(d.senderPublicKey).toString()}', but block creator is '${state.protocol.addresses.fromPublicKey(miner).toString()}')`,
    );
  }
  // A V4 carries a confidential call: its results stay off-chain (only outputCommitment is here).
  if (tx.version === 4 && !(CallContract.is(inner) && inner.version === 6))
    throw genericError(`ExecutedContract V4 carries a confidential call (CallContract V6), not a ${inner.type} V${inner.version}`);
  checkResultsHash(tx);
  return miner;
}

/** The changes of a checked 105: the embedded transaction's own, then the results as contract data, then the asset operations. */
function applyExecutionChanges(state: ContractApplyState, tx: ExecutedContractTransaction, ctx: ApplyContext): MinerFee {
  const d = tx.data;
  const inner = d.tx;
  checkEmbedded(state, inner);
  executableChanges(state, inner, ctx);
  state.putExecutedTxFor(inner.id, tx.id);
  // WE's state records the executed transaction itself, under the addresses its changes touched.
  state.addExecutedTransaction(inner);
  const failed = tx.version === 5 && d.statusCode !== 0;
  const executing = executedContractIdOf(inner);
  if (!failed) {
    if (d.resultsMap !== undefined) for (const c of d.resultsMap) for (const e of c.results) state.putContractData(c.contractId, e);
    else for (const e of d.results ?? []) state.putContractData(executing, e);
  }
  if (!failed && (tx.version === 3 || tx.version === 5)) {
    checkNonces(executedAssetOperations(tx));
    const byContract = d.assetOperationsMap ?? [{ contractId: executing, operations: d.assetOperations ?? [] }];
    for (const c of byContract) for (const op of c.operations) applyOperation(state, tx, c.contractId, op, ctx);
  }
  return minerFeeOf(state, inner);
}

/** A 105 in a block (or mined into one): every check, the results hash and the validation proofs included, whoever applies it. */
export const applyExecutedContract: Applier<ExecutedContractTransaction> = (state, tx, ctx) => {
  const miner = checkExecutedContract(state, tx, ctx);
  checkValidationProofs(state, tx, miner, ctx);
  return applyExecutionChanges(state, tx, ctx);
};

/**
 * A contract validator's own execution (WE's validating executor): the 105 it built for its
 * working state from its own results, signed by itself and never mined — the next
 * executions it validates see its changes, as the miner's will. Proofs are what the miner
 * collects from validators, so an own execution has none: one that carries proofs is a
 * block's 105 and is refused here (blocks go through applyExecutedContract). It is not a
 * registered rule: no block reaches it.
 */
export const applyOwnExecutedContract: Applier<ExecutedContractTransaction> = (state, tx, ctx) => {
  if ((tx.data.validationProofs ?? []).length > 0)
    throw genericError(`ExecutedContract ${tx.idBase58} carries validation proofs: it is not this node's own execution`);
  checkExecutedContract(state, tx, ctx);
  return applyExecutionChanges(state, tx, ctx);
};

// ---------------------------------------------------------------------------
// The family's rules. An executable transaction's fee is taken when its 105 is applied
// and goes to the 105's miner; the 105 itself is free.

const DOCKER = `${TX_PACKAGE}.docker`;

export const CREATE_CONTRACT: TransactionRules<CreateContractTransaction> = {
  apply: applyCreateContract,
  scalaClass: { pkg: DOCKER, name: 'CreateContractTransaction', versioned: true },
  features: featuresByVersion({
    1: [],
    2: [F.CONTRACTS_GRPC],
    3: [F.CONTRACTS_GRPC, F.ATOMIC_TRANSACTIONS, F.SPONSORED_FEES],
    4: [F.CONTRACTS_GRPC, F.ATOMIC_TRANSACTIONS, F.SPONSORED_FEES, F.CONTRACT_VALIDATIONS],
    5: [F.CONTRACTS_GRPC, F.ATOMIC_TRANSACTIONS, F.SPONSORED_FEES, F.CONTRACT_VALIDATIONS, F.CONTRACT_NATIVE_TOKENS_AND_PKI],
    6: [F.CONTRACTS_GRPC, F.ATOMIC_TRANSACTIONS, F.SPONSORED_FEES, F.CONTRACT_VALIDATIONS, F.CONTRACT_NATIVE_TOKENS_AND_PKI, F.CONFIDENTIAL_DATA_IN_CONTRACTS],
    7: [
      F.CONTRACTS_GRPC,
      F.ATOMIC_TRANSACTIONS,
      F.SPONSORED_FEES,
      F.CONTRACT_VALIDATIONS,
      F.CONTRACT_NATIVE_TOKENS_AND_PKI,
      F.CONFIDENTIAL_DATA_IN_CONTRACTS,
      F.WASM_CONTRACTS,
    ],
  }),
  // A V2 paying its fee in an asset needs sponsored fees (CreateContractTransactionV2.requiredFeatures).
  fieldFeatures: (tx) => (tx.version === 2 && tx.feeAssetId !== null ? [F.SPONSORED_FEES] : []),
  roles: () => ['contract_developer'],
  fee: paidFee('create-contract', ONE_WEST),
};

export const CALL_CONTRACT: TransactionRules<CallContractTransaction> = {
  apply: applyCallContract,
  scalaClass: { pkg: DOCKER, name: 'CallContractTransaction', versioned: true },
  features: featuresByVersion({
    1: [],
    2: [],
    3: [F.SPONSORED_FEES],
    4: [F.SPONSORED_FEES, F.ATOMIC_TRANSACTIONS],
    5: [F.SPONSORED_FEES, F.ATOMIC_TRANSACTIONS, F.CONTRACT_NATIVE_TOKENS_AND_PKI],
    6: [F.SPONSORED_FEES, F.ATOMIC_TRANSACTIONS, F.CONTRACT_NATIVE_TOKENS_AND_PKI, F.CONFIDENTIAL_DATA_IN_CONTRACTS],
    7: [F.SPONSORED_FEES, F.ATOMIC_TRANSACTIONS, F.CONTRACT_NATIVE_TOKENS_AND_PKI, F.CONFIDENTIAL_DATA_IN_CONTRACTS, F.WASM_CONTRACTS],
  }),
  fee: paidFee('call-contract', west(0.1)),
};

export const EXECUTED_CONTRACT: TransactionRules<ExecutedContractTransaction> = {
  apply: applyExecutedContract,
  scalaClass: { pkg: DOCKER, name: 'ExecutedContractTransaction', versioned: true },
  features: featuresByVersion({
    1: [],
    2: [F.CONTRACT_VALIDATIONS],
    3: [F.CONTRACT_VALIDATIONS, F.CONTRACT_NATIVE_TOKENS_AND_PKI],
    4: [F.CONTRACT_VALIDATIONS, F.CONTRACT_NATIVE_TOKENS_AND_PKI, F.CONFIDENTIAL_DATA_IN_CONTRACTS],
    5: [F.CONTRACT_VALIDATIONS, F.CONTRACT_NATIVE_TOKENS_AND_PKI, F.CONFIDENTIAL_DATA_IN_CONTRACTS, F.WASM_CONTRACTS],
  }),
  fee: ZERO_FEE,
};

export const DISABLE_CONTRACT: TransactionRules<DisableContractTransaction> = {
  apply: applyDisableContract,
  scalaClass: { pkg: DOCKER, name: 'DisableContractTransaction', versioned: true },
  features: featuresByVersion({ 1: [], 2: [F.SPONSORED_FEES], 3: [F.SPONSORED_FEES, F.ATOMIC_TRANSACTIONS] }),
  fee: paidFee('disable-contract', west(0.01)),
};

export const UPDATE_CONTRACT: TransactionRules<UpdateContractTransaction> = {
  apply: applyUpdateContract,
  scalaClass: { pkg: DOCKER, name: 'UpdateContractTransaction', versioned: true },
  features: featuresByVersion({
    1: [],
    2: [F.SPONSORED_FEES],
    3: [F.SPONSORED_FEES, F.ATOMIC_TRANSACTIONS],
    4: [F.SPONSORED_FEES, F.ATOMIC_TRANSACTIONS, F.CONTRACT_VALIDATIONS],
    5: [F.SPONSORED_FEES, F.ATOMIC_TRANSACTIONS, F.CONTRACT_VALIDATIONS, F.CONFIDENTIAL_DATA_IN_CONTRACTS],
    6: [F.SPONSORED_FEES, F.ATOMIC_TRANSACTIONS, F.CONTRACT_VALIDATIONS, F.CONFIDENTIAL_DATA_IN_CONTRACTS, F.WASM_CONTRACTS],
  }),
  roles: () => ['contract_developer'],
  fee: paidFee('update-contract', ONE_WEST),
};
