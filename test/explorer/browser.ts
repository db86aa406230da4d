/**
 * A real browser for the explorer tests: Debian's chromium driven by playwright-core
 * (never a downloaded browser), headless, with a fresh profile directory per run.
 *
 * Everything the page writes to its console is kept and judged: a JavaScript error, or any
 * console error or warning, fails the test; so does any request that is not a GET or that
 * carries credentials (an API key, a token). The only entries accepted are chromium's own
 * log lines for answers of the node's REST API that a test expects — a 4xx the page asked
 * for on purpose (a lookup that misses, a route this node does not serve), and refused
 * connections while a test has the node down — each checked with `expectConsole`.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's chromium (`.ci/run` installs the package when it is missing). */
export const CHROMIUM = process.env['WEFT_CHROMIUM'] ?? '/usr/bin/chromium';

/** Screenshots land under the test output directory (dist/test-output/explorer/), never committed. */
export const SCREENSHOT_DIR = fileURLToPath(new URL('../../test-output/explorer/', import.meta.url));

const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A console line the page produced (or chromium for it). */
export interface ConsoleEntry {
  readonly kind: 'answer-4xx' | 'refused' | 'error';
  readonly text: string;
  /** For network lines: the URL's path. */
  readonly path?: string;
}

export interface ConsoleExpectation {
  /** Paths (regular expressions) whose 4xx answers the page may have logged since the last check. */
  readonly answers?: readonly RegExp[];
  /** Whether refused connections to the node may have been logged (the node was down). */
  readonly refused?: boolean;
}

export class ExplorerBrowser {
  private entries: ConsoleEntry[] = [];

  private constructor(
    private readonly context: BrowserContext,
    readonly page: Page,
    private readonly profileDir: string,
    private readonly nodeUrl: string,
  ) {
    const api = new URL('/', nodeUrl);
    page.on('pageerror', (e) => this.entries.push({ kind: 'error', text: `page error: ${e.stack ?? e.message}` }));
    // The explorer reads the public API only: no request may carry credentials.
    page.on('request', (r) => {
      const headers = r.headers();
      if (headers['x-api-key'] !== undefined || headers['authorization'] !== undefined || headers['x-contract-api-token'] !== undefined) {
        this.entries.push({ kind: 'error', text: `a request with credentials: ${r.method()} ${r.url()}` });
      }
      if (r.method() !== 'GET') this.entries.push({ kind: 'error', text: `a request that is no GET: ${r.method()} ${r.url()}` });
    });
    page.on('console', (m) => {
      if (m.type() !== 'error' && m.type() !== 'warning' && m.type() !== 'assert') return;
      const url = m.location().url;
      const onApi = url.startsWith(api.href) && !url.startsWith(new URL('/explorer/', api).href);
      const path = onApi ? new URL(url).pathname + new URL(url).search : undefined;
      if (onApi && /^Failed to load resource: the server responded with a status of 4\d\d/.test(m.text()))
        this.entries.push({ kind: 'answer-4xx', text: m.text(), path });
      else if (onApi && /^Failed to load resource: net::ERR_(CONNECTION_REFUSED|CONNECTION_RESET|EMPTY_RESPONSE|CONNECTION_CLOSED)/.test(m.text()))
        this.entries.push({ kind: 'refused', text: m.text(), path });
      else this.entries.push({ kind: 'error', text: `console.${m.type()}: ${m.text()} (${url})` });
    });
  }

  /** Opens chromium on a fresh profile, at phone or desktop width. */
  static async open(nodeUrl: string, viewport = { width: 1280, height: 900 }): Promise<ExplorerBrowser> {
    if (!existsSync(CHROMIUM))
      throw new Error(`No chromium at ${CHROMIUM}: install Debian's package (apt-get install chromium; .ci/run does) or set WEFT_CHROMIUM`);
    const profileDir = mkdtempSync(join(tmpdir(), 'weft-chromium-'));
    const context = await chromium.launchPersistentContext(profileDir, { executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS, viewport });
    const page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(20_000);
    return new ExplorerBrowser(context, page, profileDir, nodeUrl);
  }

  /**
   * Loads an explorer page (`#/tx/…`) afresh and waits until its modules run. (A hash-only
   * change of the current URL would keep the previous page on screen for a moment.)
   */
  async goto(hash = ''): Promise<void> {
    await this.page.goto('about:blank');
    await this.page.goto(new URL(`/explorer/${hash}`, this.nodeUrl).href);
    await this.page.locator('header.top').waitFor();
  }

  /** The page's location hash, decoded. */
  hash(): Promise<string> {
    return this.page.evaluate<string>('decodeURIComponent(location.hash)');
  }

  /** Waits until the decoded location hash matches. */
  async waitForHash(pattern: RegExp, timeoutMs = 15_000): Promise<void> {
    await this.page.waitForFunction(`new RegExp(${JSON.stringify(pattern.source)}).test(decodeURIComponent(location.hash))`, undefined, { timeout: timeoutMs });
  }

  /** Waits until the page's connection state is `online`. */
  async waitForConnection(online: boolean, timeoutMs = 20_000): Promise<void> {
    await this.page.waitForFunction(
      `document.querySelector('[data-testid="connection"]')?.getAttribute('data-online') === ${JSON.stringify(String(online))}`,
      undefined,
      {
        timeout: timeoutMs,
      },
    );
  }

  /** Types into the search box and submits. */
  async search(query: string): Promise<void> {
    await this.page.fill('input[name="q"]', query);
    await this.page.press('input[name="q"]', 'Enter');
  }

  /** The text of the element with this data-testid (waits for it). */
  async text(testId: string): Promise<string> {
    const locator = this.page.getByTestId(testId).first();
    await locator.waitFor();
    return (await locator.innerText()).trim();
  }

  /**
   * Checks the console lines since the last check: no errors at all, and network lines only
   * where expected. Returns the 4xx paths seen (tests may assert on them).
   */
  expectConsole(expected: ConsoleExpectation = {}): string[] {
    const entries = this.entries;
    this.entries = [];
    const problems = entries.filter(
      (e) =>
        e.kind === 'error' ||
        (e.kind === 'refused' && expected.refused !== true) ||
        (e.kind === 'answer-4xx' && !(expected.answers ?? []).some((r) => r.test(e.path ?? ''))),
    );
    if (problems.length > 0)
      throw new Error(`unexpected console output:\n${problems.map((p) => `  ${p.text}${p.path === undefined ? '' : ` [${p.path}]`}`).join('\n')}`);
    return entries.filter((e) => e.kind === 'answer-4xx').map((e) => e.path ?? '');
  }

  /** The text of the element with this data-testid once it matches `pattern` (waits for that). */
  async textMatching(testId: string, pattern: RegExp): Promise<string> {
    const locator = this.page.getByTestId(testId).filter({ hasText: pattern }).first();
    await locator.waitFor();
    return (await locator.innerText()).trim();
  }

  /** Whether the page is wider than the viewport (a phone would scroll sideways). */
  async overflowsHorizontally(): Promise<boolean> {
    return this.page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth + 1');
  }

  async screenshot(name: string): Promise<string> {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const path = join(SCREENSHOT_DIR, `${name}.png`);
    await this.page.screenshot({ path, fullPage: true });
    return path;
  }

  async close(): Promise<void> {
    await this.context.close().catch(() => undefined);
    rmSync(this.profileDir, { recursive: true, force: true });
  }
}
