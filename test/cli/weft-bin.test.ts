/**
 * bin/weft.js, the `weft` command (package.json `bin`; `npm start` and `npm run devnet` run it):
 * it builds a source checkout only when something changed since its last build, routes the
 * verbs to the CLI or the devnet program, stops on a failed build, and in an installed node
 * (no compiler) just runs. Checked in a folder laid out as a checkout whose compiler is a
 * stand-in that records its calls — the real build is npm test's own and the docs test
 * starts the real node through this same file.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'weft-bin-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const write = (path: string, text: string): void => {
  mkdirSync(join(dir, path, '..'), { recursive: true });
  writeFileSync(join(dir, path), text);
};
mkdirSync(join(dir, 'bin'));
copyFileSync(join(REPO, 'bin', 'weft.js'), join(dir, 'bin', 'weft.js'));
write('package.json', '{"type":"module"}\n');
write('tsconfig.json', '{}\n');
write('tsconfig.build.json', '{}\n');
write('src/cli/cli.ts', '// a source\n');
write('src/explorer/tsconfig.json', '{}\n');
// The stand-in compiler: records `-p PROJECT`, fails when told to.
write(
  'node_modules/typescript/bin/tsc',
  "require('node:fs').appendFileSync(require('node:path').join(__dirname, '../../../tsc.log'), process.argv.slice(2).join(' ') + '\\n');\nprocess.exit(process.env.FAKE_TSC_FAIL === '1' ? 2 : 0);\n",
);
write('node_modules/typescript/package.json', '{}\n');
// The compiled programs print how they were started (argv[1] must name them: they check they are the main module).
for (const program of ['cli', 'devnet']) {
  write(`dist/src/cli/${program}.js`, `console.log(JSON.stringify({ program: '${program}', argv: process.argv.slice(1) }));\n`);
}

interface Run {
  readonly status: number | null;
  readonly started?: { program: string; argv: string[] };
  readonly stderr: string;
  readonly compiled: string[];
}

function weft(args: string[], env: Record<string, string> = {}): Run {
  rmSync(join(dir, 'tsc.log'), { force: true });
  const run = spawnSync(process.execPath, [join(dir, 'bin', 'weft.js'), ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, WEFT_SKIP_BUILD: '', ...env },
  });
  const line = run.stdout.trim();
  const log = join(dir, 'tsc.log');
  return {
    status: run.status,
    ...(line !== '' ? { started: JSON.parse(line) as { program: string; argv: string[] } } : {}),
    stderr: run.stderr,
    compiled: existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [],
  };
}

const setTime = (path: string, secondsAgo: number): void => {
  const t = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(join(dir, path), t, t);
};
/** `path` edited after the last build. */
const edited = (path: string): void => {
  setTime(join('dist', '.weft-build'), 100);
  setTime(path, 50);
};

describe('bin/weft.js (the weft command)', () => {
  it('builds the node and the explorer on the first start, then starts at once while nothing changed', () => {
    const first = weft(['start', '--rest-port', '1']);
    assert.equal(first.status, 0, first.stderr);
    assert.deepEqual(first.compiled, ['-p tsconfig.build.json', '-p src/explorer']);
    assert.match(first.stderr, /building/);
    assert.deepEqual(first.started, { program: 'cli', argv: [join(dir, 'dist', 'src', 'cli', 'cli.js'), 'start', '--rest-port', '1'] });

    const again = weft(['start']);
    assert.equal(again.status, 0);
    assert.deepEqual(again.compiled, []);
    assert.equal(again.stderr, '');
    assert.equal(again.started?.program, 'cli');
  });

  it('builds again after a source or the build configuration changed', () => {
    weft(['start']);
    edited('src/cli/cli.ts');
    assert.deepEqual(weft(['start']).compiled, ['-p tsconfig.build.json', '-p src/explorer']);
    assert.deepEqual(weft(['start']).compiled, []);
    edited('tsconfig.json');
    assert.deepEqual(weft(['generate', 'accounts']).compiled, ['-p tsconfig.build.json', '-p src/explorer']);
  });

  it('runs the devnet program for `weft devnet`, its options without the verb', () => {
    const run = weft(['devnet', '--nodes', '3']);
    assert.deepEqual(run.started, { program: 'devnet', argv: [join(dir, 'dist', 'src', 'cli', 'devnet.js'), '--nodes', '3'] });
  });

  it('stops on a failed build and starts nothing — next time it builds again', () => {
    edited('src/cli/cli.ts');
    const failed = weft(['start'], { FAKE_TSC_FAIL: '1' });
    assert.equal(failed.status, 2);
    assert.equal(failed.started, undefined);
    assert.match(failed.stderr, /the build failed \(tsc -p tsconfig\.build\.json\)/);
    assert.deepEqual(weft(['start']).compiled, ['-p tsconfig.build.json', '-p src/explorer']);
  });

  it('`weft build` always builds; WEFT_SKIP_BUILD=1 never does', () => {
    const built = weft(['build']);
    assert.equal(built.status, 0);
    assert.deepEqual(built.compiled, ['-p tsconfig.build.json', '-p src/explorer']);
    assert.equal(built.started, undefined);
    edited('src/cli/cli.ts');
    assert.deepEqual(weft(['start'], { WEFT_SKIP_BUILD: '1' }).compiled, []);
  });

  it('in an installed node (no compiler) just runs and `weft build` passes, and says how to build when dist/ is missing', () => {
    rmSync(join(dir, 'node_modules'), { recursive: true });
    edited('src/cli/cli.ts');
    const run = weft(['start']);
    assert.equal(run.status, 0);
    assert.equal(run.started?.program, 'cli');
    // npm ci --omit=dev runs `prepare` (weft build) too: with dist/ there it is not an error.
    const prepared = weft(['build']);
    assert.equal(prepared.status, 0);
    assert.match(prepared.stderr, /no TypeScript compiler here .*dist\/ runs as it is/);
    rmSync(join(dir, 'dist', 'src'), { recursive: true });
    const missing = weft(['start']);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /cli\.js is missing — run `npm install`/);
    const unbuildable = weft(['build']);
    assert.equal(unbuildable.status, 1);
    assert.match(unbuildable.stderr, /needs a source checkout/);
  });
});
