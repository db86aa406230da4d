/**
 * Contract images built offline for the Docker runtime tests: a root filesystem made of
 * this machine's `node` binary, a shell and the libraries they link, plus a contract package
 * under /contract, imported with the Engine API (`docker import`) — no registry, no base
 * image. As in the JS contract template (its entrypoint.sh), a shell starts node, so node
 * is not the container's PID 1 and dies like any process when it crashes.
 */
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type Docker from 'dockerode';

const execFileAsync = promisify(execFile);

/** The shared libraries `ldd` lists for a binary (absolute paths). */
async function librariesOf(binary: string): Promise<string[]> {
  const { stdout } = await execFileAsync('ldd', [binary]);
  return [...stdout.matchAll(/(\/\S+)/g)].map((m) => m[1]!).filter((p) => p !== binary);
}

/** Imports an image `repoTag` running `node dist/index.js` in /contract; returns its Id (without `sha256:`). */
export async function importContractImage(docker: Docker, packageDir: string, repoTag: string): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'weft-rootfs-'));
  try {
    const node = process.execPath;
    const shell = '/bin/dash';
    for (const file of new Set([node, shell, ...(await librariesOf(node)), ...(await librariesOf(shell))])) {
      mkdirSync(join(root, dirname(file)), { recursive: true });
      copyFileSync(file, join(root, file));
    }
    mkdirSync(join(root, 'tmp'));
    cpSync(packageDir, join(root, 'contract'), { recursive: true, dereference: true });
    const tar = spawn('tar', ['-C', root, '-c', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [repo, tag] = repoTag.split(/:(?=[^:/]+$)/) as [string, string];
    const stream = await docker.importImage(tar.stdout, {
      repo,
      tag,
      changes: ['WORKDIR /contract', `ENTRYPOINT ["${shell}", "-c", "${node} dist/index.js; exit $?"]`],
    } as object);
    await new Promise<void>((resolve, reject) => docker.modem.followProgress(stream, (err: Error | null) => (err === null ? resolve() : reject(err))));
    const info = await docker.getImage(repoTag).inspect();
    return info.Id.replace(/^sha256:/, '');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
