/**
 * Builds the SDK contract fixture (test/fixtures/contracts/kv-sdk) into a contract package
 * as its author would ship it: compiled with its own tsconfig (legacy decorators,
 * CommonJS) into `dist/`, with `package.json` and the runtime dependencies of
 * `@wavesenterprise/contract-core` in its own `node_modules/` (copied from the worktree's,
 * same layout, so the package runs on its own — in a folder, a tarball or an image).
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** The worktree root (this file runs from dist/devkit/contracts/). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const KV_FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'contracts', 'kv-sdk');

function packageDir(name: string, from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(dir) === dir) throw new Error(`cannot resolve ${name} from ${from}`);
  }
}

/**
 * Copies `name` and everything it depends on, keeping their paths relative to the folder that
 * holds the worktree's `node_modules` (its real location: in a git worktree it may be a link to
 * another checkout's).
 */
function copyClosure(name: string, from: string, destination: string, seen: Set<string>): void {
  const dir = packageDir(name, from);
  if (seen.has(dir)) return;
  seen.add(dir);
  const modulesRoot = dirname(realpathSync(join(REPO_ROOT, 'node_modules')));
  cpSync(dir, join(destination, relative(modulesRoot, dir)), { recursive: true, dereference: true });
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  for (const dep of Object.keys(pkg.dependencies ?? {})) copyClosure(dep, dir, destination, seen);
}

const TSC = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/** Builds the key-value SDK contract into `<parent>/kv-sdk`; returns that folder. */
export async function buildKvSdkPackage(parent: string): Promise<string> {
  const out = join(parent, 'kv-sdk');
  mkdirSync(out, { recursive: true });
  await execFileAsync(process.execPath, [TSC, '-p', join(KV_FIXTURE, 'tsconfig.json'), '--outDir', join(out, 'dist')], { cwd: REPO_ROOT });
  cpSync(join(KV_FIXTURE, 'package.json'), join(out, 'package.json'));
  copyClosure('@wavesenterprise/contract-core', REPO_ROOT, out, new Set());
  return out;
}

/**
 * Builds an SDK contract package whose sources are in `dir` as its author's `npm install` and
 * `npm run build` would: `tsc -p tsconfig.json` there, and the SDK's runtime packages in its
 * own `node_modules/`.
 */
export async function buildSdkPackageIn(dir: string): Promise<void> {
  copyClosure('@wavesenterprise/contract-core', REPO_ROOT, dir, new Set());
  await execFileAsync(process.execPath, [TSC, '-p', join(dir, 'tsconfig.json')], { cwd: dir });
}
