/**
 * What WE 1.14's contract API has beyond `@wavesenterprise/js-contract-grpc-client@1.10.0`
 * (reference contracts.md §2.5–2.7, §3), written from the field numbers in
 * contract-api-1.14.proto and parsed with protobufjs:
 *
 * - `current_block_info` (field 3 of ContractTransactionResponse) and its BlockInfo;
 * - BlockService.GetBlockHeader;
 * - the lease asset operations (ContractAssetOperation fields 5 and 6) — the npm decoder
 *   skips them, so a commit's operations are decoded with the full 1.14 message here.
 *
 * Wrapped strings (google.protobuf.StringValue) are declared locally as `WrappedString`:
 * the same bytes on the wire.
 */
import type protobuf from 'protobufjs';
import { protoTypes } from './proto-files.js';

const type = protoTypes('contract-api-1.14.proto');

const CurrentBlockInfoField = type('CurrentBlockInfoField');
const BlockHeaderRequest = type('BlockHeaderRequest');
const BlockHeader = type('BlockHeader');
const CommittedOperations = type('CommittedOperations');

const TO_OBJECT: protobuf.IConversionOptions = { longs: String, defaults: false, oneofs: true };

export interface BlockInfoMessage {
  readonly height: bigint;
  readonly timestamp: bigint;
  readonly minerAddress: string;
  readonly reference: string;
}

/** The bytes of field 3 (`current_block_info`) of a ContractTransactionResponse. */
export function encodeCurrentBlockInfoField(info: BlockInfoMessage): Uint8Array {
  const message = CurrentBlockInfoField.fromObject({
    currentBlockInfo: { height: info.height.toString(), timestamp: info.timestamp.toString(), minerAddress: info.minerAddress, reference: info.reference },
  });
  return CurrentBlockInfoField.encode(message).finish();
}

/** Reads field 3 back (tests, and clients that want it). */
export function decodeCurrentBlockInfoField(bytes: Uint8Array): BlockInfoMessage | undefined {
  const o = CurrentBlockInfoField.toObject(CurrentBlockInfoField.decode(bytes), TO_OBJECT) as { currentBlockInfo?: Record<string, string> };
  const b = o.currentBlockInfo;
  if (b === undefined) return undefined;
  return {
    height: BigInt(b['height'] ?? '0'),
    timestamp: BigInt(b['timestamp'] ?? '0'),
    minerAddress: b['minerAddress'] ?? '',
    reference: b['reference'] ?? '',
  };
}

export type BlockHeaderRef = { readonly signature: string } | { readonly height: bigint } | undefined;

export interface BlockHeaderMessage {
  readonly version: number;
  readonly height: bigint;
  readonly blockSignature: string;
  readonly reference: string;
  readonly minerAddress: string;
  readonly txCount: number;
  readonly timestamp: bigint;
}

export type OptionalString = { readonly value: string } | undefined;

/** One asset operation as a contract commits it (the 1.14 oneof, lease ops included). */
export type AssetOperationMessage =
  | {
      readonly kind: 'contractIssue';
      readonly assetId: string;
      readonly name: string;
      readonly description: string;
      readonly quantity: bigint;
      readonly decimals: number;
      readonly isReissuable: boolean;
      readonly nonce: number;
    }
  | { readonly kind: 'contractReissue'; readonly assetId: string; readonly quantity: bigint; readonly isReissuable: boolean }
  | { readonly kind: 'contractBurn'; readonly assetId: string | undefined; readonly amount: bigint }
  | { readonly kind: 'contractTransferOut'; readonly assetId: string | undefined; readonly recipient: string; readonly amount: bigint }
  | { readonly kind: 'contractLease'; readonly leaseId: string; readonly nonce: number; readonly recipient: string; readonly amount: bigint }
  | { readonly kind: 'contractCancelLease'; readonly leaseId: string }
  | { readonly kind: 'empty' };

type Raw = Record<string, unknown>;
const str = (o: Raw, k: string): string => (typeof o[k] === 'string' ? o[k] : '');
const big = (o: Raw, k: string): bigint => BigInt(typeof o[k] === 'string' ? o[k] : 0);
const int = (o: Raw, k: string): number => (typeof o[k] === 'number' ? o[k] : 0);
const wrapped = (o: Raw, k: string): string | undefined => {
  const w = o[k] as Raw | undefined;
  return w === undefined ? undefined : str(w, 'value');
};

