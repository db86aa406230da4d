/**
 * `/utils/script/compile` and `/estimate` under abuse: a 2.8 MB source
 * once held the event loop ~30 s before its 305. Sources are bounded (611 past 64 KiB),
 * compiled off the event loop (/node/status answers meanwhile), nested sources are refused
 * with a message, a flood is refused with 503 rather than queued, and ordinary scripts get
 * the answers they always got. No timing is asserted beyond liveness bounds.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createApiServer } from '../../src/api/server.js';
import { SCRIPT_BODY_LIMIT } from '../../src/api/routes/utils.js';
import { E, type Expr } from '../../src/ride/expr.js';
import { scriptBytes } from '../../src/ride/script.js';
import { sleep } from '../../devkit/wait.js';
import { fixtureChain, fixtureServer, protocol } from './fixture.js';
import { assertError, inject, type Answer } from './inject.js';

const { app } = fixtureServer();
after(() => app.close());

const compile = (source: string, server = app): Promise<Answer> => inject(server, 'POST', '/utils/script/compile', { body: source, contentType: 'text/plain' });
const estimate = (script: string): Promise<Answer> => inject(app, 'POST', '/utils/script/estimate', { body: script, contentType: 'text/plain' });
const status = (): Promise<Answer> => inject(app, 'GET', '/node/status');

/** `let x = 1 + 1 + …` with `terms` ones: linear to parse, and slow when long. */
const sum = (terms: number): string => `let x = 1${' + 1'.repeat(terms)}\nx == 2`;

/** Settles with the order in which the promises settled. */
async function order(named: Record<string, Promise<unknown>>): Promise<string[]> {
  const done: string[] = [];
  await Promise.all(Object.entries(named).map(([name, p]) => p.then(() => done.push(name))));
  return done;
}

describe('/utils/script/*: bounded, off the event loop', () => {
  it('a 2.8 MB source is refused with 611 at once, and /node/status answers', async () => {
    const source = sum(700_000);
    assert.ok(source.length > 2_800_000);
    const started = Date.now();
    const [big, node] = await Promise.all([compile(source), sleep(50).then(status)]);
    assertError(big, 400, 611, `HttpEntity too big, actual size '${source.length}' bytes, max size '${SCRIPT_BODY_LIMIT}' bytes`);
    assert.equal(node.status, 200);
    // Liveness: it used to take ~30 s.
    assert.ok(Date.now() - started < 10_000, `answered after ${Date.now() - started} ms`);
  });

  it('the slowest source under the limit compiles off the event loop: /node/status answers before it', async () => {
    const source = sum(16_000);
    assert.ok(source.length <= SCRIPT_BODY_LIMIT);
    const heavy = compile(source);
    // Asked while the compile runs (on the event loop it would answer only after it).
    const node = sleep(100).then(status);
    assert.deepEqual(await order({ heavy, node }), ['node', 'heavy']);
    // Its complexity (32010 > 2000), or on a machine too busy to compile it within the job's
    // 5 s, that limit: a 305 either way.
    const answer = await heavy;
    assert.equal(answer.status, 400, answer.text);
    assert.equal(answer.json.error, 305, answer.text);
    assert.match(String(answer.json.message), /^Script is too complex: (32010 > 2000|compiling it takes longer than 5000 ms)$/);
    assert.equal((await node).status, 200);
  });

  it('deep nesting is a 305 naming it (611 past the size limit), never a 500', async () => {
    const nested = 'Script is too deeply nested: more than 150 nested expressions';
    assertError(await compile(`${'('.repeat(30_000)}true${')'.repeat(30_000)}`), 400, 305, nested);
    assertError(await compile(`${'if (true) then '.repeat(2_000)}true${' else false'.repeat(2_000)}`), 400, 305, nested);
    assertError(await compile(`${'!'.repeat(60_000)}true`), 400, 305, 'Script is too deeply nested: more than 1000 nested unary operators');
    assertError(await compile(`${'('.repeat(100_000)}true${')'.repeat(100_000)}`), 400, 611);
    // A compiled script nested 2,700 deep (what 8 KiB holds) is read and estimated.
    let deep: Expr = E.TRUE;
    for (let i = 0; i < 2700; i++) deep = E.if(deep, E.TRUE, E.TRUE);
    assertError(await estimate(Buffer.from(scriptBytes(1, deep, protocol)).toString('base64')), 400, 305, 'Script is too complex: 5401 > 2000');
    assertError(await estimate('A'.repeat(SCRIPT_BODY_LIMIT + 1)), 400, 611);
  });

  it('a flood of compiles is bounded: past the threads and the queue, 503 with 642', async () => {
    const small = createApiServer(fixtureChain().services, { logger: false, scriptCompiler: { threads: 1, waiting: 1, timeLimitMs: 5000, memoryLimitMb: 64 } });
    try {
      const answers = await Promise.all([0, 1, 2].map(() => compile(sum(16_000), small)));
      // Whichever reaches the route third is refused.
      assert.deepEqual(answers.map((a) => a.json?.error).sort(), [305, 305, 642]);
      assertError(
        answers.find((a) => a.status === 503)!,
        503,
        642,
        "Max script compilations count '2' has been exceeded. Please, try again later",
      );
      assert.equal((await compile('true', small)).status, 200);
    } finally {
      await small.close();
    }
  });

  it('ordinary scripts: the answers they always got', async () => {
    const eq = await compile('let x = 10\n20 == x + x');
    assert.equal(eq.status, 200);
    assert.deepEqual(eq.json, { script: 'base64:AQQAAAABeAAAAAAAAAAACgkAAAAAAAACAAAAAAAAAAAUCQAAZAAAAAIFAAAAAXgFAAAAAXjlxJUL', complexity: 13, extraFee: 0 });
    const m = await compile('match tx {\ncase t: TransferTransaction => true\ncase _ => false\n}');
    assert.deepEqual(m.json, {
      script: 'base64:AQQAAAAHJG1hdGNoMAUAAAACdHgDCQAAAQAAAAIFAAAAByRtYXRjaDACAAAAE1RyYW5zZmVyVHJhbnNhY3Rpb24EAAAAAXQFAAAAByRtYXRjaDAGB5yQ/+k=',
      complexity: 18,
      extraFee: 0,
    });
    const back = await estimate('base64:AQkAAAAAAAACAAAAAAAAAAABAAAAAAAAAAACpxnnnA==');
    assert.deepEqual(back.json, {
      script: 'base64:AQkAAAAAAAACAAAAAAAAAAABAAAAAAAAAAACpxnnnA==',
      complexity: 3,
      scriptText: 'FUNCTION_CALL(Native(0),List(CONST_LONG(1), CONST_LONG(2)))',
      extraFee: 0,
    });
    assertError(await compile('height >= '), 400, 305);
  });
});
