/**
 * WASM contracts as WE 1.14 runs them through wevm 0.2.1, on Node's WebAssembly — the run
 * itself, on an execution thread (worker.ts) of the node's WasmEngine (engine.ts).
 *
 * A run (wevm's Vm) starts with the executing contract as its first frame; each frame
 * instantiates the contract's module afresh with a host-made memory `env.memory`
 * (2…16 pages) and the host functions of import modules `env0` and `env1`. The
 * transaction's params are written at `__heap_base` and passed positionally (integer →
 * i64 or i32, boolean → i32, string and binary → offset and length); the function's first
 * result is the contract's status code (0 = success). Contracts call others
 * (`call_contract*`, up to 64 frames); a frame's error is returned to its caller as a code,
 * while an error the node detects (WasmService) ends the whole run.
 *
 * Fuel (`node.wasm.fuel-limit`) is one budget for the whole call tree: a callee runs on what
 * its caller has left and hands back what it leaves. Instructions cost what the module's
 * instrumentation charges (protocol/wasm/module.ts); the host side charges what wevm runs
 * for free, so that neither deep call trees nor host functions give work without fuel:
 *
 *   every host function call                     HOST_CALL_FUEL (1)
 *   bytes a host function copies out of or into
 *   linear memory                                1 per 64 bytes or part of them
 *   a read of the node's state (storage, balance,
 *   bytecode, asset or lease id, alias, height)  STATE_READ_FUEL (10)
 *   sig_verify                                   SIG_VERIFY_FUEL (100)
 *   base_58, to_base_58_string (quadratic)       n² / 1024 for n input bytes
 *   a frame (the first one too)                  FRAME_FUEL (100), + 1 per 64 bytes of its
 *                                                bytecode, + 1 per 8 table elements it starts with
 *
 * wevm charges none of these (its frames each get a fresh fuel-limit), so a contract close
 * to the limit can finish on a WE node and run out of fuel on Weft; 64 frames of a small
 * contract still fit the default 20,000. Running out is a trap: 111, deterministic.
 *
 * Codes (wevm's): 101/105/106/107/108/109/110 before the call, 111 for any trap (fuel
 * exhaustion included), 112 for call-stack overflow, 300–307 from host functions.
 */
import { createHash } from 'node:crypto';
import { decodeBase58, encodeBase58, EncodingError } from '../../crypto/encoding.js';
import { ByteWriter } from '../../protocol/bytes.js';
import type { Protocol } from '../../protocol/protocol.js';
import { CONTRACT_DATA_ENTRY, type DataEntry } from '../../protocol/transactions/fields.js';
import { NODE_FAILURE_CODE } from '../../errors/catalogue.js';
import {
  analyzeWasm,
  fuelExportName,
  instrumentWasm,
  WASM_ERROR,
  WasmModuleError,
  type FuncType,
  type ModuleInfo,
  type ValType,
} from '../../protocol/wasm/module.js';
import { wasmFailure, type WasmJob, type WasmOutcome } from './job.js';
import { WasmService, WevmAbort, type WasmStateReads } from './service.js';
import { InternalError } from '../../errors/internal.js';

const HOST_CALL_FUEL = 1;
const STATE_READ_FUEL = 10;
const SIG_VERIFY_FUEL = 100;
const FRAME_FUEL = 100;
const BYTES_PER_FUEL = 64;
const TABLE_ELEMENTS_PER_FUEL = 8;
const BASE58_SQUARE_PER_FUEL = 1024;

const MEMORY_PAGES = { initial: 2, maximum: 16 } as const;
const PAGE_BYTES = 65536;
const MAX_FRAMES = 64;
const I32: ValType = 0x7f;
const I64: ValType = 0x7e;

interface CompiledContract {
  readonly info: ModuleInfo;
  readonly module: WebAssembly.Module;
  readonly fuelExport: string;
}

/** A trap raised by a host function (an out-of-bounds slice, no fuel left, …): ends the frame with 111. */
class HostTrap extends InternalError {}

/**
 * The fuel of one run: while a frame runs, its module's fuel global holds what is left
 * (its instrumentation charges it); between frames, `spare` does. The host side charges
 * the same budget.
 */
class Fuel {
  private readonly globals: WebAssembly.Global[] = [];
  private spare: bigint;

  constructor(limit: number) {
    this.spare = BigInt(limit);
  }

  private get left(): bigint {
    const g = this.globals[this.globals.length - 1];
    return g === undefined ? this.spare : (g.value as bigint);
  }

