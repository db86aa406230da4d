/**
 * The target node's REST API as anchoring uses it (WE's AnchoringScheduler calls): broadcast
 * a transaction, look one up (mined, or in the pool), read the height. Every call carries
 * the authorization headers of the target (none for api-key, a bearer token for OAuth2),
 * has a deadline, and ends at once when the node stops. A path in the configured node
 * address prefixes every call (`http://host/node-1` → `http://host/node-1/blocks/height`).
 */
import { parseJson } from '../protocol/json.js';
import { InternalError } from '../errors/internal.js';

/** What the target node is sent to authenticate the node. */
export interface TargetAuthorization {
  /** Headers for the next call (`Authorization: Bearer …` in OAuth2 mode, none in api-key mode). */
  headers(): Record<string, string>;
}

/** An answer of the target node: its HTTP status and body text. */
export interface TargetAnswer {
  readonly status: number;
  readonly text: string;
}

/** No answer at all: connection refused or reset, name not resolved, deadline passed. */
export class TargetUnreachable extends InternalError {
  override readonly name = 'TargetUnreachable';
}

export interface TargetNodeOptions {
  /** Deadline of one call. */
  readonly timeoutMs: number;
  /** The HTTP client (Node's fetch by default). */
  readonly fetch?: typeof fetch;
}

/** Default deadline of a call to the target (WE leaves Akka HTTP's defaults). */
export const TARGET_CALL_TIMEOUT_MS = 30_000;

export class TargetNode {
  private readonly base: string;
  private readonly fetch: typeof fetch;

  constructor(
    nodeAddress: string,
    private readonly auth: TargetAuthorization,
    private readonly options: TargetNodeOptions = { timeoutMs: TARGET_CALL_TIMEOUT_MS },
  ) {
    this.base = nodeAddress.replace(/\/+$/, '');
    this.fetch = options.fetch ?? fetch;
  }

  /** The base URL calls go to. */
  get url(): string {
    return this.base;
  }

  /** `POST /transactions/broadcast` with a signed transaction's JSON text. */
  broadcast(json: string, signal: AbortSignal): Promise<TargetAnswer> {
    return this.call('POST', '/transactions/broadcast', signal, json);
  }

  /** `GET /transactions/info/{id}`: the mined transaction with its `height`. */
  transactionInfo(id: string, signal: AbortSignal): Promise<TargetAnswer> {
    return this.call('GET', `/transactions/info/${encodeURIComponent(id)}`, signal);
  }

  /** `GET /transactions/unconfirmed/info/{id}`: the transaction in the target's pool. */
  unconfirmedInfo(id: string, signal: AbortSignal): Promise<TargetAnswer> {
    return this.call('GET', `/transactions/unconfirmed/info/${encodeURIComponent(id)}`, signal);
  }

  /** `GET /blocks/height`. */
  height(signal: AbortSignal): Promise<TargetAnswer> {
    return this.call('GET', '/blocks/height', signal);
  }

  private async call(method: 'GET' | 'POST', path: string, signal: AbortSignal, body?: string): Promise<TargetAnswer> {
    const headers: Record<string, string> = { ...this.auth.headers(), accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      return await withDeadline(signal, this.options.timeoutMs, async (callSignal) => {
        const response = await this.fetch(`${this.base}${path}`, {
          method,
          headers,
          ...(body === undefined ? {} : { body }),
          signal: callSignal,
          redirect: 'manual',
        });
        return { status: response.status, text: await response.text() };
      });
    } catch (e) {
      if (signal.aborted) throw signal.reason;
      throw new TargetUnreachable(`${method} ${this.base}${path}: ${describeFetchError(e)}`, { cause: e });
    }
  }
}

/** A deadline error (a `TimeoutError`, as AbortSignal.timeout gives). */
function deadlinePassed(ms: number): Error {
  const e = new Error(`no answer within ${ms} ms`);
  e.name = 'TimeoutError';
  return e;
}

/**
 * Runs `call` with a signal that aborts when `signal` does or after `ms`, and lets go of
 * both when it ends (a long-lived stop signal gains no listener per call).
 */
export async function withDeadline<T>(signal: AbortSignal, ms: number, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => controller.abort(deadlinePassed(ms)), ms);
  try {
    return await call(controller.signal);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
}

/** The reason of a failed fetch in words (undici hides it in `cause`). */
export function describeFetchError(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  if (e.name === 'TimeoutError') return e.message;
  const cause = (e as { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: string }).code;
    return code === undefined ? cause.message : `${code} ${cause.message}`.trim();
  }
  return e.message;
}

/** The JSON object of an answer, or undefined when the body is not one. */
export function answerObject(answer: TargetAnswer): Record<string, unknown> | undefined {
  try {
    const v = parseJson(answer.text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A numeric `height` member of an answer (WE reads it whatever the HTTP status). */
export function answerHeight(answer: TargetAnswer): number | undefined {
  const h = answerObject(answer)?.['height'];
  if (typeof h === 'number' && Number.isSafeInteger(h)) return h;
  return undefined;
}

/** What an error answer says: WE's `message` or `details`, else the status and text. */
export function answerReason(answer: TargetAnswer): string {
  const o = answerObject(answer);
  const said = o?.['message'] ?? o?.['details'];
  const text = typeof said === 'string' ? said : answer.text.slice(0, 200);
  return `HTTP ${answer.status}${text === '' ? '' : `: ${text}`}`;
}
