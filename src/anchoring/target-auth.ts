/**
 * Authentication to the target node (WE's TargetnetAuthTokenProvider and AuthServiceWorker).
 *
 * - `api-key`: nothing is sent, and the provider is always alive (the routes anchoring uses
 *   are open on a target in api-key mode).
 * - `oauth2`: an access token is fetched from the authorization service — `POST <url>` with
 *   no body and `Authorization: Bearer <authorization-token>` — at start and again after
 *   every `token-update-interval`; it goes out as `Authorization: Bearer <access_token>`
 *   (`uninitialized` until the first fetch succeeds, as in WE). The answer must be JSON with
 *   `access_token` and `refresh_token` (extra members ignored; `refresh_token` is not used).
 *   One 307/308 redirect is followed when it stays on the same host. A failed fetch marks
 *   the provider not alive, is logged, and is retried after 10 s. Beyond WE, an answer whose
 *   status is not 2xx is a failure (WE reads only the body).
 */
import type { TargetnetAuth } from './settings.js';
import { ANCHORING_DEFAULTS } from './settings.js';
import type { TargetAuthorization } from './target-node.js';
import { describeFetchError, withDeadline } from './target-node.js';
import { isAbort, type AnchoringClock } from './timing.js';
import { InternalError } from '../errors/internal.js';

export interface AuthLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

/** Authorization to the target, and whether it is usable now (the `anchoring-auth` health). */
export interface TargetAuthProvider extends TargetAuthorization {
  /** Whether the latest token fetch succeeded (always true without OAuth2). */
  isAlive(): boolean;
  /** Starts fetching tokens (nothing to do without OAuth2). */
  start(): void;
  /** Stops fetching; resolves once the fetch loop has ended. */
  stop(): Promise<void>;
}

export interface TokenProviderOptions {
  readonly clock: AnchoringClock;
  readonly log: AuthLog;
  /** Deadline of one token fetch. */
  readonly timeoutMs: number;
  readonly fetch?: typeof fetch;
  /** Pause after a failed fetch (WE: ~10 s). */
  readonly errorPauseMs?: number;
}

/** The provider for the configured auth type. */
export function targetAuthProvider(auth: TargetnetAuth, options: TokenProviderOptions): TargetAuthProvider {
  if (auth.type === 'api-key') {
    return { headers: () => ({}), isAlive: () => true, start: () => undefined, stop: () => Promise.resolve() };
  }
  return new OAuth2TokenProvider(auth, options);
}

/** WE's AuthToken: the JSON of the authorization service. */
interface AuthToken {
  readonly accessToken: string;
  readonly refreshToken: string;
}

class AuthServiceError extends InternalError {}

class OAuth2TokenProvider implements TargetAuthProvider {
  private token = 'uninitialized';
  private alive = false;
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private readonly fetch: typeof fetch;

  constructor(
    private readonly auth: Extract<TargetnetAuth, { type: 'oauth2' }>,
    private readonly o: TokenProviderOptions,
  ) {
    this.fetch = o.fetch ?? fetch;
  }

  headers(): Record<string, string> {
    return { authorization: `Bearer ${this.token}` };
  }

  isAlive(): boolean {
    return this.alive;
  }

  start(): void {
    this.o.log.debug({ url: this.auth.authorizationServiceUrl }, 'targetnet auth token provider starting');
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.abort.abort(new Error('anchoring stopped'));
    await this.loop;
  }

  private async run(): Promise<void> {
    const signal = this.abort.signal;
    while (!signal.aborted) {
      let pauseMs: number;
      try {
        const token = await this.fetchToken(signal);
        this.token = token.accessToken;
        this.alive = true;
        this.o.log.info({ url: this.auth.authorizationServiceUrl }, 'targetnet auth token updated');
        pauseMs = this.auth.tokenUpdateIntervalMs;
      } catch (e) {
        if (isAbort(e, signal)) return;
        this.alive = false;
        this.o.log.error(
          { url: this.auth.authorizationServiceUrl, reason: e instanceof Error ? e.message : String(e) },
          'targetnet auth service failed to give a token',
        );
        pauseMs = this.o.errorPauseMs ?? ANCHORING_DEFAULTS.tokenErrorPauseMs;
      }
      try {
        await this.o.clock.sleep(pauseMs, signal);
      } catch (e) {
        if (isAbort(e, signal)) return;
        throw e;
      }
    }
  }

  private async fetchToken(signal: AbortSignal): Promise<AuthToken> {
    this.o.log.info({ url: this.auth.authorizationServiceUrl }, 'Sending authorization request');
    let url = this.auth.authorizationServiceUrl;
    for (let redirects = 0; ; redirects++) {
      const from = url;
      let answer: { status: number; location: string | null; text: string };
      try {
        answer = await withDeadline(signal, this.o.timeoutMs, async (callSignal) => {
          const response = await this.fetch(from, {
            method: 'POST',
            headers: { authorization: `Bearer ${this.auth.authorizationToken}` },
            redirect: 'manual',
            signal: callSignal,
          });
          return { status: response.status, location: response.headers.get('location'), text: await response.text() };
        });
      } catch (e) {
        if (signal.aborted) throw signal.reason;
        throw new AuthServiceError(`POST ${url}: ${describeFetchError(e)}`);
      }
      if ((answer.status === 307 || answer.status === 308) && answer.location !== null && redirects === 0) {
        const next = new URL(answer.location, url);
        if (next.host !== new URL(url).host) throw new AuthServiceError(`POST ${url}: redirected to another host (${next.host}), not followed`);
        url = next.toString();
        continue;
      }
      if (answer.status < 200 || answer.status > 299) throw new AuthServiceError(`POST ${url}: HTTP ${answer.status} ${answer.text.slice(0, 200)}`.trim());
      return readAuthToken(answer.text, url);
    }
  }
}

function readAuthToken(text: string, url: string): AuthToken {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AuthServiceError(`POST ${url}: the answer is not JSON`);
  }
  const o = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const accessToken = o['access_token'];
  const refreshToken = o['refresh_token'];
  if (typeof accessToken !== 'string' || typeof refreshToken !== 'string')
    throw new AuthServiceError(`POST ${url}: the answer has no access_token and refresh_token`);
  return { accessToken, refreshToken };
}
