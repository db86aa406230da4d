/**
 * The WASM contracts of test/fixtures/contracts/wasm, assembled from their WAT text with wabt
 * (as the tests and benchmarks that run them need the bytes).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import wabtInit from 'wabt';
import { REPO_ROOT } from './sdk-package.js';

/** The module bytes of `test/fixtures/contracts/wasm/<name>.wat` (multi-value on). */
export async function wasmFixture(name: string): Promise<Uint8Array> {
  const file = `${name}.wat`;
  const m = (await wabtInit()).parseWat(file, readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'contracts', 'wasm', file), 'utf8'), { multi_value: true });
  try {
    return Uint8Array.from(m.toBinary({}).buffer);
  } finally {
    m.destroy();
  }
}
