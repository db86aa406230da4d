/**
 * Every command of README.md and docs/*.md works and prints what its doc says: each ```sh
 * and ```js block (doc-snippets.ts says how blocks are marked) runs against what it needs —
 * the dev chain started the way `npm start` starts it, or the node or devnet an
 * `npm start -- …` / `npm run devnet -- …` block of the doc names — and must exit 0 and
 * print what its lines say they print.
 *
 * The commands run in a folder laid out as a checkout (`dist/`, `node_modules/`, `ops/` and
 * `package.json` linked to this repository's), so `data/dev/…` and `./dist/…` mean what they
 * mean after `npm start`; one such folder per node or devnet, all side by side, so `../x` is
 * the same folder for every one. Nodes and devnets are started with the command of
 * package.json's `start` / `devnet` script (the build steps before it are the test's own
 * build), on free ports, and shared by every doc that names the same one; each is stopped
 * as Ctrl-C stops it once no later block needs it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { freeLoopbackPort } from '../../src/cli/devnet.js';
import { buildSdkPackageIn } from '../../devkit/contracts/sdk-package.js';
import { sleep } from '../../devkit/wait.js';
import {
  docFiles,
  instrument,
  isRun,
  outputProblems,
  parseDoc,
  startCommandOf,
  type CodeBlock,
  type DocItem,
  type SnippetLanguage,
  type StartCommand,
} from './doc-snippets.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const SNIPPET_TIMEOUT_MS = 120_000;
const START_TIMEOUT_MS = 120_000;
const START_ATTEMPTS = 3;
const OUTPUT_TAIL = 8000;

/** README.md, then docs/*.md by name; `WEFT_DOCS_ONLY=docs/a.md,…` runs only those (while writing a doc). */
const ONLY = process.env['WEFT_DOCS_ONLY']?.split(',').map((f) => f.trim());
const DOC_FILES = docFiles(REPO).filter((f) => ONLY === undefined || ONLY.includes(f));

/** The command an npm script runs once its build steps are done (`… && node dist/…`), as [program, ...args]. */
function scriptCommand(name: 'start' | 'devnet'): string[] {
  const scripts = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const last = scripts[name]!.split('&&').at(-1)!.trim().split(/\s+/);
  assert.equal(last[0], 'node', `package.json's ${name} script should end by running node`);
  return last.slice(1);
}

