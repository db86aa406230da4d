/**
 * One request through Fastify's inject, as the route tests of test/api read answers: status,
 * text, content type and the body parsed with the int64-exact JSON codec (undefined when the
 * body is not JSON).
 */
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { parseJson } from '../../src/protocol/json.js';

export interface Answer {
  readonly status: number;
  readonly text: string;
  readonly contentType: string;
  readonly headers: Readonly<Record<string, unknown>>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly json: any;
}

export interface InjectOptions {
  readonly headers?: Readonly<Record<string, string>>;
  /** A string is sent as is; anything else as JSON (bigints as decimal strings). */
  readonly body?: unknown;
  /** Content type of the body; application/json unless given. */
  readonly contentType?: string;
  /** Bytes sent as they are (with `contentType`), instead of `body`. */
  readonly raw?: Buffer;
}

const jsonOf = (value: unknown): string => JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

export async function inject(app: FastifyInstance, method: 'GET' | 'POST' | 'DELETE', url: string, options: InjectOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  const payload = options.raw ?? (options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : jsonOf(options.body));
  if (payload !== undefined || options.contentType !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
  const r = await app.inject({ method, url, headers, ...(payload !== undefined ? { payload } : {}) });
  let json: unknown;
  try {
    json = parseJson(r.body);
  } catch {
    json = undefined;
  }
  return { status: r.statusCode, text: r.body, contentType: String(r.headers['content-type'] ?? ''), headers: r.headers, json };
}

/**
 * A WE error answer of the typed client (src/api/client.ts): status, code and (when given)
 * the message, exactly or by pattern. Returns the body for further checks.
 */
export function expectError(
  r: { readonly status: number; readonly body: unknown; readonly text: string },
  status: number,
  code: number,
  message?: string | RegExp,
): Record<string, unknown> {
  assert.equal(r.status, status, r.text);
  const body = r.body as Record<string, unknown>;
  assert.equal(body?.['error'], code, r.text);
  if (typeof message === 'string') assert.equal(body['message'], message);
  else if (message !== undefined) assert.match(body['message'] as string, message);
  return body;
}

/** The same for an answer of `inject`. */
export function assertError(r: Answer, status: number, code: number, message?: string | RegExp): void {
  expectError({ status: r.status, body: r.json, text: r.text }, status, code, message);
}