  private set left(v: bigint) {
    const g = this.globals[this.globals.length - 1];
    if (g === undefined) this.spare = v;
    else g.value = v;
  }

  /** Takes `units`; a HostTrap when the budget goes below zero (it stays there: the callers trap too). */
  charge(units: number): void {
    const left = this.left - BigInt(units);
    this.left = left;
    if (left < 0n) throw new HostTrap('out of fuel');
  }

  /** Charges `n` bytes handled. */
  chargeBytes(n: number): void {
    if (n > 0) this.charge(Math.ceil(n / BYTES_PER_FUEL));
  }

  /** A frame's module starts running: its global takes what is left. */
  enter(global: WebAssembly.Global): void {
    global.value = this.left;
    this.globals.push(global);
  }

  /** The frame's module ended (returned or trapped): what it left goes back to its caller. */
  leave(): void {
    const left = this.globals.pop()!.value as bigint;
    this.left = left;
  }
}

/**
 * Zeroed memories of the initial size, reused between frames: creating a WebAssembly.Memory
 * (its address space reserved and later released) costs more than zeroing 128 KiB. A
 * memory that grew is not reused — a frame always starts with 2 pages.
 */
export class FrameMemories {
  private readonly free: WebAssembly.Memory[] = [];

  constructor(private readonly keep = 16) {}

  take(): WebAssembly.Memory {
    const m = this.free.pop();
    if (m === undefined) return new WebAssembly.Memory(MEMORY_PAGES);
    new Uint8Array(m.buffer).fill(0);
    return m;
  }

  release(m: WebAssembly.Memory): void {
    if (m.buffer.byteLength === MEMORY_PAGES.initial * PAGE_BYTES && this.free.length < this.keep) this.free.push(m);
  }
}

/** Metered modules by the SHA-256 of their bytecode, the most recently used kept. */
export class WasmModules {
  private readonly cache = new Map<string, CompiledContract>();

  constructor(private readonly size = 64) {}

