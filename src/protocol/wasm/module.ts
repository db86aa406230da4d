/**
 * WASM contract modules as wevm 0.2.1 takes them: a binary decoder that enforces the
 * feature set wevm configures wasmi with, and the fuel instrumentation Weft runs them with.
 *
 * Accepted (wasmi 0.31 with wevm's Config): the WebAssembly MVP integer instruction set,
 * multi-value, bulk memory and reference types. Refused as invalid bytecode (error 100):
 * floating point types and instructions, sign-extension operators, saturating
 * float-to-int, mutable globals imported or exported, SIMD, threads, tail calls and any
 * other proposal; then anything `WebAssembly.validate` refuses. A valid module must export
 * exactly one `_constructor` (error 101).
 *
 * Fuel (node.wasm.fuel-limit): each function body is cut into straight-line segments
 * (a segment ends after a block, loop, if, else, end, branch, return, call or
 * unreachable), and every segment is preceded by code that takes its instruction count
 * from an i64 fuel global and traps when it goes below zero. So one instruction costs one
 * unit, charged when its segment starts. A bulk memory operation (memory.fill, .copy,
 * .init) also costs a unit per 64 bytes and a bulk table operation (table.fill, .copy,
 * .init, .grow) a unit per 8 elements, charged from its length operand just before it
 * runs — as wasmi 0.31 charges them per byte and per element, so a megabyte copy is not one
 * unit's work. wasmi's exact rates, its memory.grow cost and its call costs differ, so a
 * contract running close to the limit can finish on Weft and run out of fuel on a WE node
 * (or the reverse) — which only matters when WE validators re-execute near the limit. The
 * host functions' own costs are the engine's (contracts/wasm/vm.ts).
 */
import { InternalError } from '../../errors/internal.js';

export const WASM_ERROR = {
  INVALID_BYTECODE: 100,
  CONSTRUCTOR_NOT_FOUND: 101,
  MEMORY_ERROR: 102,
  MEMORY_LIMITS: 103,
  LINKER_ERROR: 104,
  INSTANTIATE_FAILED: 105,
  HEAP_BASE_NOT_FOUND: 106,
  FUNC_NOT_FOUND: 107,
  INVALID_NUM_ARGS: 108,
  FAILED_PARSE_FUNC_ARGS: 109,
  FAILED_DESERIALIZE: 110,
  FAILED_EXEC: 111,
  STACK_OVERFLOW: 112,
  MODULE_NOT_FOUND: 113,
  EXCEPTION: 300,
  MEMORY_NOT_FOUND: 301,
  UTF8_ERROR: 302,
  INVALID_RESULT: 303,
  BASE58_ERROR: 304,
  CONVERTING_NUMERIC_TYPES: 305,
  ASSET_HOLDER_TYPE_NOT_FOUND: 306,
  ADDRESS_VERSION_NOT_FOUND: 307,
} as const;

class Invalid extends InternalError {}

/** Value types: i32 0x7f, i64 0x7e, funcref 0x70, externref 0x6f (floats and v128 are refused). */
export type ValType = 0x7f | 0x7e | 0x70 | 0x6f;

export interface FuncType {
  readonly params: readonly ValType[];
  readonly results: readonly ValType[];
}

export interface FunctionImport {
  readonly module: string;
  readonly name: string;
  readonly type: FuncType;
}

export interface MemoryImport {
  readonly module: string;
  readonly name: string;
  readonly min: number;
  readonly max: number | undefined;
}

export interface ModuleInfo {
  readonly types: readonly FuncType[];
  readonly functionImports: readonly FunctionImport[];
  readonly memoryImports: readonly MemoryImport[];
  /** Imports of tables or globals (nothing provides them: linking fails). */
  readonly otherImports: number;
  /** Type of every function, imports first. */
  readonly functionTypes: readonly FuncType[];
  readonly exports: ReadonlyMap<string, { readonly kind: number; readonly index: number }>;
  /** Types of every global, imports first. */
  readonly globals: readonly ValType[];
  readonly hasStart: boolean;
  /** Elements the module's own tables start with (an instance allocates them). */
  readonly tableElements: number;
}

