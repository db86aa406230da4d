/**
 * The data transactions of anchoring (WE's TargetnetDataTransaction and the write-back of
 * AnchoringScheduler), all Data V1 (type 12) with sender = author = signer:
 *
 * - on the target network, signed by the target key: `signature` (binary, the anchored
 *   block's id) and `height` (integer, its height);
 * - on this chain, signed by the node owner, after the target transaction is deep enough:
 *   `signature`, `height`, `targetnet-tx-id` (string, Base58), `targetnet-tx-timestamp`
 *   (integer);
 * - on this chain when a round fails: `error-code` (integer), `error-message` (string),
 *   `signature`, `height`.
 */
import { encodeBase58 } from '../crypto/encoding.js';
import type { KeyPair } from '../crypto/suite.js';
import type { Protocol } from '../protocol/protocol.js';
import { Data, type DataData } from '../protocol/transactions/data.js';
import type { DataEntry } from '../protocol/transactions/fields.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import type { AnchoringFailure } from './errors.js';

/** The data entry keys anchoring writes. */
export const ANCHOR_KEYS = {
  signature: 'signature',
  height: 'height',
  targetnetTxId: 'targetnet-tx-id',
  targetnetTxTimestamp: 'targetnet-tx-timestamp',
  errorCode: 'error-code',
  errorMessage: 'error-message',
} as const;

/** A block of this chain to anchor: its height and id (signature). */
export interface AnchoredBlock {
  readonly height: number;
  readonly signature: Uint8Array;
}

function dataTransaction(protocol: Protocol, signer: KeyPair, data: DataEntry[], fee: bigint, timestamp: bigint): Transaction<DataData> {
  const tx = protocol.transaction<DataData>(Data, 1, {
    senderPublicKey: signer.publicKey,
    author: signer.publicKey,
    data,
    timestamp,
    fee,
    feeAssetId: null,
    atomicBadge: null,
  });
  return protocol.sign(tx, signer.privateKey);
}

const blockEntries = (block: AnchoredBlock): DataEntry[] => [
  { key: ANCHOR_KEYS.signature, type: 'binary', value: block.signature },
  { key: ANCHOR_KEYS.height, type: 'integer', value: BigInt(block.height) },
];

/** The transaction sent to the target network (`protocol`: the target's, Waves crypto and its chain id). */
export function targetnetTransaction(protocol: Protocol, key: KeyPair, block: AnchoredBlock, fee: bigint, timestamp: bigint): Transaction<DataData> {
  return dataTransaction(protocol, key, blockEntries(block), fee, timestamp);
}

/** The record on this chain that the block is anchored in the target transaction. */
export function confirmationTransaction(
  protocol: Protocol,
  owner: KeyPair,
  block: AnchoredBlock,
  target: { readonly id: Uint8Array; readonly timestamp: bigint },
  fee: bigint,
  timestamp: bigint,
): Transaction<DataData> {
  const entries: DataEntry[] = [
    ...blockEntries(block),
    { key: ANCHOR_KEYS.targetnetTxId, type: 'string', value: encodeBase58(target.id) },
    { key: ANCHOR_KEYS.targetnetTxTimestamp, type: 'integer', value: target.timestamp },
  ];
  return dataTransaction(protocol, owner, entries, fee, timestamp);
}

/** The record on this chain that anchoring the block failed, with WE's code and message. */
export function errorTransaction(
  protocol: Protocol,
  owner: KeyPair,
  block: AnchoredBlock,
  failure: AnchoringFailure,
  fee: bigint,
  timestamp: bigint,
): Transaction<DataData> {
  const entries: DataEntry[] = [
    { key: ANCHOR_KEYS.errorCode, type: 'integer', value: BigInt(failure.code) },
    { key: ANCHOR_KEYS.errorMessage, type: 'string', value: failure.message },
    ...blockEntries(block),
  ];
  return dataTransaction(protocol, owner, entries, fee, timestamp);
}

/** The same write-back signed again at a later time (when the first one can no longer enter the pool). */
export function resigned(protocol: Protocol, owner: KeyPair, tx: Transaction<DataData>, timestamp: bigint): Transaction<DataData> {
  return dataTransaction(protocol, owner, [...tx.data.data], tx.data.fee, timestamp);
}