  /** The metered module of a bytecode; WasmModuleError 100/101 when wevm would refuse it. */
  compile(bytecode: Uint8Array): CompiledContract {
    const key = createHash('sha256').update(bytecode).digest('hex');
    const hit = this.cache.get(key);
    if (hit !== undefined) {
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const parsed = analyzeWasm(bytecode);
    const compiled: CompiledContract = {
      info: parsed.info,
      module: new WebAssembly.Module(instrumentWasm(bytecode, parsed)),
      fuelExport: fuelExportName(parsed.info),
    };
    this.cache.set(key, compiled);
    if (this.cache.size > this.size) this.cache.delete(this.cache.keys().next().value!);
    return compiled;
  }
}

/** An error of a frame before or around its call (wevm's Executable errors): returned as its code. */
class FrameError extends InternalError {
  constructor(readonly code: number) {
    super(`wevm error ${code}`);
  }
}

const sig = (params: readonly ValType[], results: readonly ValType[]): FuncType => ({ params, results });
const u = I32;

/** Host function signatures by import module and name. */
const HOST_SIGNATURES: ReadonlyMap<string, FuncType> = new Map([
  ['env0.get_balance', sig([u, u, u, u], [I32, I64])],
  ['env0.transfer', sig([u, u, u, u, I64], [I32])],
  ['env0.issue', sig([u, u, u, u, I64, I32, I32], [I32, I32, I32])],
  ['env0.burn', sig([u, u, I64], [I32])],
  ['env0.reissue', sig([u, u, I64, I32], [I32])],
  ['env0.get_block_timestamp', sig([], [I32, I64])],
  ['env0.get_block_height', sig([], [I32, I64])],
  ['env0.call_arg_int', sig([I64], [])],
  ['env0.call_arg_bool', sig([I32], [])],
  ['env0.call_arg_binary', sig([u, u], [I32])],
  ['env0.call_arg_string', sig([u, u], [I32])],
  ['env0.call_payment', sig([u, u, I64], [I32])],
  ['env0.call_contract', sig([u, u, u, u], [I32])],
  ['env0.call_contract_params', sig([u, u, u, u, u, u], [I32])],
  ['env0.fast_hash', sig([u, u], [I32, I32, I32])],
  ['env0.secure_hash', sig([u, u], [I32, I32, I32])],
  ['env0.sig_verify', sig([u, u, u, u, u, u], [I32, I32])],
  ['env0.lease_address', sig([u, u, I64], [I32, I32, I32])],
  ['env0.lease_alias', sig([u, u, I64], [I32, I32, I32])],
  ['env0.cancel_lease', sig([u, u], [I32])],
  ['env0.get_storage_int', sig([u, u, u, u], [I32, I64])],
  ['env0.get_storage_bool', sig([u, u, u, u], [I32, I32])],
  ['env0.get_storage_binary', sig([u, u, u, u], [I32, I32, I32])],
  ['env0.get_storage_string', sig([u, u, u, u], [I32, I32, I32])],
  ['env0.set_storage_int', sig([u, u, I64], [I32])],
  ['env0.set_storage_bool', sig([u, u, I32], [I32])],
  ['env0.set_storage_binary', sig([u, u, u, u], [I32])],
  ['env0.set_storage_string', sig([u, u, u, u], [I32])],
  ['env0.get_tx_sender', sig([], [I32, I32, I32])],
  ['env0.get_payments', sig([], [I32, I32])],
  ['env0.get_payment_asset_id', sig([I32], [I32, I32, I32])],
  ['env0.get_payment_amount', sig([I32], [I32, I64])],
  ['env0.base_58', sig([u, u], [I32, I32, I32])],
  ['env0.to_base_58_string', sig([u, u], [I32, I32, I32])],
  ['env0.binary_equals', sig([u, u, u, u], [I32, I32])],
  ['env0.string_equals', sig([u, u, u, u], [I32, I32])],
  ['env0.join', sig([u, u, u, u], [I32, I32, I32])],
  ['env0.to_le_bytes', sig([u, u], [I32, I32, I32])],
  ['env0.caller', sig([], [I32, I32, I32])],
  ['env1.get_balance', sig([u, u, u, u, u, u], [I32, I64])],
  ['env1.transfer', sig([u, u, u, u, u, u, I64], [I32])],
  ['env1.issue', sig([u, u, u, u, I64, I64, I32], [I32, I32, I32])],
  ['env1.get_payments', sig([], [I32, I64])],
  ['env1.get_payment_asset_id', sig([I64], [I32, I32, I32])],
  ['env1.get_payment_amount', sig([I64], [I32, I64])],
  ['env1.tx', sig([u, u], [I32, I32, I32])],
]);

const sameType = (a: FuncType, b: FuncType): boolean =>
  a.params.length === b.params.length &&
  a.results.length === b.results.length &&
  a.params.every((t, i) => t === b.params[i]) &&
  a.results.every((t, i) => t === b.results[i]);

interface Frame {
  readonly contractId: Uint8Array;
  readonly bytecode: Uint8Array;
  readonly nonce: bigint;
}

const paymentIdOf = (f: Frame): Uint8Array => {
  const out = new Uint8Array(f.contractId.length + 8);
  out.set(f.contractId);
  new DataView(out.buffer).setBigUint64(f.contractId.length, f.nonce);
  return out;
};

/** One execution's call stack (wevm's Vm). */
class Vm {
  private readonly frames: Frame[] = [];
  private nonce = 0n;

  constructor(
    private readonly modules: WasmModules,
    private readonly memories: FrameMemories,
    private readonly service: WasmService,
    private readonly first: Frame,
    readonly fuel: Fuel,
  ) {}

  top(): Frame {
    return this.frames[this.frames.length - 1] ?? this.first;
  }

  nextNonce(): bigint {
    return ++this.nonce;
  }

  callerOfTop(): Uint8Array {
    if (this.frames.length === 0) return new Uint8Array(0);
    return (this.frames.length >= 2 ? this.frames[this.frames.length - 2]! : this.first).contractId;
  }

  /** A nested call: pushes the callee's frame; its errors come back as codes. */
  call(contractId: Uint8Array, bytecode: Uint8Array, nonce: bigint, func: string, params: Uint8Array): number {
    if (this.frames.length === MAX_FRAMES) return WASM_ERROR.STACK_OVERFLOW;
    this.frames.push({ contractId, bytecode, nonce });
    try {
      const results = this.run(func, params);
      if (results.length !== 1) return WASM_ERROR.INVALID_RESULT;
      const [value] = results;
      return typeof value === 'number' ? value : WASM_ERROR.INVALID_RESULT;
    } catch (e) {
      return frameCode(e);
    }
  }

  /** Runs `func` of the top frame's contract; returns its results (numbers for i32, bigints for i64). */
  run(func: string, params: Uint8Array): Array<number | bigint> {
    const frame = this.top();
    try {
      return this.execute(frame, func, params);
    } finally {
      if (this.frames.length > 0 && this.frames[this.frames.length - 1] === frame) this.frames.pop();
    }
  }

