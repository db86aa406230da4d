/**
 * Every transaction family the node knows, by (type, version). Adding a family means
 * adding its module here; nothing else dispatches on transaction types.
 */
import type { TxCodec } from './schema.js';
import * as alias from './alias.js';
import * as assets from './assets.js';
import * as atomic from './atomic.js';
import * as contracts from './contracts.js';
import * as data from './data.js';
import * as exchange from './exchange.js';
import * as genesis from './genesis.js';
import * as leasing from './leasing.js';
import * as nodes from './nodes.js';
import * as permissions from './permissions.js';
import * as privacy from './privacy.js';
import * as scripts from './scripts.js';
import * as transfer from './transfer.js';

export const ALL_CODECS: readonly TxCodec[] = [
  ...genesis.codecs,
  ...assets.codecs,
  ...transfer.codecs,
  ...exchange.codecs,
  ...leasing.codecs,
  ...alias.codecs,
  ...data.codecs,
  ...scripts.codecs,
  ...permissions.codecs,
  ...contracts.codecs,
  ...nodes.codecs,
  ...privacy.codecs,
  ...atomic.codecs,
];

const byTypeVersion = new Map<number, TxCodec>();
for (const codec of ALL_CODECS) {
  for (const version of codec.versions) {
    const key = codec.type * 256 + version;
    if (byTypeVersion.has(key)) throw new Error(`Transaction type ${codec.type} version ${version} is registered twice`);
    byTypeVersion.set(key, codec);
  }
}

export function codecFor(type: number, version: number): TxCodec | undefined {
  if (!Number.isInteger(type) || !Number.isInteger(version) || version < 0 || version > 255) return undefined;
  return byTypeVersion.get(type * 256 + version);
}

/**
 * Codec of a transaction whose full bytes have no 0x00 flag: genesis types (no version
 * byte, version 1) and legacy-header versions (type ‖ version, e.g. MassTransfer V1).
 */
export function legacyCodecFor(type: number, secondByte: number): { codec: TxCodec; version: number } | undefined {
  for (const codec of ALL_CODECS) {
    if (codec.type !== type) continue;
    if (!codec.hasProofs) return { codec, version: 1 };
    if (codec.versions.includes(secondByte) && !codec.modernHeader(secondByte)) return { codec, version: secondByte };
  }
  return undefined;
}

/** Every (type, version) pair the node accepts in binary form. */
export function allTypeVersions(): Array<{ type: number; version: number; name: string }> {
  return ALL_CODECS.flatMap((c) => c.versions.map((version) => ({ type: c.type, version, name: c.name })));
}
