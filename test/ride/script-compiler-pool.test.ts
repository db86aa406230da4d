/**
 * The script compiler's threads: the answers of compileScript and of
 * readScript with scriptText byte for byte; a job past the time or memory limit refused as
 * too complex while the event loop keeps turning, and the thread replaced; a bounded queue;
 * nesting of any depth answered with a message, never a stack overflow.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { E } from '../../src/ride/expr.js';
import { readScript, scriptBytes } from '../../src/ride/script.js';
import { compileScript } from '../../src/ride/script-compiler.js';
import { DEFAULT_SCRIPT_COMPILER_LIMITS, ScriptCompilerPool, type PooledCompileResult } from '../../src/ride/script-compiler-pool.js';
import { scriptText } from '../../src/ride/script-text.js';
import { WeError } from '../../src/errors/catalogue.js';
import { exprArb } from '../oracle/cases/scripts.js';
import { multisigSource } from '../../devkit/ride-scripts.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const gost = await Protocol.create({ crypto: 'gost', chainId: 'T' });

const pools: ScriptCompilerPool[] = [];
const pool = (limits: Partial<typeof DEFAULT_SCRIPT_COMPILER_LIMITS> = {}): ScriptCompilerPool => {
  const made = new ScriptCompilerPool({ ...DEFAULT_SCRIPT_COMPILER_LIMITS, ...limits });
  pools.push(made);
  return made;
};
after(() => Promise.all(pools.map((x) => x.close())));

/** What a client sees of a compile: the bytes and complexity, or the message. */
const seen = (r: PooledCompileResult): unknown =>
  r.ok ? { version: r.script.version, script: Buffer.from(r.script.bytes).toString('base64'), complexity: r.script.complexity } : r.error;

/** A sum of `terms` ones: linear to parse, slow enough to measure (a 2.8 MB one held the loop ~30 s). */
const sum = (terms: number): string => `let x = 1${' + 1'.repeat(terms)}\nx == 2`;

/** Event-loop turns taken while `work` is pending. */
async function turnsWhile<T>(work: Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let done = false;
  const spin = (): void => {
    if (done) return;
    turns++;
    setImmediate(spin);
  };
  setImmediate(spin);
  try {
    return { value: await work, turns };
  } finally {
    done = true;
  }
}

const keys = [1, 2, 3].map((i) => encodeBase58(p.crypto.keyPairFromSeedPhrase(`pool ${i}`).publicKey));
const SOURCES: readonly string[] = [
  'true',
  '{-# LANGUAGE_VERSION 2 #-}\ntrue',
  '1 == 2',
  'let x = 10\n20 == x + x',
  'sigVerify(tx.bodyBytes, tx.proofs[0], tx.senderPublicKey)',
  'match tx {\n case t: TransferTransaction => true\n case _ => false\n}',
  "size(secureHash(base58'')) == 32",
  multisigSource(keys),
  // Refused, each with WE's message.
  '1',
  'x',
  'height >= ',
  '{-# LANGUAGE_VERSION 3 #-}\ntrue',
  Array.from({ length: 21 }, () => "sigVerify(base58'2', base58'2', base58'2')").join(' && '),
  `"${'a'.repeat(9000)}" == ""`,
];

describe('script compiler threads: the same answers as on the calling thread', () => {
  it('compile: bytes, complexity and messages of compileScript, both contexts, both crypto suites', async () => {
    const threads = pool();
    for (const source of SOURCES) {
      for (const assetScript of [false, true]) {
        for (const crypto of [p, gost]) {
          const expected = compileScript(source, { assetScript, crypto });
          const want = expected.ok
            ? { version: expected.script.version, script: Buffer.from(expected.script.bytes).toString('base64'), complexity: expected.script.complexity }
            : expected.error;
          assert.deepEqual(seen(await threads.compile(source, { assetScript, crypto })), want, source);
        }
      }
    }
  });

  it('estimate: complexity and scriptText of readScript for random scripts; its ScriptParseError otherwise', async () => {
    const threads = pool();
    const scripts = fc.sample(
      fc.constantFrom(1 as const, 2 as const).chain((v) => exprArb(v).map((e) => scriptBytes(v, e, p))),
      { numRuns: 60, seed: 32 },
    );
    for (const bytes of scripts) {
      const read = readScript(bytes, p);
      assert.deepEqual(await threads.estimate(bytes, p), { complexity: read.complexity, scriptText: scriptText(read.expr) });
    }
    const reject = async (bytes: Uint8Array, message: string): Promise<void> => {
      await assert.rejects(threads.estimate(bytes, p), (e: unknown) => e instanceof WeError && e.code === 199 && e.message === `ScriptParseError(${message})`);
      assert.throws(
        () => readScript(bytes, p),
        (e: unknown) => e instanceof WeError && e.message === `ScriptParseError(${message})`,
      );
    };
    await reject(new Uint8Array(0), 'Empty script');
    await reject(Uint8Array.of(1, 6, 0, 0, 0, 0), 'Invalid checksum');
    await reject(scriptBytes(1, E.native(999), p), "ScriptValidator: Unknown function 'Native(999)'");
    await reject(scriptBytes(1, E.ref('nowhere'), p), "ScriptValidator: Undeclared variable 'nowhere'");
  });
});

