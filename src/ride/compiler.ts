/**
 * WE's RIDE compiler (lang `CompilerV1`, reference ride.md §7): type-checks the parsed
 * tree against a context and lowers it to the expression tree — `&&`/`||` to IF,
 * operators to their functions, `match` to `$match<k>` lets and `_isInstanceOf` tests —
 * failing with WE's first error and its position (`Compilation failed: <msg> in s-e`).
 *
 * Stack-safe: each node is a generator run by one loop, so left-deep operator chains and
 * long `let` sequences of any length compile (WE's compiler is trampolined too).
 */
import { typeRef, type CompilerContext, type Signature } from './context.js';
import { E, type Expr, type FunctionHeader } from './expr.js';
import { ANY_POS, valid, type Let, type MatchCase, type Part, type PExpr, type Pos } from './parser.js';
import {
  BOOLEAN,
  BYTEVECTOR,
  commonType,
  commonTypeOf,
  covers,
  equivalent,
  inferTypeParams,
  LONG,
  members,
  ScalaMatchError,
  STRING,
  toFinal,
  typeName,
  union,
  type Final,
} from './types.js';
import { InternalError } from '../errors/internal.js';

/** A compile error with the position WE reports. */
export class CompileError extends InternalError {
  constructor(
    readonly start: number,
    readonly end: number,
    readonly detail: string,
  ) {
    super(`Compilation failed: ${detail} in ${start}-${end}`);
  }
}

export interface Typed {
  readonly expr: Expr;
  readonly type: Final;
}

type Step = Generator<PExpr, Typed, Typed>;

const fail = (p: Pos, message: string): never => {
  throw new CompileError(p.start, p.end, message);
};

function handlePart<T>(part: Part<T>): T {
  if (part.valid) return part.v;
  return fail(part.pos, part.message);
}

const list = (items: readonly string[]): string => `List(${items.join(', ')})`;

const OPERATOR_FUNCTIONS: Readonly<Record<string, string>> = { '==': '==', '!=': '!=', '>': '>', '>=': '>=', '+': '+', '-': '-', '*': '*', '/': '/', '%': '%' };

/** Scala's rendering of the parsed case types (an ArrayBuffer of PARTs). */
function partsText(parts: readonly Part<string>[]): string {
  const posText = (p: Pos): string => (p.start === -1 && p.end === -1 ? 'AnyPos' : `RealPos(${p.start},${p.end})`);
  return `ArrayBuffer(${parts.map((x) => (x.valid ? `VALID(${posText(x.pos)},${x.v})` : `INVALID(${posText(x.pos)},${x.message})`)).join(', ')})`;
}

const PARTS = 'com.wavesenterprise.lang.v1.parser.Expressions$PART$';
const CLASS_CAST = `class ${PARTS}INVALID cannot be cast to class ${PARTS}VALID (${PARTS}INVALID and ${PARTS}VALID are in unnamed module of loader 'app')`;

/** The compiler over one context; variables and the `$match` counter are scoped by save/restore. */
class Compiler {
  private readonly vars: Map<string, Final>;
  private tmpArgsIdx = 0;

  constructor(private readonly ctx: CompilerContext) {
    this.vars = new Map(ctx.varDefs);
  }

  run(root: PExpr): Typed {
    const stack: Step[] = [this.node(root)];
    let input: Typed | undefined;
    for (;;) {
      const top = stack[stack.length - 1]!;
      const r = top.next(input!);
      if (r.done === true) {
        stack.pop();
        if (stack.length === 0) return r.value;
        input = r.value;
      } else {
        stack.push(this.node(r.value));
        input = undefined;
      }
    }
  }

  private *node(e: PExpr): Step {
    switch (e.t) {
      case 'CONST_LONG':
        return { expr: E.long(e.value), type: LONG };
      case 'CONST_BYTEVECTOR':
        return { expr: E.bytes(handlePart(e.value)), type: BYTEVECTOR };
      case 'CONST_STRING':
        return { expr: E.str(handlePart(e.value)), type: STRING };
      case 'TRUE':
        return { expr: E.TRUE, type: BOOLEAN };
      case 'FALSE':
        return { expr: E.FALSE, type: BOOLEAN };
      case 'GETTER': {
        const field = handlePart(e.field);
        const ref = yield e.ref;
        return this.getter(e.pos, ref, field);
      }
      case 'BLOCK':
        return yield* this.block(e.pos, e.let, e.body);
      case 'IF':
        return yield* this.if(e.pos, e.cond, e.ifTrue, e.ifFalse);
      case 'REF': {
        const key = handlePart(e.key);
        const type = this.vars.get(key);
        if (type === undefined) return fail(e.pos, `A definition of '${key}' is not found`);
        return { expr: E.ref(key), type };
      }
      case 'FUNCTION_CALL':
        return yield* this.call(e.pos, e.name, e.args);
      case 'MATCH':
        return yield* this.match(e.pos, e.expr, e.cases);
      case 'INVALID':
        return fail(e.pos, e.message);
      case 'BINARY_OP':
        if (e.op === '&&') return yield* this.if(e.pos, e.a, e.b, { t: 'FALSE', pos: e.pos });
        if (e.op === '||') return yield* this.if(e.pos, e.a, { t: 'TRUE', pos: e.pos }, e.b);
        return yield* this.call(e.pos, valid(e.pos, OPERATOR_FUNCTIONS[e.op]!), [e.a, e.b]);
    }
  }

