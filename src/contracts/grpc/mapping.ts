/**
 * Between the node's values and the contract API's messages (WE's ProtoObjectsMapper):
 * the executable transaction pushed to a contract, data entries both ways, and the asset
 * operations a contract commits.
 */
import Long from 'long';
import type { ContractTransaction } from '@wavesenterprise/js-contract-grpc-client/contract/contract_contract_service.js';
import type { DataEntry as DataEntryMessage } from '@wavesenterprise/js-contract-grpc-client/data_entry.js';
import { decodeBase58, encodeBase58 } from '../../crypto/encoding.js';
import { ByteWriter } from '../../protocol/bytes.js';
import type { Protocol } from '../../protocol/protocol.js';
import { ASSET_ID_LENGTH, type DataEntry } from '../../protocol/transactions/fields.js';
import {
  calledContractVersion,
  CreateContract,
  type CallContractTransaction,
  type ContractAssetOperation,
  type CreateContractTransaction,
} from '../../protocol/transactions/contracts.js';
import { writeProofs, type Transaction } from '../../protocol/transactions/schema.js';
import { customValidationError, WeError } from '../../errors/catalogue.js';
import { storedContractOf } from '../../state/contract-info.js';
import type { AssetOperationMessage } from './proto-1.14.js';

export const long = (v: bigint): Long => Long.fromString(v.toString());
export const bigintOf = (v: Long | number | string | undefined): bigint => (v === undefined ? 0n : BigInt(v.toString()));

export function dataEntryToMessage(e: DataEntry): DataEntryMessage {
  const base: DataEntryMessage = { key: e.key, intValue: undefined, boolValue: undefined, binaryValue: undefined, stringValue: undefined };
  switch (e.type) {
    case 'integer':
      return { ...base, intValue: long(e.value) };
    case 'boolean':
      return { ...base, boolValue: e.value };
    case 'binary':
      return { ...base, binaryValue: e.value };
    case 'string':
      return { ...base, stringValue: e.value };
  }
}

/** A committed data entry; one without a value is refused (INVALID_ARGUMENT, as WE's ProtoAdapter). */
export function dataEntryFromMessage(m: DataEntryMessage): DataEntry {
  if (m.intValue !== undefined) return { key: m.key, type: 'integer', value: bigintOf(m.intValue) };
  if (m.boolValue !== undefined) return { key: m.key, type: 'boolean', value: m.boolValue };
  if (m.binaryValue !== undefined) return { key: m.key, type: 'binary', value: Uint8Array.from(m.binaryValue) };
  if (m.stringValue !== undefined) return { key: m.key, type: 'string', value: m.stringValue };
  throw customValidationError(`Data entry with key '${m.key}' has no value`, 'results');
}

/** The tx's proofs as WE's `proofs.bytes()`: version 1 ‖ u16 count ‖ (u16 length ‖ proof)*. */
export function proofsBytes(tx: Transaction): Uint8Array {
  const w = new ByteWriter(8 + 66 * tx.proofs.length);
  writeProofs(w, tx.proofs);
  return w.result();
}

/**
 * The ContractTransaction pushed to a contract for a CreateContract or CallContract:
 * sender as address, contract id (a create's own id), params (or the confidential input
 * given instead), payments of V5+, and the create/call data.
 */
export function contractTransactionMessage(
  tx: CreateContractTransaction | CallContractTransaction,
  contractId: Uint8Array,
  params?: readonly DataEntry[],
): ContractTransaction {
  const payments = tx.data.payments ?? [];
  const feeAssetId = tx.feeAssetId;
  const message: ContractTransaction = {
    id: tx.idBase58,
    type: tx.type,
    sender: tx.sender?.toString() ?? '',
    senderPublicKey: tx.senderPublicKey === undefined ? '' : encodeBase58(tx.senderPublicKey),
    contractId: encodeBase58(contractId),
    params: (params ?? tx.data.params).map(dataEntryToMessage),
    fee: long(tx.fee),
    version: tx.version,
    proofs: proofsBytes(tx),
    timestamp: long(tx.timestamp),
    feeAssetId: feeAssetId === null ? undefined : { value: encodeBase58(feeAssetId) },
    // The 1.10 stubs type the optional asset id as a repeated field: zero or one element is the same bytes.
    payments: payments.map((p) => ({ assetId: p.assetId === null ? [] : [encodeBase58(p.assetId)], amount: long(p.amount) })),
    createData: undefined,
    callData: undefined,
  };
  if (CreateContract.is(tx)) {
    const stored = storedContractOf(tx);
    const image = stored.engine === 'docker' ? stored : { image: '', imageHash: '' };
    return { ...message, createData: { image: image.image, imageHash: image.imageHash, contractName: tx.data.contractName } };
  }
  return { ...message, callData: { contractVersion: calledContractVersion(tx) } };
}

function decodeId(text: string, what: string, length: number): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = decodeBase58(text);
  } catch {
    throw customValidationError(`Invalid ${what} '${text}': not Base58`, 'assetOperations');
  }
  if (bytes.length !== length) throw customValidationError(`Invalid ${what} '${text}': ${bytes.length} bytes, expected ${length}`, 'assetOperations');
  return bytes;
}

const optionalAssetId = (text: string | undefined): Uint8Array | null =>
  text === undefined || text === '' ? null : decodeId(text, 'asset id', ASSET_ID_LENGTH);

function recipientOf(p: Protocol, text: string): ReturnType<Protocol['addresses']['parseRecipient']> {
  try {
    return p.addresses.parseRecipient(text, 'recipient');
  } catch (e) {
    if (e instanceof WeError) throw customValidationError(`Invalid recipient '${text}': ${e.message}`, 'assetOperations');
    throw e;
  }
}

const byteRange = (n: number, what: string): number => {
  if (!Number.isInteger(n) || n < -128 || n > 127) throw customValidationError(`Invalid ${what} ${n}: must fit a byte`, 'assetOperations');
  return n;
};

/** A committed asset operation as the node's value (ids and recipients decoded and checked). */
export function assetOperationFromMessage(p: Protocol, m: AssetOperationMessage): ContractAssetOperation {
  switch (m.kind) {
    case 'contractIssue':
      return {
        operationType: 'issue',
        assetId: decodeId(m.assetId, 'asset id', ASSET_ID_LENGTH),
        name: m.name,
        description: m.description,
        quantity: m.quantity,
        decimals: byteRange(m.decimals, 'decimals'),
        isReissuable: m.isReissuable,
        nonce: byteRange(m.nonce, 'nonce'),
      };
    case 'contractReissue':
      return { operationType: 'reissue', assetId: decodeId(m.assetId, 'asset id', ASSET_ID_LENGTH), quantity: m.quantity, isReissuable: m.isReissuable };
    case 'contractBurn':
      return { operationType: 'burn', assetId: optionalAssetId(m.assetId), amount: m.amount };
    case 'contractTransferOut':
      return { operationType: 'transfer', assetId: optionalAssetId(m.assetId), recipient: recipientOf(p, m.recipient), amount: m.amount };
    case 'contractLease':
      return {
        operationType: 'lease',
        leaseId: decodeId(m.leaseId, 'lease id', ASSET_ID_LENGTH),
        nonce: byteRange(m.nonce, 'nonce'),
        recipient: recipientOf(p, m.recipient),
        amount: m.amount,
      };
    case 'contractCancelLease':
      return { operationType: 'cancel-lease', leaseId: decodeId(m.leaseId, 'lease id', ASSET_ID_LENGTH) };
    case 'empty':
      throw customValidationError('Asset operation without an operation', 'assetOperations');
  }
}