  private execute(frame: Frame, func: string, params: Uint8Array): Array<number | bigint> {
    this.fuel.charge(FRAME_FUEL + Math.ceil(frame.bytecode.length / BYTES_PER_FUEL));
    const compiled = this.modules.compile(frame.bytecode);
    this.fuel.charge(Math.ceil(compiled.info.tableElements / TABLE_ELEMENTS_PER_FUEL));
    let memory: WebAssembly.Memory;
    try {
      memory = this.memories.take();
    } catch {
      throw new FrameError(WASM_ERROR.MEMORY_LIMITS);
    }
    try {
      return this.instantiateAndCall(compiled, memory, func, params);
    } finally {
      this.memories.release(memory);
    }
  }

  private instantiateAndCall(compiled: CompiledContract, memory: WebAssembly.Memory, func: string, params: Uint8Array): Array<number | bigint> {
    const { info } = compiled;
    const runtime = new FrameRuntime(this, this.service, memory);
    const imports = runtime.imports(info);
    // wevm adds fuel only after instantiation: a start function runs out at once.
    if (info.hasStart) throw new FrameError(WASM_ERROR.INSTANTIATE_FAILED);
    let instance: WebAssembly.Instance;
    try {
      instance = new WebAssembly.Instance(compiled.module, imports);
    } catch {
      throw new FrameError(WASM_ERROR.INSTANTIATE_FAILED);
    }
    const heapBase = info.exports.get('__heap_base');
    if (heapBase === undefined || heapBase.kind !== 3 || info.globals[heapBase.index] !== I32) throw new FrameError(WASM_ERROR.HEAP_BASE_NOT_FOUND);
    runtime.heapBase = Number((instance.exports['__heap_base'] as WebAssembly.Global).value);
    const exported = info.exports.get(func);
    if (exported === undefined || exported.kind !== 0) throw new FrameError(WASM_ERROR.FUNC_NOT_FOUND);
    const type = info.functionTypes[exported.index]!;
    this.fuel.enter(instance.exports[compiled.fuelExport] as WebAssembly.Global);
    try {
      const texts = runtime.writeParams(params);
      if (texts.length !== type.params.length) throw new FrameError(WASM_ERROR.INVALID_NUM_ARGS);
      const values = type.params.map((t, i) => parseArg(t, texts[i]!));
      const fn = instance.exports[func] as (...a: Array<number | bigint>) => unknown;
      let out: unknown;
      try {
        out = fn(...values);
      } catch (e) {
        if (e instanceof WevmAbort) throw e;
        if (e instanceof WebAssembly.RuntimeError || e instanceof HostTrap || e instanceof RangeError) throw new FrameError(WASM_ERROR.FAILED_EXEC);
        throw e;
      }
      if (type.results.length === 0) return [];
      return type.results.length === 1 ? [out as number | bigint] : (out as Array<number | bigint>);
    } finally {
      this.fuel.leave();
    }
  }
}

/** wevm's type_check_arguments for one argument. */
function parseArg(t: ValType, text: string): number | bigint {
  if (!/^[+-]?\d+$/.test(text)) throw new FrameError(WASM_ERROR.FAILED_PARSE_FUNC_ARGS);
  const v = BigInt(text);
  if (t === I32) {
    if (v < -(2n ** 31n) || v > 2n ** 31n - 1n) throw new FrameError(WASM_ERROR.FAILED_PARSE_FUNC_ARGS);
    return Number(v);
  }
  if (t === I64) {
    if (v < -(2n ** 63n) || v > 2n ** 63n - 1n) throw new FrameError(WASM_ERROR.FAILED_PARSE_FUNC_ARGS);
    return v;
  }
  throw new FrameError(WASM_ERROR.FAILED_PARSE_FUNC_ARGS);
}

function frameCode(e: unknown): number {
  if (e instanceof WevmAbort) throw e;
  if (e instanceof FrameError) return e.code;
  if (e instanceof HostTrap) return WASM_ERROR.FAILED_EXEC;
  if (e instanceof WasmModuleError) return e.code;
  throw e;
}

/** What a frame's host functions work on: its memory, heap pointer and call-argument builders. */
class FrameRuntime {
  heapBase = 0;
  /** Arguments of the next call, as wevm's Params: entries without keys. */
  private callParams: Uint8Array[] = [];
  private callPayments: Array<{ assetId: Uint8Array; amount: bigint }> = [];

  constructor(
    private readonly vm: Vm,
    private readonly service: WasmService,
    private readonly memory: WebAssembly.Memory,
  ) {}