  private *if(p: Pos, condExpr: PExpr, ifTrueExpr: PExpr, ifFalseExpr: PExpr): Step {
    const cond = yield condExpr;
    if (!equivalent(cond.type, BOOLEAN)) fail(p, `Unexpected type, required: Boolean, but ${typeName(cond.type)} found`);
    const ifTrue = yield ifTrueExpr;
    const ifFalse = yield ifFalseExpr;
    return { expr: E.if(cond.expr, ifTrue.expr, ifFalse.expr), type: commonType(ifTrue.type, ifFalse.type) };
  }

  private *block(p: Pos, l: Let, body: PExpr): Step {
    const name = handlePart(l.name);
    if (this.vars.has(name) && !l.allowShadowing) fail(p, `Value '${name}' already defined in the scope`);
    if (this.ctx.functionDefs.has(name)) fail(p, `Value '${name}' can't be defined because function with this name is already defined`);
    const value = yield l.value;
    const letTypes = l.types.map(handlePart);
    if (!letTypes.every((t) => this.ctx.predefTypes.has(t))) {
      fail(p, `Value '${name}' declared as non-existing type, while all possible types are ${list([...this.ctx.predefTypes.keys()])}`);
    }
    const type = letTypes.length === 0 ? value.type : union(letTypes.map((t) => typeRef(this.ctx.predefTypes.get(t)!)));
    const shadowed = this.vars.get(name);
    this.vars.set(name, type);
    const compiledBody = yield body;
    if (shadowed === undefined) this.vars.delete(name);
    else this.vars.set(name, shadowed);
    return { expr: E.block(name, value.expr, compiledBody.expr), type: compiledBody.type };
  }

  private getter(p: Pos, ref: Typed, field: string): Typed {
    const types = members(ref.type);
    const fieldTypes: Final[] = [];
    for (const t of types) {
      const f = t.k === 'CASE' ? t.fields.find(([n]) => n === field) : undefined;
      if (f === undefined) return fail(p, `Undefined field \`${field}\` of variable of type \`Union(${list(types.map(typeName))})\``);
      fieldTypes.push(f[1]);
    }
    return { expr: E.getter(ref.expr, field), type: commonTypeOf(fieldTypes) };
  }

  /** functionTypeSignaturesByName: the context's functions, else a case type's constructor. */
  private signatures(name: string): readonly Signature[] {
    const fns = this.ctx.functionDefs.get(name);
    if (fns !== undefined) return fns;
    const t = this.ctx.predefTypes.get(name);
    if (t?.kind === 'case') return [{ params: t.type.fields, result: t.type, header: { user: name } }];
    return [];
  }

  private *call(p: Pos, namePart: Part<string>, args: readonly PExpr[]): Step {
    const name = handlePart(namePart);
    const signatures = this.signatures(name);
    const compiled: Typed[] = [];
    for (const a of args) compiled.push(yield a);
    const notFound = (): never => fail(p, `Can't find a function '${name}'(${compiled.map((c) => typeName(c.type)).join(', ')})`);
    if (signatures.length === 0) return notFound();
    if (signatures.length === 1) return matchOverload(p, name, compiled, signatures[0]!);
    const matched: Typed[] = [];
    for (const s of signatures) {
      try {
        matched.push(matchOverload(p, name, compiled, s));
      } catch (e) {
        if (!(e instanceof CompileError)) throw e;
      }
    }
    if (matched.length === 0) return notFound();
    if (matched.length === 1) return matched[0]!;
    const candidates = signatures.map((s) => `'${name}'(${s.params.map(([n, t]) => `(${n},${typeName(t)})`).join(', ')})`).join('; ');
    return fail(p, `Can't choose an overloaded function. Candidates: ${candidates}`);
  }