/** Whether `promise` settled within `ms` (the timer does not outlive it: the test file ends when its work does). */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<false>((resolveExpired) => (timer = setTimeout(() => resolveExpired(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** A process group started here, for stopping it and whatever it started. */
class Started {
  private output = '';
  readonly exited: Promise<number | null>;
  private done = false;

  constructor(readonly child: ChildProcess) {
    child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString('utf8')));
    this.exited = new Promise((resolveExit) =>
      child.once('exit', (code) => {
        this.done = true;
        resolveExit(code);
      }),
    );
  }

  get running(): boolean {
    return !this.done;
  }

  text(): string {
    return this.output;
  }

  tail(): string {
    return this.output.slice(-OUTPUT_TAIL);
  }

  /** Ctrl-C (SIGINT to the group), then SIGKILL to the group after `graceMs`. */
  async stop(graceMs = 20_000): Promise<void> {
    if (this.done) return;
    this.signal('SIGINT');
    if (await settlesWithin(this.exited, graceMs)) return;
    this.kill();
    await settlesWithin(this.exited, 5000);
  }

  kill(): void {
    this.signal('SIGKILL');
  }

  private signal(signal: NodeJS.Signals): void {
    try {
      process.kill(-this.child.pid!, signal);
    } catch {
      // the group is gone
    }
  }
}

/** Spawns a command in a process group of its own (so stopping it stops what it started). */
function spawnGroup(program: string, args: readonly string[], cwd: string): Started {
  // npm test has just built dist/: bin/weft.js is told not to check the sources again (test/cli/weft-bin.test.ts tests that check).
  return new Started(spawn(program, args, { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, WEFT_SKIP_BUILD: '1' } }));
}

/** One folder laid out as a checkout, and the node or devnet running there (started on first use). */
class Environment {
  private process: Started | undefined;

  constructor(
    readonly cwd: string,
    readonly start: StartCommand,
    private readonly groups: Set<Started>,
  ) {
    mkdirSync(cwd, { recursive: true });
    for (const name of ['bin', 'dist', 'node_modules', 'ops', 'package.json']) symlinkSync(join(REPO, name), join(cwd, name));
  }

  async ready(): Promise<void> {
    if (this.process !== undefined) {
      if (!this.process.running) throw new Error(`the ${this.describe()} has exited:\n${this.process.tail()}`);
      return;
    }
    for (let attempt = 1; ; attempt++) {
      try {
        return await (this.start.kind === 'node' ? this.startNode() : this.startDevnet());
      } catch (e) {
        // A free port another test took in between: start again on others (a devnet from scratch: its configs hold its ports).
        if (attempt >= START_ATTEMPTS || !this.portWasTaken()) throw e;
        // launch() set it (TypeScript does not see that through the call).
        await (this.process as Started | undefined)?.stop();
        this.process = undefined;
        const dir = this.devnetDir();
        if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
      }
    }
  }

  /** The folder of a devnet started with `--dir`. */
  private devnetDir(): string | undefined {
    const at = this.start.args.indexOf('--dir');
    return this.start.kind === 'devnet' && at >= 0 ? resolve(this.cwd, this.start.args[at + 1]!) : undefined;
  }

  /** Whether the start failed on a port in use (in the node's output, or a devnet node's log). */
  private portWasTaken(): boolean {
    const texts = [this.process?.text() ?? ''];
    const dir = this.devnetDir();
    if (dir !== undefined && existsSync(join(dir, 'devnet.json'))) {
      const layout = JSON.parse(readFileSync(join(dir, 'devnet.json'), 'utf8')) as { nodes: Array<{ logFile: string }> };
      for (const n of layout.nodes) if (existsSync(n.logFile)) texts.push(readFileSync(n.logFile, 'utf8'));
    }
    return texts.some((t) => t.includes('EADDRINUSE'));
  }

  describe(): string {
    return `${this.start.kind === 'node' ? 'npm start' : 'npm run devnet'}${this.start.args.length > 0 ? ` -- ${this.start.args.join(' ')}` : ''}`;
  }

  private launch(args: readonly string[]): Started {
    const started = spawnGroup(process.execPath, args, this.cwd);
    this.groups.add(started);
    this.process = started;
    return started;
  }

  private async startNode(): Promise<void> {
    const rest = await freeLoopbackPort();
    const p2p = await freeLoopbackPort();
    const node = this.launch([...scriptCommand('start'), ...this.start.args, '--rest-port', String(rest), '--p2p-port', String(p2p)]);
    await this.waitFor(node, async () => {
      // The banner names dev-accounts.json once the node serves and the file is written.
      if (!node.text().includes('dev-accounts.json')) return false;
      const r = await fetch(`http://127.0.0.1:${rest}/node/version`, { signal: AbortSignal.timeout(2000) });
      return r.status === 200;
    });
  }

  private async startDevnet(): Promise<void> {
    const devnet = this.launch([...scriptCommand('devnet'), ...this.start.args, '--base-port', '0']);
    await this.waitFor(devnet, () => devnet.text().includes('Ctrl-C stops every node.'));
    assert.doesNotMatch(devnet.text(), /NOT SERVING/, `a node of the devnet does not serve:\n${devnet.tail()}`);
  }

  private async waitFor(started: Started, isReady: () => boolean | Promise<boolean>): Promise<void> {
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (!started.running) throw new Error(`${this.describe()} exited before it served:\n${started.tail()}`);
      try {
        if (await isReady()) return;
      } catch {
        // not serving yet
      }
      if (Date.now() > deadline) throw new Error(`${this.describe()} did not serve within ${START_TIMEOUT_MS} ms:\n${started.tail()}`);
      await sleep(200);
    }
  }

  async stop(): Promise<void> {
    await this.process?.stop();
  }
}

const keyOf = (start: StartCommand): string => `${start.kind} ${start.args.join(' ')}`;
const PLAIN_START: StartCommand = { kind: 'node', args: [] };

interface PlannedItem {
  readonly item: DocItem;
  /** The node or devnet the item runs against (for files and builds: whose folder they go to). */
  readonly current: StartCommand;
  /** Set when the item is the block that starts it. */
  readonly starts: boolean;
}

