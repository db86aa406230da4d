/**
 * JSON in and out of the HTTP layer.
 *
 * In: `application/json` bodies (any charset parameter) are parsed with the protocol's
 * int64-exact parser; a body that is not JSON is WE's error 1 with `validationErrors: {}`.
 * An empty body, or a body of another content type, is "no JSON entity": WE's routes
 * then reject the request (see `BodySpec.whenAbsent`).
 *
 * Out: int64 values (bigint) are bare JSON numbers as WE writes them; a client that sends
 * `Accept: application/json; large-significand-format=string` gets them as strings.
 */
import type { FastifyInstance } from 'fastify';
import { JsonSyntaxError, parseJson, stringifyJson } from '../protocol/json.js';
import { bodyIsNotJson } from '../errors/catalogue.js';

/** WE's request size limit (akka.http.server.parsing.max-content-length = 3m). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/** The parsed body of a request that carried no JSON entity. */
export const NO_JSON_BODY: unique symbol = Symbol('no JSON body');

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
export const TEXT_CONTENT_TYPE = 'text/plain; charset=UTF-8';

/**
 * A JSON entity as received: parsed only by routes that read a body (WE's routes without
 * one never look at the entity, so a malformed body there is no error).
 */
export class JsonEntity {
  constructor(readonly text: string) {}

  /** The parsed value; WE's error 1 with `validationErrors: {}` if it is not JSON. */
  parse(): unknown {
    try {
      return parseJson(this.text);
    } catch (e) {
      if (e instanceof JsonSyntaxError) throw bodyIsNotJson();
      throw e;
    }
  }
}

/** A body of another content type, kept for the few routes that read raw text (`BodySpec.read = 'text'`). */
export class RawEntity {
  constructor(readonly bytes: Buffer) {}

  text(): string {
    return this.bytes.toString('utf8');
  }
}

/** Replaces Fastify's body parsers with WE's rules (the size limit applies to every body). */
export function installBodyParsers(app: FastifyInstance, bodyLimit: number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (_req, body, done) => {
    const text = body as string;
    done(null, text.length === 0 ? NO_JSON_BODY : new JsonEntity(text));
  });
  // Any other content type: read (so the size limit applies); only raw-text routes look at it.
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_req, body, done) => done(null, new RawEntity(body as Buffer)));
}

/** True when the Accept header asks for int64 values as strings. */
export function wantsInt64AsString(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  for (const range of accept.split(',')) {
    const [type, ...params] = range.split(';').map((s) => s.trim().toLowerCase());
    if (type !== 'application/json' && type !== 'application/*' && type !== '*/*') continue;
    for (const p of params) {
      const [k, v] = p.split('=').map((s) => s.trim());
      if (k === 'large-significand-format' && v?.replace(/^"|"$/g, '') === 'string') return true;
    }
  }
  return false;
}

/** JSON text of an answer for a request with this Accept header. */
export function jsonText(value: unknown, accept: string | undefined): string {
  return stringifyJson(value, { int64AsString: wantsInt64AsString(accept) });
}
