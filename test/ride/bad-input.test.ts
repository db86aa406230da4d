/**
 * Bad input end to end: scripts over 8 KiB or complexity 2000 (compiled and read), wrong
 * checksums, unknown function ids, ill-typed decoded trees, and nesting deep enough to
 * exhaust a recursive implementation — each answered with a clear error, never a crash.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Protocol } from '../../src/protocol/protocol.js';
import { evaluate } from '../../src/ride/evaluator.js';
import { E, type Expr } from '../../src/ride/expr.js';
import { readScript, scriptBytes, type Script } from '../../src/ride/script.js';
import { compileScript } from '../../src/ride/script-compiler.js';
import { serializeExpr } from '../../src/ride/serde.js';
import { CaseObj } from '../../src/ride/values.js';
import { ScriptVerifier } from '../../src/chain/scripts/verifier.js';
import { Transfer } from '../../src/protocol/transactions/transfer.js';
import { evaluationContext, pureRuntime } from './eval-support.js';
import { WeError } from '../../src/errors/catalogue.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const verifier = await ScriptVerifier.create(p);

function compileError(source: string): string {
  const r = compileScript(source, { assetScript: false, crypto: p });
  assert.ok(!r.ok, 'compiled');
  return r.ok ? '' : r.error;
}

function readError(bytes: Uint8Array): string {
  try {
    readScript(bytes, p);
  } catch (e) {
    assert.ok(e instanceof WeError && e.code === 199, String(e));
    return e.message;
  }
  return assert.fail('read');
}

const withChecksum = (version: number, expr: Uint8Array): Uint8Array => {
  const body = Uint8Array.of(version, ...expr);
  return Uint8Array.of(...body, ...p.crypto.secureHash(body).subarray(0, 4));
};

const tx = p.sign(
  p.transaction(Transfer, 3, {
    senderPublicKey: p.crypto.keyPairFromSeedPhrase('bad input').publicKey,
    assetId: null,
    feeAssetId: null,
    timestamp: 1_700_000_000_000n,
    amount: 1n,
    fee: 1_000_000n,
    recipient: p.addresses.fromPublicKey(p.crypto.keyPairFromSeedPhrase('bad input 2').publicKey),
    attachment: new Uint8Array(0),
    atomicBadge: null,
  }),
  p.crypto.keyPairFromSeedPhrase('bad input').privateKey,
);
const chain = {
  height: () => 1,
  balance: () => 0n,
  aliasOwner: () => undefined,
  dataEntry: () => undefined,
  transactionHeight: () => undefined,
  transactionById: () => undefined,
};
const runTree = (expr: Expr, version: 1 | 2 = 1) =>
  verifier.run({ version, expr, bytes: new Uint8Array(0), complexity: 0 } satisfies Script, { tx }, chain, false);

describe('bad input: size and complexity limits', () => {
  it('a script over 8 KiB: compiled and read', () => {
    assert.match(compileError(`"${'a'.repeat(9000)}" == ""`), /^Script is too large: 9\d{3} bytes > 8192 bytes$/);
    const big = serializeExpr(E.native(0, E.str('a'.repeat(8200)), E.str('')));
    assert.match(readError(withChecksum(1, big)), /^ScriptParseError\(Script is too large: \d+ bytes > 8192 bytes\)$/);
  });

  it('a script over complexity 2000: compiled and read', () => {
    const sig = "sigVerify(base58'2', base58'2', base58'2')";
    assert.match(compileError(Array.from({ length: 21 }, () => sig).join(' && ')), /^Script is too complex: \d+ > 2000$/);
    let e: Expr = E.TRUE;
    for (let i = 0; i < 21; i++) e = E.if(E.native(500, E.bytes([1]), E.bytes([1]), E.bytes([1])), e, E.FALSE);
    assert.match(readError(scriptBytes(1, e, p)), /^ScriptParseError\(Script is too complex: \d+ > 2000\)$/);
  });

  it('wrong checksum, version, trailing bytes, truncated input', () => {
    const good = scriptBytes(1, E.TRUE, p);
    const bad = good.slice();
    bad[bad.length - 1] = bad[bad.length - 1]! ^ 1;
    assert.equal(readError(bad), 'ScriptParseError(Invalid checksum)');
    assert.equal(readError(withChecksum(3, Uint8Array.of(6))), 'ScriptParseError(Invalid version: 3)');
    assert.equal(readError(withChecksum(1, Uint8Array.of(6, 6))), 'ScriptParseError(1 bytes left)');
    assert.equal(readError(withChecksum(1, Uint8Array.of(9, 0, 0))), 'ScriptParseError(null)');
  });
});

describe('bad input: unknown functions', () => {
  it('the reader refuses unknown function ids and names', () => {
    assert.equal(readError(scriptBytes(1, E.native(999, E.TRUE), p)), "ScriptParseError(ScriptValidator: Unknown function 'Native(999)')");
    assert.equal(readError(scriptBytes(1, E.user('nope'), p)), "ScriptParseError(ScriptValidator: Unknown function 'User(nope)')");
    assert.equal(readError(scriptBytes(1, E.user('Buy'), p)), "ScriptParseError(ScriptValidator: Unknown function 'User(Buy)')");
  });

  it('an evaluated tree with an unknown function fails as WE does', () => {
    assert.deepEqual(runTree(E.if(E.TRUE, E.native(999), E.TRUE)), { kind: 'error', error: "function 'Native(999)' not found", log: [] });
  });
});

describe('bad input: ill-typed decoded trees (WE reads them untyped)', () => {
  it('fail uncaught, as the JVM would, never crashing the node', () => {
    assert.equal(runTree(E.if(E.long(1), E.TRUE, E.FALSE)).kind, 'uncaught');
    assert.match(JSON.stringify(runTree(E.getter(E.long(1), 'x'))), /ClassCastException/);
    assert.equal(runTree(E.native(100, E.str('a'), E.long(1))).kind, 'uncaught');
    assert.match(JSON.stringify(runTree(E.native(200, E.str('a')))), /Can't apply \(CONST_STRING\) to 'size\(byte\[\]\)'/);
    assert.deepEqual(runTree(E.native(2, E.long(5))), { kind: 'error', error: 'Explicit script termination', log: [] });
    // A constructor called with too few arguments builds what it can (Scala's zip).
    const partial = runTree(E.user('Address'));
    assert.ok(partial.kind === 'value' && partial.value instanceof CaseObj && partial.value.typeName === 'Address' && partial.value.fields.length === 0);
  });
});

describe('bad input: deep nesting', () => {
  it('source nested beyond the parser guard: a clear 305-style error', () => {
    assert.equal(compileError(`${'('.repeat(1000)}1${')'.repeat(1000)} == 1`), 'Script is too deeply nested: more than 150 nested expressions');
    assert.equal(compileError(`${'if true then true else '.repeat(500)}false`), 'Script is too deeply nested: more than 150 nested expressions');
    assert.match(compileError(`${'!'.repeat(200_000)}true`), /^Script is too deeply nested/);
  });

  it("long flat sequences compile: 2 000 lets, a 3 000-term sum (then WE's limits apply)", () => {
    const lets = Array.from({ length: 2000 }, (_, i) => `let v${i} = ${i}`).join('\n');
    // Every let costs 5: 2 000 × 5 + the body.
    assert.equal(compileError(`${lets}\nv0 + v1999 == 0`), 'Script is too complex: 10009 > 2000');
    assert.match(compileError(`${Array.from({ length: 3000 }, () => '1').join(' + ')} == 0`), /^Script is too (complex|large): /);
  });

  it('decoded trees nested thousands deep evaluate without touching the JS stack', () => {
    // 2 700 nested IFs fit 8 KiB; a let never referenced is never costed, so WE reads it.
    let deep: Expr = E.TRUE;
    for (let i = 0; i < 2700; i++) deep = E.if(E.TRUE, deep, E.FALSE);
    const script = readScript(scriptBytes(1, E.block('unused', deep, E.TRUE), p), p);
    assert.equal(script.complexity, 5 + 1);
    assert.deepEqual(runTree(deep), { kind: 'value', value: true, log: [] });
    let calls: Expr = E.long(0);
    for (let i = 0; i < 50_000; i++) calls = E.native(100, calls, E.long(1));
    assert.deepEqual(runTree(E.native(0, calls, E.long(50_000))), { kind: 'value', value: true, log: [] });
  });

  it('every evaluation is bounded by a step budget', () => {
    const r = evaluate(evaluationContext(), E.native(0, E.native(100, E.long(1), E.long(1)), E.long(2)), pureRuntime, 3);
    assert.deepEqual(r, { log: [], result: { error: 'Script evaluation exceeds 3 steps' } });
  });
});
