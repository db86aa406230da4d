/**
 * A confidential dataset ("policy item") as the storage and the network know it: the pair
 * (policy id, data hash) that names it, its kind, the file metadata its sender gave, and
 * WE's byte form of that metadata (PolicyMetaData.bytes) that travels with the data
 * between nodes.
 *
 * Ids are kept as WE's storages keep them: Base58 text (the PostgreSQL columns, the S3
 * object key and metadata all hold Base58). The hash is SHA-256 of the raw bytes.
 */
import { createHash } from 'node:crypto';
import { encodeBase58 } from '../crypto/encoding.js';
import { ByteReader, ByteWriter } from '../protocol/bytes.js';
import { DecodeError } from '../errors/catalogue.js';

/** WE's PrivacyDataType: how an item is stored and served (its wire byte: 0 default, 1 large). */
export type PrivacyDataType = 'default' | 'large';

export const DATA_TYPE_BYTE: Readonly<Record<PrivacyDataType, number>> = { default: 0, large: 1 };

export function dataTypeOfByte(b: number): PrivacyDataType | undefined {
  return b === 0 ? 'default' : b === 1 ? 'large' : undefined;
}

/** An item's name: policy id and data hash, both Base58. */
export interface PolicyItemKey {
  readonly policyId: string;
  readonly hash: string;
}

/** What the sender said about the data (WE's PolicyMetaData without storage details). */
export interface PolicyItemMeta extends PolicyItemKey {
  /** The sender's address as given in the request. */
  readonly sender: string;
  readonly filename: string;
  /** As given by the sender (WE does not compare it with the real size); int32. */
  readonly size: number;
  /** As given by the sender; int64. */
  readonly timestamp: bigint;
  readonly author: string;
  readonly comment: string;
}

/** `policyId ‖ hash`, WE's S3 object key and a handy map key. */
export const itemKeyText = (k: PolicyItemKey): string => k.policyId + k.hash;

/** Base58(SHA-256(bytes)): the hash a PolicyDataHash anchors. */
export function policyDataHashOf(data: Uint8Array): string {
  return encodeBase58(createHash('sha256').update(data).digest());
}

/** WE's PolicyMetaData.policyDataType byte, always 1. */
const META_FORMAT = 1;

const utf8 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'));
const text = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');

/** WE's metadata bytes: policyId, hash, sender (i32 length + UTF-8 each), 0x01, filename, size i32, timestamp i64, author, comment. */
export function encodeItemMeta(m: PolicyItemMeta): Uint8Array {
  return new ByteWriter()
    .longBytes(utf8(m.policyId))
    .longBytes(utf8(m.hash))
    .longBytes(utf8(m.sender))
    .u8(META_FORMAT)
    .longBytes(utf8(m.filename))
    .i32(m.size)
    .i64(m.timestamp)
    .longBytes(utf8(m.author))
    .longBytes(utf8(m.comment))
    .result();
}

/** Reads WE's metadata bytes (every byte must be used); DecodeError otherwise. */
export function decodeItemMeta(bytes: Uint8Array): PolicyItemMeta {
  const r = new ByteReader(bytes);
  const policyId = text(r.longBytes('policyId'));
  const hash = text(r.longBytes('hash'));
  const sender = text(r.longBytes('sender'));
  if (r.u8('meta format') !== META_FORMAT) throw new DecodeError('Unknown policy data type', 'meta format');
  const filename = text(r.longBytes('filename'));
  const size = r.i32('size');
  const timestamp = r.i64('timestamp');
  const author = text(r.longBytes('author'));
  const comment = text(r.longBytes('comment'));
  r.expectEnd('policy item metadata');
  return { policyId, hash, sender, filename, size, timestamp, author, comment };
}
