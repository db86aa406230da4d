import fc from 'fast-check';
import { encodeBase64 } from '../../../src/crypto/encoding.js';
import type { Protocol } from '../../../src/protocol/protocol.js';
import { E, type Expr } from '../../../src/ride/expr.js';
import { estimateComplexity, MAX_SCRIPT_COMPLEXITY, scriptBytes } from '../../../src/ride/script.js';
import { CHAIN_ID, feeArb, timestampArb, type OracleCase, type OracleEnv } from '../harness.js';

/** Native function ids of WE's RIDE contexts, with the argument counts they are called with here. */
const NATIVES = [
  0, 1, 2, 100, 101, 102, 103, 104, 105, 106, 107, 200, 201, 202, 203, 300, 303, 304, 305, 400, 401, 410, 411, 412, 420, 421, 500, 501, 502, 503, 504, 600, 601,
  602, 603, 1000, 1001, 1003, 1040, 1050, 1060,
];
const USERS = [
  '!',
  '!=',
  '-',
  'throw',
  'extract',
  'isDefined',
  'takeRight',
  'dropRight',
  'getInteger',
  'addressFromString',
  'addressFromPublicKey',
  'wavesBalance',
  'Address',
  'TransferTransaction',
];

const textArb = (maxLength: number): fc.Arbitrary<string> => fc.string({ unit: 'binary', maxLength });

/**
 * Random RIDE expressions WE's reader accepts: every REF declared (a global val, or a let
 * in scope), every function known. Not type-checked — WE's reader does not type-check.
 */
export function exprArb(version: 1 | 2): fc.Arbitrary<Expr> {
  const globals = version === 1 ? ['height', 'tx', 'unit'] : ['height', 'tx', 'unit', 'Buy', 'Sell'];
  const { node } = fc.letrec<{ node: Expr }>((tie) => ({
    node: fc.oneof(
      { maxDepth: 4, depthSize: 'small' },
      fc.constant(E.TRUE),
      fc.constant(E.FALSE),
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(E.long),
      fc.uint8Array({ maxLength: 24 }).map(E.bytes),
      textArb(12).map(E.str),
      fc.constantFrom(...globals).map(E.ref),
      fc.tuple(tie('node'), tie('node'), tie('node')).map(([c, a, b]) => E.if(c, a, b)),
      fc.tuple(tie('node'), textArb(8)).map(([x, f]) => E.getter(x, f)),
      fc.tuple(fc.constantFrom(...NATIVES), fc.array(tie('node'), { maxLength: 3 })).map(([id, args]) => E.native(id, ...args)),
      fc.tuple(fc.constantFrom(...USERS), fc.array(tie('node'), { maxLength: 2 })).map(([name, args]) => E.user(name, ...args)),
      // A let and a body that refers to it.
      fc.tuple(textArb(6), tie('node'), tie('node')).map(([name, value, body]) => E.block(name, value, E.native(0, E.ref(name), body))),
    ),
  }));
  return node.filter((e) => estimateComplexity(e, version) <= MAX_SCRIPT_COMPLEXITY);
}

/** A valid script as `base64:…`, checksum by Weft's secureHash for the mode's crypto. */
export const scriptArb = (p: Protocol): fc.Arbitrary<string> =>
  fc
    .constantFrom<1 | 2>(1, 2)
    .chain((v) => exprArb(v).map((e) => ({ v, e })))
    .map(({ v, e }) => `base64:${encodeBase64(scriptBytes(v, e, p))}`);

/**
 * An optional script as SetScript/SetAssetScript take it: absent, "" (both None for the
 * node) or a script. Library bug worked around: transactions-factory 2.1.4 encodes ""
 * as a present, empty script (`01 00 00`) where the node reads None, so the node would
 * refuse the signature; only js-sdk 3.4.7 (which writes `00`) gets "".
 */
export const optionalScriptArb = (env: OracleEnv): fc.Arbitrary<string | undefined> =>
  fc.option(env.mode.library === 'tf2' ? scriptArb(env.protocol) : fc.oneof(scriptArb(env.protocol), fc.constant('')), { nil: undefined });

const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

const setScript: OracleCase = {
  name: 'SetScript',
  type: 13,
  version: 1,
  fields: (env: OracleEnv) =>
    fc.record(
      {
        chainId: fc.constant(CHAIN_ID),
        script: optionalScriptArb(env),
        // WE allows 128 characters; both libraries refuse more than 128 bytes.
        name: fc.string({ unit: 'binary', minLength: 1, maxLength: 128 }).filter((s) => byteLength(s) <= 128),
        description: fc.oneof(fc.constant(''), fc.string({ unit: 'binary', maxLength: 300 })),
        fee: feeArb,
        timestamp: timestampArb,
      },
      { requiredKeys: ['chainId', 'name', 'description', 'fee', 'timestamp'] },
    ),
};

export const cases: OracleCase[] = [setScript];
