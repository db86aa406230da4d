/**
 * The node's public REST API as the explorer reads it: GETs only, never an API key.
 *
 * Paths are resolved against the page's own address (`…/explorer/` → `…/`), so a reverse
 * proxy's prefix in front of the node is kept. int64 values arrive as strings
 * (`large-significand-format=string`), so amounts keep every digit.
 *
 * Failures are typed: `NodeError` for an answer the node gave (WE's `{error, message}` or
 * `{status: "error", details}`), `RouteAbsent` for the catch-all 404 of a route this node
 * does not serve, `Unreachable` when no answer came. The connection state (`connection`)
 * follows the answers: after a failure it probes `/node/status` until the node answers again
 * and then bumps its epoch, which every page uses to reload.
 */

const ACCEPT = 'application/json;large-significand-format=string';
const TIMEOUT_MS = 10_000;
/** The text of WE's (and Weft's) catch-all 404. */
const CATCH_ALL_404 = 'The requested resource could not be found.';

export class NodeError extends Error {
  constructor(
    readonly status: number,
    /** WE's numeric error code, when the body had one. */
    readonly code: number | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** The node answered 404 with its catch-all text: it has no such route. */
export class RouteAbsent extends Error {
  constructor(readonly path: string) {
    super(`This node does not serve ${path}`);
  }
}

export class Unreachable extends Error {}

type Listener = () => void;

/** Whether the node answers, and an epoch that changes each time it comes back. */
export class Connection {
  online = true;
  epoch = 0;
  /** Last time (ms, page clock) any answer arrived. */
  lastAnswerAt = 0;
  private readonly listeners = new Set<Listener>();
  private probing = false;

  constructor(private readonly probe: () => Promise<void>) {}

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  answered(): void {
    this.lastAnswerAt = Date.now();
    if (this.online) return;
    this.online = true;
    this.epoch++;
    this.emit();
  }

  failed(): void {
    if (this.online) {
      this.online = false;
      this.emit();
    }
    if (!this.probing) void this.probeUntilBack();
  }

  private async probeUntilBack(): Promise<void> {
    this.probing = true;
    let delay = 500;
    while (!this.online) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      try {
        await this.probe();
      } catch {
        delay = Math.min(delay * 2, 3000);
      }
    }
    this.probing = false;
  }

  private emit(): void {
    for (const l of [...this.listeners]) l();
  }
}

function errorOf(status: number, body: unknown, text: string): NodeError {
  if (typeof body === 'object' && body !== null) {
    const b = body as { error?: unknown; message?: unknown; details?: unknown };
    if (typeof b.error === 'number') return new NodeError(status, b.error, typeof b.message === 'string' ? b.message : `error ${b.error}`);
    if (typeof b.details === 'string') return new NodeError(status, undefined, b.details);
  }
  return new NodeError(status, undefined, text.trim() === '' ? `HTTP ${status}` : text.trim());
}

/** A NodeError that says the thing asked for does not exist. */
export function isNotFound(e: unknown): boolean {
  if (!(e instanceof NodeError)) return false;
  return e.status === 404 || (e.status === 200 && /^No (block|child)/.test(e.message));
}

/** The REST API of the node at `root` (the node serving the page: `new URL('../', document.baseURI)`). */
export class NodeApi {
  readonly connection: Connection;
  private readonly immutable = new Map<string, Promise<unknown>>();

  constructor(private readonly root: URL) {
    this.connection = new Connection(async () => {
      await this.getJson('/node/status');
    });
  }

  private async request(path: string): Promise<Response> {
    try {
      return await fetch(new URL(path.replace(/^\//, ''), this.root), { headers: { accept: ACCEPT }, signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch {
      this.connection.failed();
      throw new Unreachable(`The node did not answer ${path}`);
    }
  }

  /** GET a JSON answer; the `{status: "error", details}` bodies WE sends with 200 are errors too. */
  async getJson<T>(path: string): Promise<T> {
    const response = await this.request(path);
    const text = await response.text().catch(() => '');
    this.connection.answered();
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (response.status === 404 && body === undefined && text.trim() === CATCH_ALL_404) throw new RouteAbsent(path);
    if (!response.ok) throw errorOf(response.status, body, text);
    const b = body as { status?: unknown; details?: unknown } | undefined;
    if (b?.status === 'error' && typeof b.details === 'string') throw new NodeError(200, undefined, b.details);
    return body as T;
  }

  /** getJson for answers that never change (an asset's decimals, a confirmed block), asked once per page load. */
  getImmutable<T>(path: string): Promise<T> {
    let answer = this.immutable.get(path) as Promise<T> | undefined;
    if (answer === undefined) {
      answer = this.getJson<T>(path);
      this.immutable.set(path, answer);
      answer.catch(() => this.immutable.delete(path));
    }
    return answer;
  }

  /** Like getJson, but a "not found" answer (WE's 404s, 200 `No block for this height`) is undefined. */
  async findJson<T>(path: string): Promise<T | undefined> {
    try {
      return await this.getJson<T>(path);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }
}

/** Path segment of a user-given value. */
export const seg = (value: string): string => encodeURIComponent(value);
