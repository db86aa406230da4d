/**
 * Regenerates the fixed vectors in test/vectors/ from the official libraries:
 *   npm run vectors [-- family…]      (families = files in test/oracle/cases/)
 * Each vector is a signed request as a library produced it, with the library's body
 * bytes and the id WE assigns. test/protocol/vectors.test.ts replays them without the
 * libraries, so a changed dependency cannot hide a regression.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { parseJson } from '../../src/protocol/json.js';
import { buildWithLibrary, checkCase, envFor, MODES, PHRASES, type OracleCase } from './harness.js';
import type { Vector } from '../support/vectors.js';

const PER_CASE_AND_MODE = 4;
const casesDir = new URL('./cases/', import.meta.url);
const families =
  process.argv.length > 2
    ? process.argv.slice(2)
    : readdirSync(casesDir)
        .filter((f) => f.endsWith('.js') && f !== 'index.js')
        .map((f) => f.replace(/\.js$/, ''));

for (const family of families) {
  const { cases } = (await import(new URL(`${family}.js`, casesDir).href)) as { cases: readonly OracleCase[] };
  const vectors: Vector[] = [];
  for (const c of cases) {
    for (const mode of MODES) {
      if (!(c.libraries ?? ['tf2', 'tf1']).includes(mode.library)) continue;
      const env = await envFor(mode);
      const samples = fc.sample(c.fields(env), { numRuns: PER_CASE_AND_MODE, seed: c.type * 100 + c.version });
      for (const [i, fields] of samples.entries()) {
        const signer = env.accounts[i % PHRASES.length]!;
        await checkCase(mode, c, fields, i % PHRASES.length);
        const built = await buildWithLibrary(mode, c, fields, signer);
        const json = c.adjustJson ? c.adjustJson(built.json, env) : built.json;
        // As a request arrives: through text, int64 literals read exactly (as checkCase does).
        const tx = env.protocol.transactionFromJson(parseJson(JSON.stringify(json)));
        vectors.push({
          crypto: mode.crypto,
          library: mode.library,
          type: c.type,
          version: c.version,
          request: json,
          bodyHex: Buffer.from(built.body).toString('hex'),
          id: tx.idBase58,
        });
      }
    }
  }
  const file = new URL(`../../../test/vectors/${family}.json`, import.meta.url);
  writeFileSync(file, JSON.stringify(vectors, null, 1) + '\n');
  console.log(`${family}: ${vectors.length} vectors`);
}