/** The asset operations of a serialized ExecutionSuccessRequest, lease operations included. */
export function decodeCommittedOperations(request: Uint8Array): AssetOperationMessage[] {
  const o = CommittedOperations.toObject(CommittedOperations.decode(request), TO_OBJECT) as { assetOperations?: Raw[] };
  return (o.assetOperations ?? []).map((op): AssetOperationMessage => {
    const kind = op['operation'] as string | undefined;
    const v = (kind === undefined ? {} : op[kind]) as Raw;
    switch (kind) {
      case 'contractIssue':
        return {
          kind,
          assetId: str(v, 'assetId'),
          name: str(v, 'name'),
          description: str(v, 'description'),
          quantity: big(v, 'quantity'),
          decimals: int(v, 'decimals'),
          isReissuable: v['isReissuable'] === true,
          nonce: int(v, 'nonce'),
        };
      case 'contractReissue':
        return { kind, assetId: str(v, 'assetId'), quantity: big(v, 'quantity'), isReissuable: v['isReissuable'] === true };
      case 'contractBurn':
        return { kind, assetId: wrapped(v, 'assetId'), amount: big(v, 'amount') };
      case 'contractTransferOut':
        return { kind, assetId: wrapped(v, 'assetId'), recipient: str(v, 'recipient'), amount: big(v, 'amount') };
      case 'contractLease':
        return { kind, leaseId: str(v, 'leaseId'), nonce: int(v, 'nonce'), recipient: str(v, 'recipient'), amount: big(v, 'amount') };
      case 'contractCancelLease':
        return { kind, leaseId: str(v, 'leaseId') };
      default:
        return { kind: 'empty' };
    }
  });
}

/** Encodes asset operations the 1.14 way (raw test clients use it to commit lease operations). */
export function encodeCommittedOperations(ops: readonly AssetOperationMessage[]): Uint8Array {
  const wrap = (v: string | undefined): Raw | undefined => (v === undefined ? undefined : { value: v });
  const assetOperations = ops.map((op): Raw => {
    switch (op.kind) {
      case 'contractIssue':
        return { contractIssue: { ...op, kind: undefined, quantity: op.quantity.toString() } };
      case 'contractReissue':
        return { contractReissue: { assetId: op.assetId, quantity: op.quantity.toString(), isReissuable: op.isReissuable } };
      case 'contractBurn':
        return { contractBurn: { assetId: wrap(op.assetId), amount: op.amount.toString() } };
      case 'contractTransferOut':
        return { contractTransferOut: { assetId: wrap(op.assetId), recipient: op.recipient, amount: op.amount.toString() } };
      case 'contractLease':
        return { contractLease: { leaseId: op.leaseId, nonce: op.nonce, recipient: op.recipient, amount: op.amount.toString() } };
      case 'contractCancelLease':
        return { contractCancelLease: { leaseId: op.leaseId } };
      case 'empty':
        return {};
    }
  });
  return CommittedOperations.encode(CommittedOperations.fromObject({ assetOperations })).finish();
}

/** grpc-js service definition of BlockService (same path as WE's). */
export const BLOCK_SERVICE_DEFINITION = {
  getBlockHeader: {
    path: '/wavesenterprise.BlockService/GetBlockHeader',
    requestStream: false,
    responseStream: false,
    requestSerialize: (value: BlockHeaderRef): Buffer =>
      Buffer.from(
        BlockHeaderRequest.encode(
          BlockHeaderRequest.fromObject(value === undefined ? {} : 'height' in value ? { height: value.height.toString() } : { signature: value.signature }),
        ).finish(),
      ),
    requestDeserialize: (bytes: Buffer): BlockHeaderRef => {
      const o = BlockHeaderRequest.toObject(BlockHeaderRequest.decode(bytes), TO_OBJECT);
      if (o['blockRef'] === 'height') return { height: big(o, 'height') };
      if (o['blockRef'] === 'signature') return { signature: str(o, 'signature') };
      return undefined;
    },
    responseSerialize: (h: BlockHeaderMessage): Buffer =>
      Buffer.from(BlockHeader.encode(BlockHeader.fromObject({ ...h, height: h.height.toString(), timestamp: h.timestamp.toString() })).finish()),
    responseDeserialize: (bytes: Buffer): BlockHeaderMessage => {
      const o = BlockHeader.toObject(BlockHeader.decode(bytes), TO_OBJECT);
      return {
        version: int(o, 'version'),
        height: big(o, 'height'),
        blockSignature: str(o, 'blockSignature'),
        reference: str(o, 'reference'),
        minerAddress: str(o, 'minerAddress'),
        txCount: int(o, 'txCount'),
        timestamp: big(o, 'timestamp'),
      };
    },
  },
} as const;
