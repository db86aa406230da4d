/**
 * `npm run bench -- fuzz`: the REST fuzz property of test/api/fuzz.test.ts at full length —
 * FUZZ_REQUESTS (default 100 000) malformed requests over every documented route of a
 * seeded node in process, with no miner. Reports the request count, the rate and the
 * number of answers ≥ 500 (must be 0; the run fails otherwise, printing the first few), and
 * checks that the node still answers and that its state is unchanged.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { chainMark, describeRequest, fuzzContext, fuzzRequests, send } from '../devkit/api/fuzz-requests.js';
import { seededNode, servedDocument } from '../devkit/api/seeded-node.js';

export interface FuzzReport {
  readonly requests: number;
  readonly seconds: number;
  readonly rate: number;
  readonly serverErrors: number;
  readonly examples: readonly string[];
  readonly stateUnchanged: boolean;
  readonly alive: boolean;
}

export async function fuzzBench(requests = Number(process.env['FUZZ_REQUESTS'] ?? 100_000)): Promise<FuzzReport> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-fuzz-'));
  const s = await seededNode({ dataDir: dir });
  try {
    const ctx = fuzzContext(s, await servedDocument(s.app));
    const before = chainMark(s);
    let serverErrors = 0;
    const examples: string[] = [];
    const start = process.hrtime.bigint();
    await fc.assert(
      fc.asyncProperty(fuzzRequests(ctx), async (request) => {
        const res = await send(s.app, request);
        if (res.status >= 500) {
          serverErrors++;
          if (examples.length < 5) examples.push(`${res.status} for ${describeRequest(request)} → ${res.body.slice(0, 300)}`);
        }
      }),
      { numRuns: requests },
    );
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const alive = (await s.app.inject({ method: 'GET', url: '/blocks/height' })).statusCode === 200;
    const stateUnchanged = isDeepStrictEqual(chainMark(s), before);
    return { requests, seconds, rate: requests / seconds, serverErrors, examples, stateUnchanged, alive };
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
