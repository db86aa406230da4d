/**
 * `/utils/*` (WE's UtilsApiRoute): hashes of any text with the network's fast and secure
 * hash (Blake2b-256 and Keccak-256(Blake2b-256) for `waves` crypto, Streebog-256 for
 * `gost`), the node's clocks, and re-reading the keystore (admin).
 *
 * The hash routes read the raw body as UTF-8 text whatever its content type, as WE's
 * `entity(as[String])` does; no body hashes the empty string. `hash/fast` is one of the
 * methods rule PKI-1 turns off while `node.crypto.pki.mode = ON`.
 *
 * `script/compile` compiles RIDE source (versions 1 and 2, `assetScript=true` for the
 * asset context) with WE's compiler and limits; `script/estimate` reads a compiled script
 * (Base64, `base64:` prefix optional) with WE's script reader and answers its complexity
 * and WE's text of its expression. Both answer `extraFee`, which WE's OpenAPI documents
 * and WE 1.14 never charges: it is always 0. Every failure is 305 with WE's message.
 *
 * Beyond WE: both run on the script compiler's threads (ride/script-compiler-pool.ts:
 * a time and a memory limit per job, refused as `Script is too complex: …`; a bounded queue,
 * then 503), and take at most SCRIPT_BODY_LIMIT bytes (WE's 611 past it) — WE takes 3 MiB and
 * a 2.8 MB source once held the event loop for ~30 s.
 */
import { Type } from '@sinclair/typebox';
import { decodeBase64, encodeBase58, EncodingError } from '../../crypto/encoding.js';
import { readBooleanQuery } from '../account-reads.js';
import { ExtraFee, SCRIPT_EXTRA_FEE } from '../account-schemas.js';
import { optionalQuery, text } from '../params.js';
import { defineRoutes, route } from '../routing.js';
import * as S from '../schemas.js';
import { scriptCompilerError, WeError } from '../../errors/catalogue.js';

const err = (description: string) => ({ description, schema: S.ErrorBody });

const HashingResult = Type.Object(
  { message: Type.String({ description: 'The text as received' }), hash: Type.String({ description: 'Base58 of the hash of its UTF-8 bytes' }) },
  { $id: 'HashingResult' },
);

const TimeResult = Type.Object(
  {
    system: S.Int64({ description: "The machine's clock, ms" }),
    NTP: S.Int64({ description: 'Node time (NTP-corrected in WE), ms' }),
  },
  { $id: 'TimeResult' },
);

/**
 * The largest body the script routes read: eight times the largest script (8 KiB), room for
 * any source WE can compile to one with comments to spare, and for the Base64 of any script
 * WE reads many times over (a longer one still gets WE's `Script is too large` message).
 */
export const SCRIPT_BODY_LIMIT = 64 * 1024;

/** WE 1.14 computes no extra fee for scripted accounts or smart assets. */

const EstimationResult = Type.Object(
  {
    script: Type.String({ description: 'The script as sent' }),
    complexity: S.Int64({ description: "WE's estimate of its complexity" }),
    scriptText: Type.String({ description: "WE's text of its expression tree" }),
    extraFee: ExtraFee,
  },
  { $id: 'EstimationResult' },
);

const CompilationResult = Type.Object(
  {
    script: Type.String({ description: 'The compiled script, `base64:`…' }),
    complexity: S.Int64({ description: "WE's estimate of its complexity" }),
    extraFee: ExtraFee,
  },
  { $id: 'CompilationResult' },
);

/** WE's ScriptParseError message without its `ScriptParseError(…)` wrapper (Script.fromBase64String's `parseError.message`). */
function parseErrorMessage(e: WeError): string {
  const m = /^ScriptParseError\((.*)\)$/s.exec(e.message);
  return m === null ? e.message : m[1]!;
}

const MessageAnswer = Type.Object({ message: Type.String() }, { $id: 'MessageAnswer' });

const textBody = { schema: Type.String({ description: 'Any text, any content type' }), read: 'text', description: 'The text to hash (raw body)' } as const;

const utf8 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'utf8'));

