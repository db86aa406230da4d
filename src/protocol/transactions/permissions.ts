import type { TxCodec } from './schema.js';

export const codecs: readonly TxCodec[] = [];