class Reader {
  pos: number;
  constructor(
    readonly buf: Uint8Array,
    start = 0,
    readonly end = buf.length,
  ) {
    this.pos = start;
  }
  get done(): boolean {
    return this.pos >= this.end;
  }
  u8(): number {
    if (this.pos >= this.end) throw new Invalid('unexpected end');
    return this.buf[this.pos++]!;
  }
  u32(): number {
    let result = 0;
    let shift = 0;
    for (let i = 0; i < 5; i++) {
      const b = this.u8();
      result |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) {
        if (i === 4 && b > 0x0f) throw new Invalid('u32 too large');
        return result >>> 0;
      }
      shift += 7;
    }
    throw new Invalid('u32 too long');
  }
  /** Skips a signed LEB128 of at most `maxBytes` bytes. */
  sleb(maxBytes: number): void {
    for (let i = 0; i < maxBytes; i++) if ((this.u8() & 0x80) === 0) return;
    throw new Invalid('integer too long');
  }
  /** A signed 33-bit LEB128 (block type index). */
  s33(): number {
    let result = 0;
    let shift = 0;
    let b: number;
    let i = 0;
    do {
      if (i++ >= 5) throw new Invalid('s33 too long');
      b = this.u8();
      result += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while ((b & 0x80) !== 0);
    if (shift < 33 && (b & 0x40) !== 0) result -= 2 ** shift;
    return result;
  }
  bytes(n: number): Uint8Array {
    if (this.pos + n > this.end) throw new Invalid('unexpected end');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  name(): string {
    const b = this.bytes(this.u32());
    const text = new TextDecoder('utf-8', { fatal: true });
    try {
      return text.decode(b);
    } catch {
      throw new Invalid('invalid UTF-8 name');
    }
  }
}

function valType(b: number): ValType {
  if (b === 0x7f || b === 0x7e || b === 0x70 || b === 0x6f) return b;
  throw new Invalid(b === 0x7d || b === 0x7c ? 'floating point types are disabled' : `value type 0x${b.toString(16)} is not supported`);
}

function limits(r: Reader): { min: number; max: number | undefined } {
  const flag = r.u8();
  if (flag === 0) return { min: r.u32(), max: undefined };
  if (flag === 1) return { min: r.u32(), max: r.u32() };
  throw new Invalid('shared or 64-bit memories are not supported');
}

const ENTITY_EXPORT_GLOBAL = 3;

/** Opcodes after which a fuel segment ends. */
const SEGMENT_ENDS = new Set([0x00, 0x02, 0x03, 0x04, 0x05, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11]);

/** One instruction's extent in a body (start offset, opcode). Throws Invalid for a refused one. */
function skipInstruction(r: Reader): number {
  const op = r.u8();
  switch (op) {
    case 0x00:
    case 0x01:
    case 0x05:
    case 0x0b:
    case 0x0f:
    case 0x1a:
    case 0x1b:
    case 0xd1:
      return op;
    case 0x02:
    case 0x03:
    case 0x04: {
      const peek = r.buf[r.pos];
      if (peek === 0x40) r.pos++;
      else if (peek !== undefined && (peek & 0xc0) === 0x40) valType(r.u8());
      else if (r.s33() < 0) throw new Invalid('invalid block type');
      return op;
    }
    case 0x0c:
    case 0x0d:
    case 0x10:
    case 0x20:
    case 0x21:
    case 0x22:
    case 0x23:
    case 0x24:
    case 0x25:
    case 0x26:
    case 0xd2:
      r.u32();
      return op;
    case 0x0e: {
      for (let n = r.u32(); n >= 0; n--) r.u32();
      return op;
    }
    case 0x11:
      r.u32();
      r.u32();
      return op;
    case 0x1c:
      for (let n = r.u32(); n > 0; n--) valType(r.u8());
      return op;
    case 0x3f:
    case 0x40:
      if (r.u8() !== 0) throw new Invalid('multiple memories are not supported');
      return op;
    case 0x41:
      r.sleb(5);
      return op;
    case 0x42:
      r.sleb(10);
      return op;
    case 0xd0:
      valType(r.u8());
      return op;
    case 0xfc: {
      const sub = r.u32();
      switch (sub) {
        case 8:
          r.u32();
          if (r.u8() !== 0) throw new Invalid('bad memory index');
          return op;
        case 9:
        case 13:
        case 15:
        case 16:
        case 17:
          r.u32();
          return op;
        case 10:
          if (r.u8() !== 0 || r.u8() !== 0) throw new Invalid('bad memory index');
          return op;
        case 11:
          if (r.u8() !== 0) throw new Invalid('bad memory index');
          return op;
        case 12:
        case 14:
          r.u32();
          r.u32();
          return op;
        default:
          throw new Invalid(sub <= 7 ? 'saturating float-to-int conversions are disabled' : `instruction 0xfc ${sub} is not supported`);
      }
    }
    default:
      // Integer loads and stores (floats: 0x2a, 0x2b, 0x38, 0x39).
      if (op >= 0x28 && op <= 0x3e) {
        if (op === 0x2a || op === 0x2b || op === 0x38 || op === 0x39) throw new Invalid('floating point instructions are disabled');
        r.u32();
        r.u32();
        return op;
      }
      // Integer comparisons, arithmetic and conversions.
      if ((op >= 0x45 && op <= 0x5a) || (op >= 0x67 && op <= 0x8a) || op === 0xa7 || op === 0xac || op === 0xad) return op;
      if (op >= 0xc0 && op <= 0xc4) throw new Invalid('sign-extension operators are disabled');
      if ((op >= 0x43 && op <= 0x44) || (op >= 0x5b && op <= 0x66) || (op >= 0x8b && op <= 0xbf)) throw new Invalid('floating point instructions are disabled');
      throw new Invalid(`opcode 0x${op.toString(16)} is not supported`);
  }
}

/** A constant expression (global init, segment offset) up to its `end`. */
function skipConstExpr(r: Reader): void {
  for (;;) {
    const op = skipInstruction(r);
    if (op === 0x0b) return;
    if (op !== 0x41 && op !== 0x42 && op !== 0x23 && op !== 0xd0 && op !== 0xd2) throw new Invalid('unsupported constant expression');
  }
}

interface Section {
  readonly id: number;
  /** Content bounds (after id and size). */
  readonly start: number;
  readonly end: number;
  /** Bounds including the header. */
  readonly headerStart: number;
}

export interface ParsedModule {
  readonly info: ModuleInfo;
  readonly sections: readonly Section[];
  /** Per function body: content bounds, locals end (instruction start). */
  readonly bodies: ReadonlyArray<{ readonly start: number; readonly end: number; readonly codeStart: number }>;
  readonly importedGlobals: number;
  readonly definedGlobals: number;
}

const ORDER = new Map([
  [1, 1],
  [2, 2],
  [3, 3],
  [4, 4],
  [5, 5],
  [6, 6],
  [7, 7],
  [8, 8],
  [9, 9],
  [12, 10],
  [10, 11],
  [11, 12],
]);

function parse(bytes: Uint8Array): ParsedModule {
  const r = new Reader(bytes);
  const magic = r.bytes(8);
  if (magic[0] !== 0 || magic[1] !== 0x61 || magic[2] !== 0x73 || magic[3] !== 0x6d || magic[4] !== 1 || magic[5] !== 0 || magic[6] !== 0 || magic[7] !== 0) {
    throw new Invalid('not a WebAssembly 1.0 binary');
  }
  const sections: Section[] = [];
  const types: FuncType[] = [];
  const functionImports: FunctionImport[] = [];
  const memoryImports: MemoryImport[] = [];
  let otherImports = 0;
  const functionTypes: FuncType[] = [];
  const globals: ValType[] = [];
  let importedGlobals = 0;
  let definedGlobals = 0;
  const exports = new Map<string, { kind: number; index: number }>();
  let hasStart = false;
  let tableElements = 0;
  const bodies: Array<{ start: number; end: number; codeStart: number }> = [];
  let lastOrder = 0;
  let declaredFunctions = 0;
  const typeAt = (i: number): FuncType => {
    const t = types[i];
    if (t === undefined) throw new Invalid('type index out of range');
    return t;
  };
  while (!r.done) {
    const headerStart = r.pos;
    const id = r.u8();
    const size = r.u32();
    const start = r.pos;
    const end = start + size;
    if (end > bytes.length) throw new Invalid('section out of bounds');
    sections.push({ id, start, end, headerStart });
    if (id !== 0) {
      const order = ORDER.get(id);
      if (order === undefined) throw new Invalid(`section ${id} is not supported`);
      if (order <= lastOrder) throw new Invalid('sections out of order');
      lastOrder = order;
    }
    const s = new Reader(bytes, start, end);
    switch (id) {
      case 0:
        s.name();
        s.pos = end;
        break;
      case 1:
        for (let n = s.u32(); n > 0; n--) {
          if (s.u8() !== 0x60) throw new Invalid('bad function type');
          const params: ValType[] = [];
          for (let k = s.u32(); k > 0; k--) params.push(valType(s.u8()));
          const results: ValType[] = [];
          for (let k = s.u32(); k > 0; k--) results.push(valType(s.u8()));
          types.push({ params, results });
        }
        break;
      case 2:
        for (let n = s.u32(); n > 0; n--) {
          const module = s.name();
          const name = s.name();
          const kind = s.u8();
          if (kind === 0) {
            const type = typeAt(s.u32());
            functionImports.push({ module, name, type });
            functionTypes.push(type);
          } else if (kind === 1) {
            valType(s.u8());
            limits(s);
            otherImports++;
          } else if (kind === 2) {
            const l = limits(s);
            memoryImports.push({ module, name, ...l });
          } else if (kind === 3) {
            globals.push(valType(s.u8()));
            if (s.u8() !== 0) throw new Invalid('imports of mutable globals are disabled');
            importedGlobals++;
            otherImports++;
          } else throw new Invalid('bad import kind');
        }
        break;
      case 3:
        for (let n = s.u32(); n > 0; n--) {
          functionTypes.push(typeAt(s.u32()));
          declaredFunctions++;
        }
        break;
      case 4:
        for (let n = s.u32(); n > 0; n--) {
          valType(s.u8());
          tableElements += limits(s).min;
        }
        break;
      case 5:
        for (let n = s.u32(); n > 0; n--) limits(s);
        break;
      case 6:
        for (let n = s.u32(); n > 0; n--) {
          globals.push(valType(s.u8()));
          const mut = s.u8();
          if (mut > 1) throw new Invalid('bad global mutability');
          skipConstExpr(s);
          definedGlobals++;
        }
        break;
      case 7:
        for (let n = s.u32(); n > 0; n--) {
          const name = s.name();
          const kind = s.u8();
          const index = s.u32();
          if (exports.has(name)) throw new Invalid(`duplicate export '${name}'`);
          exports.set(name, { kind, index });
        }
        break;
      case 8:
        s.u32();
        hasStart = true;
        break;
      case 9:
        for (let n = s.u32(); n > 0; n--) {
          const flags = s.u32();
          if (flags > 7) throw new Invalid('bad element segment');
          if ((flags & 1) === 0 && (flags & 2) !== 0) s.u32(); // table index
          if ((flags & 1) === 0) skipConstExpr(s);
          if ((flags & 4) === 0) {
            if ((flags & 3) !== 0) s.u8(); // elemkind
            for (let k = s.u32(); k > 0; k--) s.u32();
          } else {
            if ((flags & 3) !== 0) valType(s.u8());
            for (let k = s.u32(); k > 0; k--) skipConstExpr(s);
          }
        }
        break;
      case 10: {
        const count = s.u32();
        if (count !== declaredFunctions) throw new Invalid('function and code section counts differ');
        for (let n = 0; n < count; n++) {
          const bodySize = s.u32();
          const bodyStart = s.pos;
          const bodyEnd = bodyStart + bodySize;
          const b = new Reader(bytes, bodyStart, bodyEnd);
          for (let k = b.u32(); k > 0; k--) {
            b.u32();
            valType(b.u8());
          }
          const codeStart = b.pos;
          let last = -1;
          while (!b.done) last = skipInstruction(b);
          if (last !== 0x0b) throw new Invalid('function body does not end with end');
          bodies.push({ start: bodyStart, end: bodyEnd, codeStart });
          s.pos = bodyEnd;
        }
        break;
      }
      case 11:
        for (let n = s.u32(); n > 0; n--) {
          const flags = s.u32();
          if (flags === 2) s.u32();
          if (flags === 0 || flags === 2) skipConstExpr(s);
          else if (flags !== 1) throw new Invalid('bad data segment');
          s.bytes(s.u32());
        }
        break;
      case 12:
        s.u32();
        break;
    }
    if (s.pos !== end) throw new Invalid(`section ${id} size mismatch`);
    r.pos = end;
  }
  if (bodies.length !== declaredFunctions) throw new Invalid('missing code section');
  return {
    info: { types, functionImports, memoryImports, otherImports, functionTypes, exports, globals, hasStart, tableElements },
    sections,
    bodies,
    importedGlobals,
    definedGlobals,
  };
}

/** Mutability of every global, imports first (imports are immutable once validated). */
function globalMutability(bytes: Uint8Array, p: ParsedModule): boolean[] {
  const out: boolean[] = new Array<boolean>(p.importedGlobals).fill(false);
  const g = p.sections.find((s) => s.id === 6);
  if (g === undefined) return out;
  const r = new Reader(bytes, g.start, g.end);
  for (let n = r.u32(); n > 0; n--) {
    r.u8();
    out.push(r.u8() === 1);
    skipConstExpr(r);
  }
  return out;
}

/** wevm's validate_bytecode: 0 when the module is accepted, else 100 (invalid) or 101 (no single `_constructor`). */
export function validateWasmBytecode(bytes: Uint8Array): number {
  try {
    analyzeWasm(bytes);
    return 0;
  } catch (e) {
    if (e instanceof WasmModuleError) return e.code;
    throw e;
  }
}

export class WasmModuleError extends InternalError {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** Decodes and validates a contract module; WasmModuleError 100/101 when wevm would refuse it. */
export function analyzeWasm(bytes: Uint8Array): ParsedModule {
  let p: ParsedModule;
  try {
    p = parse(bytes);
    const mutable = globalMutability(bytes, p);
    for (const [name, e] of p.info.exports) {
      if (e.kind === ENTITY_EXPORT_GLOBAL && mutable[e.index] === true) throw new Invalid(`export '${name}' is a mutable global (disabled)`);
    }
  } catch (e) {
    if (e instanceof Invalid) throw new WasmModuleError(WASM_ERROR.INVALID_BYTECODE, `invalid bytecode: ${e.message}`);
    throw e;
  }
  if (!WebAssembly.validate(bytes)) throw new WasmModuleError(WASM_ERROR.INVALID_BYTECODE, 'invalid bytecode: WebAssembly validation failed');
  if (!p.info.exports.has('_constructor')) throw new WasmModuleError(WASM_ERROR.CONSTRUCTOR_NOT_FOUND, 'no _constructor export');
  return p;
}

// ---------------------------------------------------------------------------
// Fuel instrumentation

class Writer {
  private chunks: number[] = [];
  byte(b: number): this {
    this.chunks.push(b);
    return this;
  }
  u32(v: number): this {
    let n = v >>> 0;
    do {
      let b = n & 0x7f;
      n >>>= 7;
      if (n !== 0) b |= 0x80;
      this.chunks.push(b);
    } while (n !== 0);
    return this;
  }
  s64(v: bigint): this {
    let n = v;
    for (;;) {
      const b = Number(n & 0x7fn);
      n >>= 7n;
      const done = (n === 0n && (b & 0x40) === 0) || (n === -1n && (b & 0x40) !== 0);
      this.chunks.push(done ? b : b | 0x80);
      if (done) return this;
    }
  }
  bytes(b: Uint8Array): this {
    for (const x of b) this.chunks.push(x);
    return this;
  }
  get length(): number {
    return this.chunks.length;
  }
  result(): Uint8Array {
    return Uint8Array.from(this.chunks);
  }
}

/** Traps when the fuel global is below zero. */
function trapWhenOut(w: Writer, fuelGlobal: number): void {
  w.byte(0x23).u32(fuelGlobal).byte(0x42).s64(0n).byte(0x53).byte(0x04).byte(0x40).byte(0x00).byte(0x0b);
}

function chargeCode(w: Writer, fuelGlobal: number, cost: number): void {
  w.byte(0x23).u32(fuelGlobal).byte(0x42).s64(BigInt(cost)).byte(0x7d).byte(0x24).u32(fuelGlobal);
  trapWhenOut(w, fuelGlobal);
}

/**
 * Bulk operations (0xfc sub-opcodes) whose length operand — the i32 on top of the stack —
 * is charged, by how far it is shifted right: memory bytes per 64, table elements per 8.
 */
const BULK_SHIFT: ReadonlyMap<number, number> = new Map([
  [8, 6], // memory.init
  [10, 6], // memory.copy
  [11, 6], // memory.fill
  [12, 3], // table.init
  [14, 3], // table.copy
  [15, 3], // table.grow
  [17, 3], // table.fill
]);

/** The shift of a bulk operation at `at` (undefined for any other instruction). */
function bulkShift(bytes: Uint8Array, at: number): number | undefined {
  if (bytes[at] !== 0xfc) return undefined;
  const r = new Reader(bytes, at + 1);
  return BULK_SHIFT.get(r.u32());
}

/**
 * Charges the length on top of the stack (kept there) through the scratch local:
 * `local.tee n; fuel -= i64(n) >> shift; trap below zero`.
 */
function chargeLength(w: Writer, fuelGlobal: number, scratch: number, shift: number): void {
  w.byte(0x22).u32(scratch);
  w.byte(0x23).u32(fuelGlobal).byte(0x20).u32(scratch).byte(0xad).byte(0x42).s64(BigInt(shift)).byte(0x88).byte(0x7d).byte(0x24).u32(fuelGlobal);
  trapWhenOut(w, fuelGlobal);
}

function instrumentBody(bytes: Uint8Array, body: { start: number; end: number; codeStart: number }, params: number, fuelGlobal: number): Uint8Array {
  const r = new Reader(bytes, body.codeStart, body.end);
  const instructions: Array<{ from: number; to: number; shift: number | undefined }> = [];
  let bulk = false;
  while (!r.done) {
    const from = r.pos;
    skipInstruction(r);
    const shift = bulkShift(bytes, from);
    if (shift !== undefined) bulk = true;
    instructions.push({ from, to: r.pos, shift });
  }
  // A body with bulk operations gets one more i32 local (after all others: no index moves) to hold their lengths.
  const out = new Writer();
  let scratch = 0;
  if (bulk) {
    const locals = new Reader(bytes, body.start, body.codeStart);
    const groups = locals.u32();
    const groupsStart = locals.pos;
    let declared = 0;
    for (let k = 0; k < groups; k++) {
      declared += locals.u32();
      locals.u8();
    }
    scratch = params + declared;
    out
      .u32(groups + 1)
      .bytes(bytes.subarray(groupsStart, body.codeStart))
      .u32(1)
      .byte(0x7f);
  } else out.bytes(bytes.subarray(body.start, body.codeStart));
  let segment: Array<{ from: number; to: number; shift: number | undefined }> = [];
  const flush = (): void => {
    if (segment.length === 0) return;
    chargeCode(out, fuelGlobal, segment.length);
    for (const i of segment) {
      if (i.shift !== undefined) chargeLength(out, fuelGlobal, scratch, i.shift);
      out.bytes(bytes.subarray(i.from, i.to));
    }
    segment = [];
  };
  for (const i of instructions) {
    segment.push(i);
    if (SEGMENT_ENDS.has(bytes[i.from]!)) flush();
  }
  flush();
  const content = out.result();
  return new Writer().u32(content.length).bytes(content).result();
}

/** The name the instrumented module exports its fuel global under. */
export function fuelExportName(info: ModuleInfo): string {
  let name = 'weft:fuel';
  while (info.exports.has(name)) name += '_';
  return name;
}

/**
 * The module with fuel metering: an extra mutable i64 global (after the module's own, so
 * no index moves) exported as `fuelExportName(info)`, and a charge before every segment.
 */
export function instrumentWasm(bytes: Uint8Array, p: ParsedModule): Uint8Array {
  const fuelGlobal = p.importedGlobals + p.definedGlobals;
  const exportName = new TextEncoder().encode(fuelExportName(p.info));
  const newGlobal = new Writer().byte(0x7e).byte(0x01).byte(0x42).byte(0x00).byte(0x0b).result();
  const newExport = new Writer().u32(exportName.length).bytes(exportName).byte(ENTITY_EXPORT_GLOBAL).u32(fuelGlobal).result();
  const section = (id: number, content: Uint8Array): Uint8Array => new Writer().byte(id).u32(content.length).bytes(content).result();
  const withEntry = (s: Section | undefined, entry: Uint8Array): Uint8Array => {
    if (s === undefined) return new Writer().u32(1).bytes(entry).result();
    const r = new Reader(bytes, s.start, s.end);
    const count = r.u32();
    return new Writer()
      .u32(count + 1)
      .bytes(bytes.subarray(r.pos, s.end))
      .bytes(entry)
      .result();
  };
  const globalSection = p.sections.find((s) => s.id === 6);
  const exportSection = p.sections.find((s) => s.id === 7);
  const out = new Writer().bytes(bytes.subarray(0, 8));
  let globalsDone = false;
  let exportsDone = false;
  const emitGlobals = (): void => {
    if (!globalsDone) out.bytes(section(6, withEntry(globalSection, newGlobal)));
    globalsDone = true;
  };
  const emitExports = (): void => {
    emitGlobals();
    if (!exportsDone) out.bytes(section(7, withEntry(exportSection, newExport)));
    exportsDone = true;
  };
  for (const s of p.sections) {
    const order = ORDER.get(s.id) ?? 0;
    if (s.id !== 0 && order > 6) emitGlobals();
    if (s.id !== 0 && order > 7) emitExports();
    if (s.id === 6 || s.id === 7) continue;
    if (s.id === 10) {
      const code = new Writer().u32(p.bodies.length);
      const imported = p.info.functionImports.length;
      p.bodies.forEach((b, i) => code.bytes(instrumentBody(bytes, b, p.info.functionTypes[imported + i]!.params.length, fuelGlobal)));
      out.bytes(section(10, code.result()));
    } else out.bytes(bytes.subarray(s.headerStart, s.end));
  }
  emitExports();
  return out.result();
}
