/**
 * WASM contracts (1.14, wevm 0.2.1 semantics) on Node's WebAssembly: WAT fixtures assembled
 * with wabt, created with a 103 V7 and called with 104 V7, their 105 V5 applied to state.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import wabtInit from 'wabt';
import { applyCreateContract } from '../../src/state/appliers/contracts.js';
import type { ExecutionResult } from '../../src/contracts/result.js';
import { validateWasmBytecode } from '../../src/protocol/wasm/module.js';
import { ExecutedContract, type ExecutableContractTransaction, type StoredContract } from '../../src/protocol/transactions/contracts.js';
import type { DataEntry } from '../../src/protocol/transactions/fields.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { APPLY_CONTEXT, callV7, createV7, developer, fund, protocol, startTestEngine, type TestEngine } from '../../devkit/contracts/engine.js';
import { REPO_ROOT } from '../../devkit/contracts/sdk-package.js';

const wabt = await wabtInit();

function assemble(wat: string): Uint8Array {
  const module = wabt.parseWat('contract.wat', wat, {
    multi_value: true,
    mutable_globals: true,
    sign_extension: true,
    bulk_memory: true,
    reference_types: true,
  });
  try {
    return Uint8Array.from(module.toBinary({}).buffer);
  } finally {
    module.destroy();
  }
}

const fixture = (name: string): Uint8Array => assemble(readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'contracts', 'wasm', `${name}.wat`), 'utf8'));

const stored = (bytecode: Uint8Array): StoredContract => ({ engine: 'wasm', bytecode, bytecodeHash: createHash('sha256').update(bytecode).digest('hex') });

const int = (key: string, value: bigint): DataEntry => ({ key, type: 'integer', value });
const bin = (key: string, value: Uint8Array): DataEntry => ({ key, type: 'binary', value });
const str = (key: string, value: string): DataEntry => ({ key, type: 'string', value });

const HEADER = '(import "env" "memory" (memory 2 16)) (global (export "__heap_base") i32 (i32.const 1024))';
const CONSTRUCTOR = '(func (export "_constructor") (result i32) (i32.const 0))';

describe('WASM contracts', () => {
  let te: TestEngine;

  before(async () => {
    te = await startTestEngine({ wasmFuelLimit: 20_000 });
    fund(te.state);
  });
  after(() => te?.close());

  /** Executes and mines a transaction; returns the result and the 105. */
  async function run(tx: ExecutableContractTransaction): Promise<{ result: ExecutionResult; executed: Transaction | undefined }> {
    const result = await te.execute(tx);
    const built = te.mine(tx, result);
    return { result, executed: built.kind === 'built' ? built.executed : undefined };
  }

  async function deploy(bytecode: Uint8Array, params: readonly DataEntry[] = []): Promise<Uint8Array> {
    const create = createV7(stored(bytecode), params);
    const { result } = await run(create);
    assert.equal(
      result.kind,
      'success',
      JSON.stringify(result, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)),
    );
    return create.id;
  }

  it('runs the constructor and calls that read and write storage; the 105 is a V5 with results per contract', async () => {
    const id = await deploy(fixture('counter'), [int('start', 40n)]);
    assert.deepEqual(te.state.contractData(id, 'counter'), int('counter', 40n));
    const { result, executed } = await run(callV7(id, 'wasm', 'increment', [int('by', 2n)]));
    assert.deepEqual(result, { kind: 'success', results: [{ contractId: id, results: [int('counter', 42n)] }], assetOperations: [] });
    assert.ok(executed !== undefined && ExecutedContract.is(executed));
    assert.equal(executed.version, 5);
    assert.equal(executed.data.statusCode, 0);
    await run(callV7(id, 'wasm', 'label', [str('text', 'привет, wasm')]));
    assert.deepEqual(te.state.contractData(id, 'label'), str('label', 'привет, wasm'));
    await run(callV7(id, 'wasm', 'record_height', []));
    assert.deepEqual(te.state.contractData(id, 'height'), int('height', BigInt(te.state.height())));
  });

  it('a non-zero status is mined as a 105 V5 with that code and no results; a missing key ends the run with 501', async () => {
    const id = await deploy(fixture('counter'), [int('start', 1n)]);
    const failed = await run(callV7(id, 'wasm', 'fail', [int('code', 17n)]));
    assert.deepEqual(failed.result, { kind: 'error', code: 17, message: 'contract failed with error code 17' });
    assert.ok(failed.executed !== undefined && ExecutedContract.is(failed.executed));
    assert.equal(failed.executed.data.statusCode, 17);
    assert.equal(failed.executed.data.errorMessage, 'contract failed with error code 17');
    const missing = await te.execute(callV7(id, 'wasm', 'read_missing', []));
    assert.equal(missing.kind, 'error');
    assert.ok(
      missing.kind === 'error' && missing.code === 501 && /data entry of contract \w+ \(missing\) is missing/.test(missing.message),
      JSON.stringify(missing),
    );
    assert.deepEqual(te.state.contractData(id, 'counter'), int('counter', 1n), 'failed runs change nothing');
  });

  it('transfers out of the contract balance and issues tokens, applied when the 105 is', async () => {
    const id = await deploy(fixture('transfer'));
    te.state.addBalance(id, null, 1_000_000n);
    const bob = protocol.addresses.fromPublicKey(protocol.crypto.keyPairFromSeedPhrase('wasm bob').publicKey);
    const paid = await run(callV7(id, 'wasm', 'pay', [bin('to', bob.bytes), int('amount', 250_000n)]));
    assert.equal(paid.result.kind, 'success');
    assert.equal(te.state.balance(id, null), 750_000n);
    assert.equal(te.state.balance(bob.bytes, null), 250_000n);
    assert.deepEqual(te.state.contractData(id, 'balance'), int('balance', 1_000_000n));
    const issued = await run(callV7(id, 'wasm', 'issue', [int('quantity', 5000n)]));
    assert.equal(issued.result.kind, 'success');
    const token = te.state.contractData(id, 'token');
    assert.ok(token?.type === 'binary');
    assert.equal(te.state.asset(token.value)?.issuedByContract, true);
    assert.equal(te.state.balance(id, token.value), 5000n);
  });

  it('takes payments attached to a call into the contract balance', async () => {
    const id = await deploy(fixture('transfer'));
    const sender = protocol.addresses.fromPublicKey(developer.publicKey).bytes;
    const before = te.state.balance(sender, null);
    const paid = await run(callV7(id, 'wasm', 'pay', [bin('to', sender), int('amount', 100n)], [{ assetId: null, amount: 700n }]));
    assert.equal(paid.result.kind, 'success');
    assert.equal(te.state.balance(id, null), 600n);
    assert.equal(te.state.balance(sender, null), before - 700n + 100n - 10_000_000n);
  });

  it('calls other contracts: their writes land in the results map under their own id', async () => {
    const a = await deploy(fixture('cross'));
    const b = await deploy(fixture('cross'));
    const { result } = await run(callV7(a, 'wasm', 'call_add', [bin('id', b), int('x', 5n)]));
    assert.equal(result.kind, 'success');
    assert.ok(result.kind === 'success');
    assert.deepEqual(
      result.results.map((c) => c.contractId),
      [b],
    );
    assert.deepEqual(te.state.contractData(b, 'sum'), int('sum', 5n));
    assert.deepEqual(te.state.contractData(b, 'caller'), bin('caller', a), 'caller() is the calling contract');
    assert.deepEqual(te.state.contractData(a, 'sum'), int('sum', 0n));
  });

  it('a contract calling itself without end overflows the call stack (112)', async () => {
    const a = await deploy(fixture('cross'));
    const r = await te.execute(callV7(a, 'wasm', 'recurse', [bin('id', a)]));
    assert.deepEqual(r, { kind: 'error', code: 112, message: 'contract failed with error code 112' });
  });

  it('meters fuel: a loop within node.wasm.fuel-limit finishes, an endless one traps (111)', async () => {
    const id = await deploy(fixture('counter'), [int('start', 0n)]);
    const short = await te.execute(callV7(id, 'wasm', 'count', [int('n', 1000n)]));
    assert.equal(short.kind, 'success');
    const long = await te.execute(callV7(id, 'wasm', 'count', [int('n', 100_000n)]));
    assert.deepEqual(long, { kind: 'error', code: 111, message: 'contract failed with error code 111' });
    const spin = assemble(`(module ${HEADER} ${CONSTRUCTOR} (func (export "spin") (result i32) (loop $l (br $l)) (i32.const 0)))`);
    const spinner = await deploy(spin);
    assert.deepEqual(await te.execute(callV7(spinner, 'wasm', 'spin', [])), { kind: 'error', code: 111, message: 'contract failed with error code 111' });
  });

  it('keeps every construct working under fuel metering: br_table, call_indirect, if/else values, select, bulk memory', async () => {
    const mix = assemble(`(module
      (import "env0" "set_storage_int" (func $set (param i32 i32 i64) (result i32)))
      ${HEADER}
      (type $unary (func (param i64) (result i64)))
      (table 2 funcref)
      (elem (i32.const 0) $double $triple)
      (data (i32.const 0) "r")
      (func $double (type $unary) (i64.mul (local.get 0) (i64.const 2)))
      (func $triple (type $unary) (i64.mul (local.get 0) (i64.const 3)))
      ${CONSTRUCTOR}
      (func (export "mix") (param $k i32) (param $x i64) (result i32)
        (local $acc i64)
        (block $b2
          (block $b1
            (block $b0 (br_table $b0 $b1 $b2 (local.get $k)))
            (local.set $acc (call_indirect (type $unary) (local.get $x) (i32.const 0)))
            (br $b2))
          (local.set $acc (call_indirect (type $unary) (local.get $x) (i32.const 1))))
        (memory.fill (i32.const 100) (i32.const 7) (i32.const 16))
        (local.set $acc (i64.add (local.get $acc)
          (if (result i64) (i32.eq (i32.load8_u (i32.const 105)) (i32.const 7)) (then (i64.const 1000)) (else (i64.const 0)))))
        (local.set $acc (select (local.get $acc) (i64.const -1) (i32.const 1)))
        (call $set (i32.const 0) (i32.const 1) (local.get $acc))))`);
    const id = await deploy(mix);
    for (const [k, expected] of [
      [0, 1010n],
      [1, 1015n],
      [2, 1000n],
    ] as const) {
      const r = await te.execute(callV7(id, 'wasm', 'mix', [int('k', BigInt(k)), int('x', 5n)]));
      assert.deepEqual(r, { kind: 'success', results: [{ contractId: id, results: [int('r', expected)] }], assetOperations: [] });
    }
  });

  it('answers calls that do not fit the function: unknown name 107, wrong argument count 108, argument out of range 109', async () => {
    const id = await deploy(fixture('counter'), [int('start', 0n)]);
    const codes = await Promise.all([
      te.execute(callV7(id, 'wasm', 'no_such_function', [])),
      te.execute(callV7(id, 'wasm', 'increment', [])),
      te.execute(callV7(id, 'wasm', 'label', [int('text', 1n)])),
    ]);
    assert.deepEqual(
      codes.map((r) => (r.kind === 'error' ? r.code : r.kind)),
      [107, 108, 108],
    );
    const narrow = await deploy(assemble(`(module ${HEADER} ${CONSTRUCTOR} (func (export "take") (param i32) (result i32) (i32.const 0)))`));
    const wide = await te.execute(callV7(narrow, 'wasm', 'take', [int('x', 1n << 40n)]));
    assert.equal(wide.kind === 'error' ? wide.code : wide.kind, 109);
  });

  it('fuel is one budget for the call tree: a callee runs on what its caller left (each fits the limit alone)', async () => {
    const a = await deploy(fixture('abuse'));
    const b = await deploy(fixture('abuse'));
    assert.equal((await te.execute(callV7(b, 'wasm', 'count', [int('n', 1200n)]))).kind, 'success');
    assert.equal((await te.execute(callV7(a, 'wasm', 'count_then_call', [bin('id', b), int('n', 100n)]))).kind, 'success');
    const both = await te.execute(callV7(a, 'wasm', 'count_then_call', [bin('id', b), int('n', 1200n)]));
    assert.deepEqual(both, { kind: 'error', code: 111, message: 'contract failed with error code 111' });
  });

  it('a contract calling itself 1,000 times in every frame runs out of fuel (111) off the event loop', async () => {
    const a = await deploy(fixture('abuse'));
    // Turns of the event loop while it runs: none when the run holds the loop to its end.
    let turns = 0;
    let ticker = setImmediate(function tick() {
      turns++;
      ticker = setImmediate(tick);
    });
    turns = 0;
    try {
      const r = await te.execute(callV7(a, 'wasm', 'bomb', [bin('id', a)]));
      assert.deepEqual(r, { kind: 'error', code: 111, message: 'contract failed with error code 111' });
    } finally {
      clearImmediate(ticker);
    }
    assert.ok(turns > 0, 'the event loop turned while the contract ran');
  });

  it('host functions cost fuel by the work they do: Base58 of 64 KiB runs out (111)', async () => {
    const a = await deploy(fixture('abuse'));
    assert.deepEqual(await te.execute(callV7(a, 'wasm', 'base58_64k', [])), { kind: 'error', code: 111, message: 'contract failed with error code 111' });
  });

  it('bulk memory costs fuel by its length: one 1 MiB fill fits the limit, two do not (111)', async () => {
    const filler = assemble(`(module ${HEADER} ${CONSTRUCTOR}
      (func (export "fill") (param $times i64) (result i32)
        (drop (memory.grow (i32.const 14)))
        (block $done
          (loop $next
            (br_if $done (i64.eqz (local.get $times)))
            (memory.fill (i32.const 0) (i32.const 1) (i32.const 1048576))
            (local.set $times (i64.sub (local.get $times) (i64.const 1)))
            (br $next)))
        (i32.const 0)))`);
    const id = await deploy(filler);
    assert.deepEqual(await te.execute(callV7(id, 'wasm', 'fill', [int('times', 1n)])), { kind: 'success', results: [], assetOperations: [] });
    assert.deepEqual(await te.execute(callV7(id, 'wasm', 'fill', [int('times', 2n)])), {
      kind: 'error',
      code: 111,
      message: 'contract failed with error code 111',
    });
  });

  it('validates modules as wevm does: floats, sign extension and mutable global exports are invalid (100), no _constructor is 101', () => {
    const cases: Array<[string, number]> = [
      [`(module ${HEADER} ${CONSTRUCTOR})`, 0],
      [`(module ${HEADER} (func (export "_constructor") (result i32) (drop (f32.add (f32.const 1) (f32.const 2))) (i32.const 0)))`, 100],
      [`(module ${HEADER} (func (export "_constructor") (param f64) (result i32) (i32.const 0)))`, 100],
      [`(module ${HEADER} (func (export "_constructor") (result i32) (i32.extend8_s (i32.const 1))))`, 100],
      [`(module ${HEADER} (global (export "g") (mut i32) (i32.const 0)) ${CONSTRUCTOR})`, 100],
      [`(module ${HEADER} (func (export "run") (result i32) (i32.const 0)))`, 101],
    ];
    for (const [wat, code] of cases) assert.equal(validateWasmBytecode(assemble(wat)), code, wat);
    assert.equal(validateWasmBytecode(Uint8Array.from([0, 0x61, 0x73, 0x6d, 2, 0, 0, 0])), 100);
    assert.equal(validateWasmBytecode(Uint8Array.from([1, 2, 3])), 100);
  });

  it('refuses at run time what cannot be linked or started: unknown host function or start function 105, no __heap_base 106', async () => {
    const unknownImport = assemble(`(module (import "env0" "no_such_host_function" (func)) ${HEADER} ${CONSTRUCTOR})`);
    const start = assemble(`(module ${HEADER} ${CONSTRUCTOR} (func $s) (start $s))`);
    const noHeap = assemble(`(module (import "env" "memory" (memory 2 16)) ${CONSTRUCTOR})`);
    for (const [bytecode, code] of [
      [unknownImport, 105],
      [start, 105],
      [noHeap, 106],
    ] as const) {
      const r = await te.execute(createV7(stored(bytecode), []));
      assert.deepEqual(r, { kind: 'error', code, message: `contract failed with error code ${code}` });
    }
  });

  it('a 103 V7 with an invalid module or a wrong bytecode hash is refused by its stateful check', () => {
    const invalid = assemble(`(module ${HEADER} (func (export "run") (result i32) (i32.const 0)))`);
    const ctx = { ...APPLY_CONTEXT, blockGenerator: undefined };
    assert.throws(() => applyCreateContract(te.state, createV7(stored(invalid), []), ctx), /Invalid bytecode with hash [0-9a-f]{64} for contract/);
    const good = fixture('counter');
    const wrongHash: StoredContract = { engine: 'wasm', bytecode: good, bytecodeHash: 'ab'.repeat(32) };
    assert.throws(
      () => applyCreateContract(te.state, createV7(wrongHash, []), ctx),
      /Invalid bytecodeHash for contract \w+\.Actual: (ab)+, expected: [0-9a-f]{64}/,
    );
    assert.doesNotThrow(() => applyCreateContract(te.state, createV7(stored(good), [int('start', 1n)]), ctx));
  });
});