export const utilsRoutes = defineRoutes({ name: 'utils', description: 'Hashes, node time, keystore reload' }, [
  route({
    method: 'POST',
    path: '/utils/hash/secure',
    auth: 'user',
    summary: "The network's secure hash of a text",
    description: '`waves` crypto: Keccak-256(Blake2b-256(UTF-8 bytes)); `gost`: its secure hash.',
    body: textBody,
    responses: { 200: HashingResult },
    handler: ({ body }, ctx) => ({ message: body, hash: encodeBase58(ctx.services.protocol.crypto.secureHash(utf8(body))) }),
  }),
  route({
    method: 'POST',
    path: '/utils/hash/fast',
    auth: 'user',
    summary: "The network's fast hash of a text",
    description: '`waves` crypto: Blake2b-256(UTF-8 bytes); `gost`: its fast hash. Unavailable while `node.crypto.pki.mode = ON`.',
    body: textBody,
    unavailableInPkiMode: true,
    responses: { 200: HashingResult, 400: err('199 unavailable in PKI mode ON') },
    handler: ({ body }, ctx) => ({ message: body, hash: encodeBase58(ctx.services.protocol.crypto.fastHash(utf8(body))) }),
  }),
  route({
    method: 'POST',
    path: '/utils/script/compile',
    auth: 'user',
    summary: 'Compiles RIDE source (versions 1 and 2) to a script',
    description:
      '`{-# LANGUAGE_VERSION 2 #-}` selects version 2 (default 1). The script must return Boolean, stay within complexity 2000 and 8192 bytes. `assetScript=true` compiles against the asset-script context (transactions without proofs).',
    body: { schema: Type.String({ description: 'RIDE source' }), read: 'text', description: 'The RIDE source (raw body, any content type)' },
    query: { assetScript: optionalQuery(text('`true` for an asset script (Akka booleans: true/false, yes/no, on/off, 1/0)')) },
    bodyLimit: SCRIPT_BODY_LIMIT,
    responses: {
      200: CompilationResult,
      400: err(
        "305 the compiler's message (`Compilation failed: … in <start>-<end>`, `Script should return boolean`, `Script is too complex: …` — also past the compiler's time or memory limit —, `Script is too deeply nested: …`, …); 611 a source over 64 KiB",
      ),
      503: err('642 too many scripts being compiled or estimated; try again later'),
    },
    handler: async ({ body, query }, ctx) => {
      const r = await ctx.scriptCompiler.compile(body, { assetScript: readBooleanQuery(query.assetScript) ?? false, crypto: ctx.services.protocol });
      if (!r.ok) throw scriptCompilerError(r.error);
      return { script: `base64:${Buffer.from(r.script.bytes).toString('base64')}`, complexity: BigInt(r.script.complexity), extraFee: SCRIPT_EXTRA_FEE };
    },
  }),
  route({
    method: 'POST',
    path: '/utils/script/estimate',
    auth: 'user',
    summary: 'Complexity and expression text of a compiled script',
    body: {
      schema: Type.String({ description: 'Compiled script, Base64 (`base64:` prefix optional)' }),
      read: 'text',
      description: 'The compiled script (raw body)',
    },
    bodyLimit: SCRIPT_BODY_LIMIT,
    responses: {
      200: EstimationResult,
      400: err('305 empty body, bad Base64, or a script WE would not read (checksum, version, size, complexity); 611 a body over 64 KiB'),
      503: err('642 too many scripts being compiled or estimated; try again later'),
    },
    handler: async ({ body }, ctx) => {
      if (body === '') throw scriptCompilerError('Cannot estimate empty script: expected compiled script in Base64, got nothing');
      let bytes: Uint8Array;
      try {
        bytes = decodeBase64(body);
      } catch (e) {
        if (!(e instanceof EncodingError)) throw e;
        throw scriptCompilerError(`Unable to decode base64: ${e.message}`);
      }
      try {
        const estimated = await ctx.scriptCompiler.estimate(bytes, ctx.services.protocol);
        return { script: body, complexity: estimated.complexity, scriptText: estimated.scriptText, extraFee: SCRIPT_EXTRA_FEE };
      } catch (e) {
        if (e instanceof WeError && e.code === 199) throw scriptCompilerError(parseErrorMessage(e));
        throw e;
      }
    },
  }),
  route({
    method: 'GET',
    path: '/utils/time',
    auth: 'user',
    summary: "The machine's clock and the node time",
    responses: { 200: TimeResult },
    handler: (_req, ctx) => ({ system: ctx.services.node.systemTime(), NTP: ctx.services.now() }),
  }),
  route({
    method: 'POST',
    path: '/utils/reload-wallet',
    auth: 'admin',
    summary: 'Re-reads the keystore file (after it was changed outside the node)',
    responses: { 200: MessageAnswer, 403: err('2 API key missing or wrong') },
    handler: (_req, ctx) => {
      ctx.services.wallet.reload();
      return { message: 'Wallet reloaded successfully' };
    },
  }),
]);