  private mem(): Uint8Array {
    return new Uint8Array(this.memory.buffer);
  }

  /** A copy of linear memory (charged per byte). */
  private slice(offset: number, length: number): Uint8Array {
    const o = offset >>> 0;
    const n = length >>> 0;
    const m = this.mem();
    if (o + n > m.length) throw new HostTrap('memory access out of bounds');
    this.vm.fuel.chargeBytes(n);
    return m.slice(o, o + n);
  }

  /** wevm's write_memory: the bytes at the heap pointer, which moves past them (charged per byte). */
  private write(bytes: Uint8Array): [number, number, number] {
    const m = this.mem();
    const at = this.heapBase;
    if (at + bytes.length > m.length) throw new HostTrap('memory access out of bounds');
    this.vm.fuel.chargeBytes(bytes.length);
    m.set(bytes, at);
    this.heapBase = at + bytes.length;
    return [0, at, bytes.length];
  }

  /** wevm's deserialize_params: values as argument texts, strings and binaries copied to the heap. */
  writeParams(params: Uint8Array): string[] {
    const out: string[] = [];
    if (params.length === 0) return out;
    const view = new DataView(params.buffer, params.byteOffset, params.byteLength);
    let pos = 0;
    const need = (n: number): void => {
      if (pos + n > params.length) throw new FrameError(WASM_ERROR.FAILED_DESERIALIZE);
    };
    need(2);
    let count = view.getUint16(pos);
    pos += 2;
    for (; count > 0; count--) {
      need(2);
      pos += 2 + view.getUint16(pos);
      need(1);
      const type = params[pos++]!;
      if (type === 0) {
        need(8);
        out.push(view.getBigInt64(pos).toString());
        pos += 8;
      } else if (type === 1) {
        need(1);
        out.push(String(params[pos++]));
      } else if (type === 2 || type === 3) {
        need(4);
        const n = view.getUint32(pos);
        pos += 4;
        need(n);
        const m = this.mem();
        if (this.heapBase + n > m.length) throw new FrameError(WASM_ERROR.FAILED_DESERIALIZE);
        this.vm.fuel.chargeBytes(n);
        m.set(params.subarray(pos, pos + n), this.heapBase);
        out.push(String(this.heapBase), String(n));
        this.heapBase += n;
        pos += n;
      } else throw new FrameError(WASM_ERROR.FAILED_DESERIALIZE);
    }
    return out;
  }

  /** wevm's get_asset_holder: type 0 (account: address version 1, or alias 2) or 1 (contract). */
  private holder(type: number, version: number, bytes: Uint8Array): Uint8Array | number {
    if (type !== 0 && type !== 1) return WASM_ERROR.ASSET_HOLDER_TYPE_NOT_FOUND;
    if (version !== 1 && version !== 2) return WASM_ERROR.ADDRESS_VERSION_NOT_FOUND;
    const prefix = type === 1 ? [1] : version === 1 ? [0] : [0, 2, this.service.getChainId()];
    const out = new Uint8Array(prefix.length + bytes.length);
    out.set(prefix);
    out.set(bytes, prefix.length);
    return out;
  }

  private self(): Uint8Array {
    return this.vm.top().contractId;
  }

  private storage(address: number, addressLen: number, key: number, keyLen: number): DataEntry {
    const contract = addressLen >>> 0 === 0 ? this.self() : this.slice(address, addressLen);
    return this.service.getStorage(contract, this.slice(key, keyLen));
  }

  private setStorage(key: number, keyLen: number, entry: (k: string) => DataEntry): number {
    const k = Buffer.from(this.slice(key, keyLen)).toString('utf8');
    const w = new ByteWriter(64);
    CONTRACT_DATA_ENTRY.write(w, entry(k), this.service.protocol);
    this.service.setStorage(this.self(), w.result());
    return 0;
  }

  /** One call argument: empty key ‖ type ‖ value (wevm's DataEntry::serialize(None)). */
  private pushArg(type: number, value: Uint8Array): void {
    const w = new ByteWriter(8 + value.length).u16(0).u8(type);
    if (type === 2 || type === 3) w.i32(value.length);
    this.callParams.push(w.bytes(value).result());
  }

