#!/usr/bin/env node
/**
 * The `weft` command: every verb of the node's CLI (`weft start`, `weft generate …`,
 * `weft licence …`, `weft contract hash …`, `weft check-config …`) and `weft devnet …`, run
 * from the compiled JavaScript in dist/ — no npm script, no compiler on the way.
 *
 * In a source checkout (src/ and the TypeScript compiler present) it first builds what
 * changed since the last build it made (`weft build` forces one; `npm install` runs it), so
 * `npm start` after an edit runs the edit, and a restart with nothing changed starts at once.
 * An installed node (dist/ only, no dev dependencies) just runs.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const STAMP = join(ROOT, 'dist', '.weft-build');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
/** What the node's build reads besides src/. */
const BUILD_INPUTS = ['tsconfig.json', 'tsconfig.build.json', 'package.json'];

/**
 * The newest modification time (ms) of a file or of anything under a folder.
 * @param {string} path
 * @returns {number}
 */
function newest(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

/** Compiles the node and the explorer; the stamp gets the time the build began, so an edit made meanwhile builds again. */
function build() {
  const began = new Date();
  for (const project of ['tsconfig.build.json', join('src', 'explorer')]) {
    const run = spawnSync(process.execPath, [TSC, '-p', project], { cwd: ROOT, stdio: 'inherit' });
    if (run.status !== 0) {
      process.stderr.write(`weft: the build failed (tsc -p ${project}); fix the errors above and start again\n`);
      process.exit(run.status ?? 1);
    }
  }
  writeFileSync(STAMP, 'built by bin/weft.js\n');
  utimesSync(STAMP, began, began);
}

const checkout = existsSync(join(ROOT, 'src')) && existsSync(TSC);
const [verb] = process.argv.slice(2);
const entry = verb === 'devnet' ? join(ROOT, 'dist', 'src', 'cli', 'devnet.js') : join(ROOT, 'dist', 'src', 'cli', 'cli.js');
if (verb === 'build') {
  if (checkout) build();
  else if (existsSync(entry)) {
    // An install without dev dependencies (npm ci --omit=dev runs `prepare` too): the built dist/ is what runs.
    process.stderr.write('weft build: no TypeScript compiler here (installed without dev dependencies): dist/ runs as it is\n');
  } else {
    process.stderr.write('weft build: needs a source checkout with its dev dependencies (npm install)\n');
    process.exit(1);
  }
  process.exit(0);
}
// WEFT_SKIP_BUILD=1: the caller has just built dist/ itself (the docs test after npm test's build).
if (checkout && process.env.WEFT_SKIP_BUILD !== '1') {
  const sources = Math.max(newest(join(ROOT, 'src')), ...BUILD_INPUTS.map((f) => newest(join(ROOT, f))));
  if (newest(STAMP) < sources) {
    process.stderr.write('weft: building (sources changed since the last build)…\n');
    build();
  }
}
if (!existsSync(entry)) {
  process.stderr.write(`weft: ${entry} is missing — run \`npm install\` (it builds) in a source checkout\n`);
  process.exit(1);
}
// The program runs as if started itself (it checks that it is the main module); devnet takes its options without a verb.
process.argv[1] = entry;
if (verb === 'devnet') process.argv.splice(2, 1);
await import(entry);
