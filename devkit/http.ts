/** HTTP requests of the tests that drive node processes: one request, one answer, with a deadline. */

/** The API key of dev nodes and test devnets (`weft-dev-api-key`). */
export const DEV_API_KEY = 'weft-dev-api-key';

/** An HTTP answer: status, raw text, and the parsed JSON when the body is JSON. */
export interface Answer {
  readonly status: number;
  readonly text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly json: any;
}

export interface RequestOptions {
  /** The X-API-Key header: the dev key by default, null for none. */
  readonly apiKey?: string | null;
  readonly timeoutMs?: number;
  readonly contentType?: string;
  /** The Accept header (e.g. `application/json;large-significand-format=string` for int64 values as strings). */
  readonly accept?: string;
}

/** `method baseUrl+path` with `body` (a string as is, anything else as JSON). */
export async function httpRequest(baseUrl: string, method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  const apiKey = options.apiKey === undefined ? DEV_API_KEY : options.apiKey;
  if (apiKey !== null) headers['X-API-Key'] = apiKey;
  if (body !== undefined) headers['Content-Type'] = options.contentType ?? 'application/json';
  if (options.accept !== undefined) headers['Accept'] = options.accept;
  const r = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
  });
  const text = await r.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: r.status, text, json };
}