  private callContract(idOff: number, idLen: number, fnOff: number, fnLen: number, params: Uint8Array | undefined): number {
    const callee = this.slice(idOff, idLen);
    const bytecode = this.service.getBytecode(callee);
    let func: string;
    try {
      func = new TextDecoder('utf-8', { fatal: true }).decode(this.slice(fnOff, fnLen));
    } catch (e) {
      if (e instanceof HostTrap) throw e;
      return WASM_ERROR.UTF8_ERROR;
    }
    let argBytes = params;
    if (argBytes === undefined) {
      const w = new ByteWriter(64).u16(this.callParams.length);
      for (const a of this.callParams) w.bytes(a);
      argBytes = w.result();
      this.callParams = [];
    }
    const nonce = this.vm.nextNonce();
    if (this.callPayments.length > 0) {
      const w = new ByteWriter(64).u16(this.callPayments.length);
      for (const p of this.callPayments) {
        if (p.assetId.length === 0) w.u8(0);
        else w.u8(1).bytes(p.assetId);
        w.i64(p.amount);
      }
      this.callPayments = [];
      this.service.addPayments(this.self(), paymentIdOf({ contractId: callee, bytecode, nonce }), w.result());
    }
    return this.vm.call(callee, bytecode, nonce, func, argBytes);
  }

