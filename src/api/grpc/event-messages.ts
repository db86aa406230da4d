/**
 * WE's BlockchainEvent messages (we-core `messagebroker/messagebroker_blockchain_event.proto`),
 * encoded straight to bytes: transactions go in as the bytes of their protobuf form
 * (protocol/proto/transactions.ts, kept per transaction), so a block sent to ten subscribers
 * encodes each of its transactions once.
 *
 * Field numbers: BlockchainEvent's oneof — MicroBlockAppended 2, BlockAppended 3,
 * RollbackCompleted 4, AppendedBlockHistory 5 (1, the old error event, is not sent by 1.14).
 */
import protobuf from 'protobufjs';

/** The header WE puts in BlockAppended and AppendedBlockHistory. */
export interface BlockEventHeader {
  readonly signature: Uint8Array;
  readonly reference: Uint8Array;
  readonly minerAddress: Uint8Array;
  readonly height: number;
  readonly version: number;
  readonly timestamp: bigint;
  /** The block's fee (WE's blockFee). */
  readonly fee: bigint;
  /** The block's size in bytes. */
  readonly size: number;
  readonly features: readonly number[];
}

const MICRO_BLOCK_APPENDED = 2;
const BLOCK_APPENDED = 3;
const ROLLBACK_COMPLETED = 4;
const APPENDED_BLOCK_HISTORY = 5;

const LENGTH_DELIMITED = 2;
const VARINT = 0;
const tag = (field: number, wire: number): number => (field << 3) | wire;

/** Fields 1, 2, 4–10 of BlockAppended / AppendedBlockHistory (3 is the caller's: ids or transactions). */
function writeHeader(w: protobuf.Writer, h: BlockEventHeader, items: (w: protobuf.Writer) => void): void {
  if (h.signature.length > 0) w.uint32(tag(1, LENGTH_DELIMITED)).bytes(h.signature);
  if (h.reference.length > 0) w.uint32(tag(2, LENGTH_DELIMITED)).bytes(h.reference);
  items(w);
  if (h.minerAddress.length > 0) w.uint32(tag(4, LENGTH_DELIMITED)).bytes(h.minerAddress);
  if (h.height !== 0) w.uint32(tag(5, VARINT)).int64(h.height);
  if (h.version !== 0) w.uint32(tag(6, VARINT)).int32(h.version);
  if (h.timestamp !== 0n) w.uint32(tag(7, VARINT)).int64(h.timestamp.toString());
  if (h.fee !== 0n) w.uint32(tag(8, VARINT)).int64(h.fee.toString());
  if (h.size !== 0) w.uint32(tag(9, VARINT)).int32(h.size);
  if (h.features.length > 0) {
    w.uint32(tag(10, LENGTH_DELIMITED)).fork();
    for (const f of h.features) w.int32(f);
    w.ldelim();
  }
}

function event(field: number, body: (w: protobuf.Writer) => void): Uint8Array {
  const w = protobuf.Writer.create();
  w.uint32(tag(field, LENGTH_DELIMITED)).fork();
  body(w);
  w.ldelim();
  return w.finish();
}

const repeatedBytes = (field: number, items: readonly Uint8Array[]) => (w: protobuf.Writer) => {
  for (const item of items) w.uint32(tag(field, LENGTH_DELIMITED)).bytes(item);
};

/** MicroBlockAppended{txs}: `txs` are encoded Transaction messages. */
export function microBlockAppended(txs: readonly Uint8Array[]): Uint8Array {
  return event(MICRO_BLOCK_APPENDED, repeatedBytes(1, txs));
}

/** BlockAppended: the finished liquid block, its transactions by id. */
export function blockAppended(header: BlockEventHeader, txIds: readonly Uint8Array[]): Uint8Array {
  return event(BLOCK_APPENDED, (w) => writeHeader(w, header, repeatedBytes(3, txIds)));
}

/** AppendedBlockHistory: a block in full; `txs` are encoded Transaction messages. */
export function appendedBlockHistory(header: BlockEventHeader, txs: readonly Uint8Array[]): Uint8Array {
  return event(APPENDED_BLOCK_HISTORY, (w) => writeHeader(w, header, repeatedBytes(3, txs)));
}

/** RollbackCompleted: the block the chain went back to and the ids of the transactions taken away. */
export function rollbackCompleted(returnTo: Uint8Array, txIds: readonly Uint8Array[]): Uint8Array {
  return event(ROLLBACK_COMPLETED, (w) => {
    if (returnTo.length > 0) w.uint32(tag(1, LENGTH_DELIMITED)).bytes(returnTo);
    repeatedBytes(2, txIds)(w);
  });
}