describe('script compiler threads: limits', () => {
  it('a job past the time limit is refused as too complex while the event loop turns; the next job gets a fresh thread', async () => {
    const threads = pool({ timeLimitMs: 1000, memoryLimitMb: 2048 });
    // 2.8 MB: tens of seconds of parsing.
    const { value, turns } = await turnsWhile(threads.compile(sum(700_000), { assetScript: false, crypto: p }));
    assert.deepEqual(value, { ok: false, error: 'Script is too complex: compiling it takes longer than 1000 ms' });
    assert.ok(turns > 10, `the event loop turned ${turns} times meanwhile`);
    assert.deepEqual(seen(await threads.compile('1 == 2', { assetScript: false, crypto: p })), {
      version: 1,
      script: 'AQkAAAAAAAACAAAAAAAAAAABAAAAAAAAAAACpxnnnA==',
      complexity: 3,
    });
  });

  it('a job past the memory limit is refused as too complex; the next job gets a fresh thread', async () => {
    const threads = pool({ memoryLimitMb: 16, timeLimitMs: 120_000 });
    assert.deepEqual(await threads.compile(sum(250_000), { assetScript: false, crypto: p }), {
      ok: false,
      error: 'Script is too complex: compiling it needs more than 16 MiB',
    });
    assert.equal((await threads.compile('true', { assetScript: false, crypto: p })).ok, true);
  });

  it('at most `threads` jobs run and `waiting` wait: one more is refused with 642 (503)', async () => {
    const threads = pool({ threads: 1, waiting: 1 });
    const running = threads.compile(sum(2000), { assetScript: false, crypto: p });
    const waiting = threads.compile('true', { assetScript: false, crypto: p });
    await assert.rejects(threads.compile('true', { assetScript: false, crypto: p }), (e: unknown) => {
      assert.ok(e instanceof WeError);
      assert.deepEqual([e.code, e.status, e.message], [642, 503, "Max script compilations count '2' has been exceeded. Please, try again later"]);
      return true;
    });
    await assert.rejects(threads.estimate(scriptBytes(1, E.TRUE, p), p), (e: unknown) => e instanceof WeError && e.code === 642);
    assert.deepEqual(await running, { ok: false, error: 'Script is too complex: 4010 > 2000' });
    assert.equal((await waiting).ok, true);
    // Room again.
    assert.equal((await threads.compile('true', { assetScript: false, crypto: p })).ok, true);
  });

  it('close ends the job running and refuses new ones', async () => {
    const threads = pool();
    const running = threads.compile(sum(700_000), { assetScript: false, crypto: p });
    await threads.close();
    await assert.rejects(running, /closed/);
    await assert.rejects(threads.compile('true', { assetScript: false, crypto: p }), /closed/);
  });
});

describe('script compiler threads: nesting of any depth', () => {
  it('nested parentheses, ifs, calls and unary operators are refused with a message, never a stack overflow', async () => {
    const threads = pool();
    const compile = async (source: string): Promise<unknown> => seen(await threads.compile(source, { assetScript: false, crypto: p }));
    const tooDeep = 'Script is too deeply nested: more than 150 nested expressions';
    assert.equal(await compile(`${'('.repeat(100_000)}true${')'.repeat(100_000)}`), tooDeep);
    assert.equal(await compile(`${'if (true) then '.repeat(100_000)}true${' else false'.repeat(100_000)}`), tooDeep);
    assert.equal(await compile(`${'size('.repeat(100_000)}"a"${')'.repeat(100_000)} == 1`), tooDeep);
    assert.equal(await compile(`${'!'.repeat(100_000)}true`), 'Script is too deeply nested: more than 1000 nested unary operators');
    assert.equal(await compile(`${'-'.repeat(100_000)}1 == 1`), 'Script is too deeply nested: more than 1000 nested unary operators');
    // Both guards at their limits at once: parsed, then refused by the estimator.
    assert.match(String(await compile(`${'!!!!!!('.repeat(149)}${'!'.repeat(106)}true${')'.repeat(149)}`)), /^Script is too complex: \d+ > 2000$/);
    // As many unary operators as an 8 KiB script holds compile as WE compiles them.
    assert.deepEqual(
      await compile(`let unused = ${'!'.repeat(700)}true\ntrue`),
      seen(compileScript(`let unused = ${'!'.repeat(700)}true\ntrue`, { assetScript: false, crypto: p })),
    );
  });
});