  imports(info: ModuleInfo): WebAssembly.Imports {
    const s = this.service;
    const hosts: Record<string, Record<string, (...a: never[]) => unknown>> = {
      env0: {
        get_balance: (ao: number, al: number, ho: number, hl: number) => this.balance(ao, al, ho, hl, 0, 1),
        transfer: (ao: number, al: number, ro: number, rl: number, amount: bigint) => this.transfer(ao, al, ro, rl, 0, 1, amount),
        issue: (no: number, nl: number, dOff: number, dl: number, q: bigint, dec: number, re: number) =>
          this.write(s.issue(this.self(), this.slice(no, nl), this.slice(dOff, dl), q, BigInt(dec), re !== 0)),
        burn: (ao: number, al: number, amount: bigint) => (s.burn(this.self(), this.slice(ao, al), amount), 0),
        reissue: (ao: number, al: number, amount: bigint, re: number) => (s.reissue(this.self(), this.slice(ao, al), amount, re !== 0), 0),
        get_block_timestamp: () => [0, s.getBlockTimestamp()],
        get_block_height: () => [0, s.getBlockHeight()],
        call_arg_int: (v: bigint) => void this.pushArg(0, new ByteWriter(8).i64(BigInt.asIntN(64, v)).result()),
        call_arg_bool: (v: number) => void this.pushArg(1, Uint8Array.of(v & 0xff)),
        call_arg_binary: (o: number, l: number) => (this.pushArg(2, this.slice(o, l)), 0),
        call_arg_string: (o: number, l: number) => (this.pushArg(3, this.slice(o, l)), 0),
        call_payment: (ao: number, al: number, amount: bigint) => (this.callPayments.push({ assetId: this.slice(ao, al), amount }), 0),
        call_contract: (io: number, il: number, fo: number, fl: number) => this.callContract(io, il, fo, fl, undefined),
        call_contract_params: (io: number, il: number, fo: number, fl: number, po: number, pl: number) => this.callContract(io, il, fo, fl, this.slice(po, pl)),
        fast_hash: (o: number, l: number) => this.write(s.fastHash(this.slice(o, l))),
        secure_hash: (o: number, l: number) => this.write(s.secureHash(this.slice(o, l))),
        sig_verify: (mo: number, ml: number, so: number, sl: number, po: number, pl: number) => {
          this.vm.fuel.charge(SIG_VERIFY_FUEL);
          return [0, s.sigVerify(this.slice(mo, ml), this.slice(so, sl), this.slice(po, pl)) ? 1 : 0];
        },
        lease_address: (o: number, l: number, amount: bigint) => this.lease(o, l, 1, amount),
        lease_alias: (o: number, l: number, amount: bigint) => this.lease(o, l, 2, amount),
        cancel_lease: (o: number, l: number) => (s.cancelLease(this.self(), this.slice(o, l)), 0),
        get_storage_int: (ao: number, al: number, ko: number, kl: number) => {
          const e = this.storage(ao, al, ko, kl);
          return e.type === 'integer' ? [0, e.value] : [WASM_ERROR.FAILED_DESERIALIZE, 0n];
        },
        get_storage_bool: (ao: number, al: number, ko: number, kl: number) => {
          const e = this.storage(ao, al, ko, kl);
          return e.type === 'boolean' ? [0, e.value ? 1 : 0] : [WASM_ERROR.FAILED_DESERIALIZE, 0];
        },
        get_storage_binary: (ao: number, al: number, ko: number, kl: number) => {
          const e = this.storage(ao, al, ko, kl);
          return e.type === 'binary' ? this.write(e.value) : [WASM_ERROR.FAILED_DESERIALIZE, 0, 0];
        },
        get_storage_string: (ao: number, al: number, ko: number, kl: number) => {
          const e = this.storage(ao, al, ko, kl);
          return e.type === 'string' ? this.write(new Uint8Array(Buffer.from(e.value, 'utf8'))) : [WASM_ERROR.FAILED_DESERIALIZE, 0, 0];
        },
        set_storage_int: (ko: number, kl: number, v: bigint) => this.setStorage(ko, kl, (key) => ({ key, type: 'integer', value: v })),
        set_storage_bool: (ko: number, kl: number, v: number) => this.setStorage(ko, kl, (key) => ({ key, type: 'boolean', value: (v & 0xff) === 1 })),
        set_storage_binary: (ko: number, kl: number, vo: number, vl: number) =>
          this.setStorage(ko, kl, (key) => ({ key, type: 'binary', value: this.slice(vo, vl) })),
        set_storage_string: (ko: number, kl: number, vo: number, vl: number) =>
          this.setStorage(ko, kl, (key) => ({ key, type: 'string', value: Buffer.from(this.slice(vo, vl)).toString('utf8') })),
        get_tx_sender: () => this.write(s.txField(new TextEncoder().encode('sender'))),
        get_payments: () => {
          const n = s.getTxPayments(paymentIdOf(this.vm.top()));
          return n > 2n ** 31n - 1n ? [WASM_ERROR.CONVERTING_NUMERIC_TYPES, 0] : [0, Number(n)];
        },
        get_payment_asset_id: (n: number) => this.write(s.getTxPaymentAssetId(paymentIdOf(this.vm.top()), BigInt(n))),
        get_payment_amount: (n: number) => [0, s.getTxPaymentAmount(paymentIdOf(this.vm.top()), BigInt(n))],
        base_58: (o: number, l: number) => {
          let text: string;
          try {
            text = new TextDecoder('utf-8', { fatal: true }).decode(this.base58Input(o, l));
          } catch (e) {
            if (e instanceof HostTrap) throw e;
            return [WASM_ERROR.UTF8_ERROR, 0, 0];
          }
          try {
            return this.write(decodeBase58(text));
          } catch (e) {
            if (e instanceof EncodingError) return [WASM_ERROR.BASE58_ERROR, 0, 0];
            throw e;
          }
        },
        to_base_58_string: (o: number, l: number) => this.write(new Uint8Array(Buffer.from(encodeBase58(this.base58Input(o, l)), 'utf8'))),
        binary_equals: (lo: number, ll: number, ro: number, rl: number) => [0, Buffer.from(this.slice(lo, ll)).equals(Buffer.from(this.slice(ro, rl))) ? 1 : 0],
        string_equals: (lo: number, ll: number, ro: number, rl: number) => {
          const dec = new TextDecoder('utf-8', { fatal: true });
          try {
            return [0, dec.decode(this.slice(lo, ll)) === dec.decode(this.slice(ro, rl)) ? 1 : 0];
          } catch (e) {
            if (e instanceof HostTrap) throw e;
            return [WASM_ERROR.UTF8_ERROR, 0];
          }
        },
        join: (lo: number, ll: number, ro: number, rl: number) => this.write(new Uint8Array(Buffer.concat([this.slice(lo, ll), this.slice(ro, rl)]))),
        to_le_bytes: (o: number, l: number) => this.write(this.slice(o, l).reverse()),
        caller: () => this.write(this.vm.callerOfTop()),
      },
      env1: {
        get_balance: (ao: number, al: number, ho: number, hl: number, t: number, v: number) => this.balance(ao, al, ho, hl, t >>> 0, v >>> 0),
        transfer: (ao: number, al: number, ro: number, rl: number, t: number, v: number, amount: bigint) =>
          this.transfer(ao, al, ro, rl, t >>> 0, v >>> 0, amount),
        issue: (no: number, nl: number, dOff: number, dl: number, q: bigint, dec: bigint, re: number) =>
          this.write(s.issue(this.self(), this.slice(no, nl), this.slice(dOff, dl), q, dec, re !== 0)),
        get_payments: () => [0, s.getTxPayments(paymentIdOf(this.vm.top()))],
        get_payment_asset_id: (n: bigint) => this.write(s.getTxPaymentAssetId(paymentIdOf(this.vm.top()), n)),
        get_payment_amount: (n: bigint) => [0, s.getTxPaymentAmount(paymentIdOf(this.vm.top()), n)],
        tx: (o: number, l: number) => this.write(s.txField(this.slice(o, l))),
      },
    };
    const imports: Record<string, Record<string, WebAssembly.ImportValue>> = { env: { memory: this.memory } };
    const fuel = this.vm.fuel;
    for (const f of info.functionImports) {
      const expected = HOST_SIGNATURES.get(`${f.module}.${f.name}`);
      const impl = hosts[f.module]?.[f.name] as ((...a: unknown[]) => unknown) | undefined;
      if (expected === undefined || impl === undefined || !sameType(expected, f.type)) throw new FrameError(WASM_ERROR.INSTANTIATE_FAILED);
      (imports[f.module] ??= {})[f.name] = (...args: unknown[]): unknown => {
        fuel.charge(HOST_CALL_FUEL);
        return impl(...args);
      };
    }
    for (const m of info.memoryImports) {
      const fits = m.module === 'env' && m.name === 'memory' && m.min <= MEMORY_PAGES.initial && (m.max === undefined || m.max >= MEMORY_PAGES.maximum);
      if (!fits) throw new FrameError(WASM_ERROR.INSTANTIATE_FAILED);
    }
    if (info.otherImports > 0) throw new FrameError(WASM_ERROR.INSTANTIATE_FAILED);
    return imports;
  }