  private *match(p: Pos, expr: PExpr, cases: readonly MatchCase[]): Step {
    const typed = yield expr;
    const exprType = typed.type;
    if (exprType.k !== 'UNION') return fail(p, 'Only union type can be matched');
    const tmpArgId = this.tmpArgsIdx;
    const refTmpKey = `$match${tmpArgId}`;
    this.tmpArgsIdx = tmpArgId + 1;
    const allowShadow = typed.expr.t === 'REF' ? typed.expr.key : undefined;
    const ifCases = this.ifCases(cases, { t: 'REF', pos: p, key: valid(ANY_POS, refTmpKey) }, allowShadow);
    const compiled = yield* this.block(p, { pos: ANY_POS, name: valid(ANY_POS, refTmpKey), value: expr, types: [], allowShadowing: false }, ifCases);
    const matchedNames = cases.flatMap((c) => c.types).map(handlePart);
    const matched = union(this.flat(matchedNames));
    const lastUntyped = cases[cases.length - 1]!.types.length === 0;
    if (!((lastUntyped && covers(exprType, matched)) || equivalent(exprType, matched))) {
      fail(p, `Matching not exhaustive: possibleTypes are ${list(exprType.l.map(typeName))}, while matched are ${list(matched.l.map(typeName))}`);
    }
    this.tmpArgsIdx = tmpArgId;
    return compiled;
  }

  /** CompilerV1.flat: type names to their types (a union to its members), unknown names dropped. */
  private flat(names: readonly string[]): Final[] {
    return names.flatMap((n) => {
      const t = this.ctx.predefTypes.get(n);
      if (t === undefined) return [];
      return t.kind === 'union' ? [...t.types] : [typeRef(t)];
    });
  }

  /** mkIfCases: the chain of tests, built from the last case back. */
  private ifCases(cases: readonly MatchCase[], refTmp: PExpr, allowShadow: string | undefined): PExpr {
    let further: PExpr = { t: 'FUNCTION_CALL', pos: ANY_POS, name: valid(ANY_POS, 'throw'), args: [] };
    for (let i = cases.length - 1; i >= 0; i--) {
      const mc = cases[i]!;
      const nv = mc.newVarName;
      const withVar: PExpr =
        nv === undefined
          ? mc.expr
          : {
              t: 'BLOCK',
              pos: mc.pos,
              let: { pos: mc.pos, name: nv, value: refTmp, types: mc.types, allowShadowing: nv.valid && nv.v === allowShadow },
              body: mc.expr,
            };
      if (mc.types.length === 0) {
        further = withVar;
        continue;
      }
      if (mc.types.some((t) => !t.valid)) throw new ScalaMatchError(CLASS_CAST);
      const names = this.flat(mc.types.map((t) => (t as Part<string> & { valid: true }).v)).map(typeName);
      if (names.length === 0) {
        fail(mc.pos, `Value '${partsText(mc.types)}' declared as non-existing type, while all possible types are List()`);
      }
      const isInst = (t: string): PExpr => ({
        t: 'FUNCTION_CALL',
        pos: mc.pos,
        name: valid(mc.pos, '_isInstanceOf'),
        args: [refTmp, { t: 'CONST_STRING', pos: mc.pos, value: valid(mc.pos, t) }],
      });
      const typeIf = names.slice(1).reduce<PExpr>((other, t) => ({ t: 'BINARY_OP', pos: mc.pos, a: isInst(t), op: '||', b: other }), isInst(names[0]!));
      further = { t: 'IF', pos: mc.pos, cond: typeIf, ifTrue: withVar, ifFalse: further };
    }
    return further;
  }
}

function matchOverload(p: Pos, name: string, args: readonly Typed[], s: Signature): Typed {
  if (args.length !== s.params.length) fail(p, `Function '${name}' requires ${s.params.length} arguments, but ${args.length} are provided`);
  const inferred = inferTypeParams(args.map((a, i) => [a.type, s.params[i]![1]] as const));
  if ('error' in inferred) return fail(p, inferred.error);
  const header: FunctionHeader = s.header;
  return { expr: { t: 'CALL', fn: header, args: args.map((a) => a.expr) }, type: toFinal(s.result, inferred.ok) };
}

/**
 * CompilerV1.apply on a parsed tree: the expression and its type. Throws CompileError
 * (WE's `Compilation failed: …`) or ScalaMatchError (an exception WE's compiler does not
 * catch; its message is the whole error).
 */
export function compileTree(ctx: CompilerContext, tree: PExpr): Typed {
  return new Compiler(ctx).run(tree);
}

export { BOOLEAN };
