import { readdirSync, readFileSync } from 'node:fs';
import type { CryptoType } from '../../src/crypto/suite.js';

/** A signed request produced by an official library, with its body bytes and WE id. */
export interface Vector {
  readonly crypto: CryptoType;
  readonly library: string;
  readonly type: number;
  readonly version: number;
  readonly request: Record<string, unknown>;
  readonly bodyHex: string;
  readonly id: string;
}

const DIR = new URL('../../../test/vectors/', import.meta.url);

export function loadVectors(): Map<string, Vector[]> {
  const out = new Map<string, Vector[]>();
  for (const f of readdirSync(DIR)
    .filter((n) => n.endsWith('.json'))
    .sort()) {
    out.set(f.replace(/\.json$/, ''), JSON.parse(readFileSync(new URL(f, DIR), 'utf8')) as Vector[]);
  }
  return out;
}