  /** The input of base_58 / to_base_58_string: Base58 takes time quadratic in its length, and so does its charge. */
  private base58Input(o: number, l: number): Uint8Array {
    const input = this.slice(o, l);
    this.vm.fuel.charge(Math.ceil((input.length * input.length) / BASE58_SQUARE_PER_FUEL));
    return input;
  }

  private balance(ao: number, al: number, ho: number, hl: number, type: number, version: number): [number, bigint] {
    const assetId = this.slice(ao, al);
    const holder = hl >>> 0 === 0 ? this.holder(1, version, this.self()) : this.holder(type, version, this.slice(ho, hl));
    if (typeof holder === 'number') return [holder, 0n];
    return [0, this.service.getBalance(assetId, holder)];
  }

  private transfer(ao: number, al: number, ro: number, rl: number, type: number, version: number, amount: bigint): number {
    const assetId = this.slice(ao, al);
    const holder = this.holder(type, version, this.slice(ro, rl));
    if (typeof holder === 'number') return holder;
    this.service.transfer(this.self(), assetId, holder, amount);
    return 0;
  }

  private lease(o: number, l: number, version: number, amount: bigint): [number, number, number] {
    const holder = this.holder(0, version, this.slice(o, l));
    if (typeof holder === 'number') return [holder, 0, 0];
    return this.write(this.service.lease(this.self(), holder, amount));
  }
}

/** What a thread keeps between the runs it makes: its protocol, compiled modules and spare memories. */
export interface WasmRunner {
  readonly protocol: Protocol;
  readonly modules: WasmModules;
  readonly memories: FrameMemories;
}

/**
 * WE's WASMContractExecutor.executeTransaction for a 103 (`_constructor`) or 104 V7
 * (`callFunc`): runs the job with its state reads made through `reads` (each charged
 * STATE_READ_FUEL), and says what came of it.
 */
export function runWasmJob(runner: WasmRunner, job: WasmJob, reads: (beforeRead: () => void) => WasmStateReads): WasmOutcome {
  const fuel = new Fuel(job.fuelLimit);
  try {
    const service = new WasmService(
      runner.protocol,
      reads(() => fuel.charge(STATE_READ_FUEL)),
      job.tx,
      job.contractId,
      job.blockTimestamp,
    );
    const vm = new Vm(runner.modules, runner.memories, service, { contractId: job.contractId, bytecode: job.bytecode, nonce: 0n }, fuel);
    let code: number;
    try {
      const results = vm.run(job.func, job.params);
      // wevm takes the first result (an i32 status; anything else counts as 0); none at all is an invalid result.
      code = results.length === 0 ? WASM_ERROR.INVALID_RESULT : typeof results[0] === 'number' ? results[0] : 0;
    } catch (e) {
      code = frameCode(e);
    }
    if (code !== 0) return wasmFailure(code);
    return { kind: 'success', ...service.execution() };
  } catch (e) {
    if (e instanceof WevmAbort) return wasmFailure(e.code, e.message);
    if (e instanceof HostTrap) return wasmFailure(WASM_ERROR.FAILED_EXEC);
    return wasmFailure(NODE_FAILURE_CODE, e instanceof Error ? e.message : String(e));
  }
}