/** Every doc's items with the environment each runs in: the plain dev chain until a block starts another. */
function plan(docs: ReadonlyArray<{ file: string; items: readonly DocItem[] }>): Map<string, PlannedItem[]> {
  const planned = new Map<string, PlannedItem[]>();
  for (const doc of docs) {
    let current = PLAIN_START;
    const items: PlannedItem[] = [];
    for (const item of doc.items) {
      const start = item.kind === 'block' ? startCommandOf(item) : undefined;
      if (start !== undefined) current = start;
      items.push({ item, current, starts: start !== undefined });
    }
    planned.set(doc.file, items);
  }
  return planned;
}

const docs = DOC_FILES.map((file) => ({ file, items: parseDoc(file, readFileSync(join(REPO, file), 'utf8')) }));
const planned = plan(docs);
const root = mkdtempSync(join(tmpdir(), 'weft-docs-'));
const groups = new Set<Started>();
const environments = new Map<string, Environment>();
/** The last doc item (file:line) that needs each environment's node or devnet. */
const lastUse = new Map<string, string>();
for (const [file, items] of planned) {
  for (const p of items) if (p.item.kind === 'block' && (isRun(p.item) || p.starts)) lastUse.set(keyOf(p.current), `${file}:${p.item.line}`);
}

function environment(start: StartCommand): Environment {
  const key = keyOf(start);
  let env = environments.get(key);
  if (env === undefined) {
    env = new Environment(join(root, 'checkouts', String(environments.size)), start, groups);
    environments.set(key, env);
  }
  return env;
}

after(async () => {
  await Promise.all([...groups].map((g) => g.stop(5000)));
  rmSync(root, { recursive: true, force: true });
});
process.once('exit', () => {
  for (const g of groups) g.kill();
});
// An interrupted run leaves no node or devnet behind (they run in process groups of their own).
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.once(signal, () => {
    for (const g of groups) g.kill();
    rmSync(root, { recursive: true, force: true });
    process.exit(code);
  });
}

/** Runs a block; resolves with its stdout once it exited 0 within the time limit. */
async function runBlock(block: CodeBlock & { language: SnippetLanguage }, env: Environment): Promise<{ stdout: string; problems: string[] }> {
  const { source, expectations } = instrument(block);
  let started: Started;
  if (block.language === 'sh') started = spawnGroup('bash', ['-euo', 'pipefail', '-c', source], env.cwd);
  else {
    const file = join(env.cwd, `snippet-${block.file.replaceAll('/', '-')}-${block.line}.mjs`);
    writeFileSync(file, source);
    started = spawnGroup(process.execPath, [file], env.cwd);
  }
  groups.add(started);
  let stdout = '';
  started.child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  const timedOut = !(await settlesWithin(started.exited, SNIPPET_TIMEOUT_MS));
  if (timedOut) started.kill();
  const code = await started.exited;
  groups.delete(started);
  assert.ok(!timedOut, `still running after ${SNIPPET_TIMEOUT_MS} ms; its output:\n${started.tail()}`);
  assert.equal(code, 0, `exited with ${code}; its output:\n${started.tail()}`);
  return { stdout, problems: outputProblems(stdout, expectations) };
}

for (const [file, items] of planned) {
  describe(file, { concurrency: 1 }, () => {
    for (const { item, current, starts } of items) {
      const key = keyOf(current);
      const name = `${item.kind === 'block' ? `\`\`\`${item.language}` : 'contract-package'} at line ${item.line}`;
      if (item.kind === 'contract-package') {
        test(`${name}: builds ${item.dir}`, async () => {
          await buildSdkPackageIn(resolve(environment(current).cwd, item.dir));
        });
        continue;
      }
      if (item.writeTo !== undefined) {
        const to = item.writeTo;
        test(`${name}: written to ${to}`, () => {
          const path = resolve(environment(current).cwd, to);
          mkdirSync(dirname(path), { recursive: true });
          writeFileSync(path, `${item.body}\n`);
        });
        continue;
      }
      if (starts) {
        test(`${name}: starts ${environment(current).describe()}`, async () => {
          const env = environment(current);
          await env.ready();
          if (lastUse.get(key) === `${file}:${item.line}`) await env.stop();
        });
        continue;
      }
      if (!isRun(item)) continue;
      test(name, async () => {
        const env = environment(current);
        try {
          await env.ready();
          const { problems } = await runBlock(item, env);
          assert.deepEqual(problems, [], `${file}:${item.line} printed otherwise than its doc says:\n${problems.join('\n')}`);
        } finally {
          if (lastUse.get(key) === `${file}:${item.line}`) await env.stop();
        }
      });
    }
  });
}
