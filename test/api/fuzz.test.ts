/**
 * Fuzzing the REST API: a fast-check property sends
 * malformed paths, bodies, content types, methods, huge numbers and oversize payloads to
 * every route of the served OpenAPI document (fuzz-requests.ts) on a seeded node in
 * process with no miner. Every answer is below 500, the node keeps answering
 * /blocks/height, and the state is exactly what it was: same store state hash, height and
 * last block.
 *
 * FUZZ_REQUESTS sets the number of requests (default 10 000, CI's floor);
 * `npm run bench -- fuzz` sends 100 000.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { chainMark, describeRequest, fuzzContext, fuzzRequests, send, type FuzzContext } from '../../devkit/api/fuzz-requests.js';
import { routeKey, seededNode, servedDocument, type SeededNode } from '../../devkit/api/seeded-node.js';

const REQUESTS = Number(process.env['FUZZ_REQUESTS'] ?? 10_000);

describe(`fuzzing every documented route (${REQUESTS} requests)`, () => {
  let s: SeededNode;
  let ctx: FuzzContext;
  before(async () => {
    s = await seededNode();
    ctx = fuzzContext(s, await servedDocument(s.app));
  });
  after(() => s.close());

  it('answers every malformed request below 500, stays up, and changes no state', async () => {
    const start = chainMark(s);
    const byStatus = new Map<number, number>();
    const reached = new Map<string, number>();
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(fuzzRequests(ctx), async (request) => {
        const res = await send(s.app, request);
        sent++;
        byStatus.set(res.status, (byStatus.get(res.status) ?? 0) + 1);
        reached.set(request.operation, (reached.get(request.operation) ?? 0) + 1);
        assert.ok(res.status < 500, `${res.status} for ${describeRequest(request)}\n→ ${res.body.slice(0, 500)}`);
        if (sent % 1000 === 0) {
          const alive = await s.app.inject({ method: 'GET', url: '/blocks/height' });
          assert.equal(alive.statusCode, 200, `the node stopped answering /blocks/height after ${sent} requests`);
        }
      }),
      { numRuns: REQUESTS, includeErrorInReport: true },
    );
    const alive = await s.app.inject({ method: 'GET', url: '/blocks/height' });
    assert.equal(alive.statusCode, 200);
    assert.deepEqual(JSON.parse(alive.body), { height: start.height });
    const afterwards = chainMark(s);
    assert.equal(afterwards.stateHash, start.stateHash, 'the state hash is unchanged');
    assert.equal(afterwards.height, start.height);
    assert.equal(afterwards.lastBlock, start.lastBlock, 'the last block (liquid, with its micro-blocks) is unchanged');
    assert.ok(sent >= REQUESTS, `${sent} requests sent`);
    // Every documented operation was fuzzed (fast-check picks them at random).
    const missed = ctx.operations.map((o) => routeKey(o.method, o.path)).filter((k) => !reached.has(k));
    if (REQUESTS >= 10 * ctx.operations.length) assert.deepEqual(missed, [], 'operations never fuzzed');
    const statuses = [...byStatus.entries()].sort((a, b) => a[0] - b[0]).map(([st, n]) => `${st}: ${n}`);
    process.stdout.write(`# fuzz: ${sent} requests over ${ctx.operations.length} operations; statuses ${statuses.join(', ')}\n`);
  });
});