describe('WASM executions past node.wasm.execution-timeout or memory-limit', () => {
  let te: TestEngine;
  /** The same memory limit with a time limit no busy machine reaches first: only memory stops its calls. */
  let memoryOnly: TestEngine;
  const MiB = 2 ** 20;

  before(async () => {
    // Fuel high enough not to stop them: the node's own limits must.
    te = await startTestEngine({ wasmFuelLimit: 1e15, wasmExecution: { timeoutMs: 1000, memoryLimitBytes: 64 * MiB, threads: 1 } });
    fund(te.state);
    memoryOnly = await startTestEngine({ wasmFuelLimit: 1e15, wasmExecution: { timeoutMs: 120_000, memoryLimitBytes: 64 * MiB, threads: 1 } });
    fund(memoryOnly.state);
  });
  after(async () => {
    await te?.close();
    await memoryOnly?.close();
  });

  async function deploy(bytecode: Uint8Array, engine = te): Promise<Uint8Array> {
    const create = createV7(stored(bytecode), []);
    const result = await engine.execute(create);
    assert.equal(result.kind, 'success');
    engine.mine(create, result);
    return create.id;
  }

  it('an endless loop ends at the time limit with error 2, and the next call runs on a new thread', async () => {
    const id = await deploy(fixture('abuse'));
    const r = await te.execute(callV7(id, 'wasm', 'spin', []));
    assert.deepEqual(r, { kind: 'error', code: 2, message: 'contract failed with error code 2 and message WASM execution exceeded the time limit of 1000 ms' });
    const after = await te.execute(callV7(id, 'wasm', 'count', [int('n', 10n)]));
    assert.deepEqual(after, { kind: 'success', results: [{ contractId: id, results: [int('count', 10n)] }], assetOperations: [] });
  });

  it('a call that keeps taking memory ends at the memory limit with error 2, mined as a 105 V5 with statusCode 2', async () => {
    const id = await deploy(fixture('abuse'), memoryOnly);
    const call = callV7(id, 'wasm', 'hog', []);
    const r = await memoryOnly.execute(call);
    assert.deepEqual(r, {
      kind: 'error',
      code: 2,
      message: `contract failed with error code 2 and message WASM execution exceeded the memory limit of ${64 * MiB} bytes`,
    });
    const built = memoryOnly.mine(call, r);
    assert.ok(built.kind === 'built' && ExecutedContract.is(built.executed));
    assert.equal(built.executed.data.statusCode, 2);
    assert.equal((await memoryOnly.execute(callV7(id, 'wasm', 'count', [int('n', 3n)]))).kind, 'success');
  });
});
