/**
 * A real S3-compatible server for tests: `s3rver` (a devDependency) on a free loopback port
 * with a temporary directory; `stop()` closes it and removes the directory (callers call it
 * from their file's `after` hook). Its only account signs with the access key and secret
 * `S3RVER`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

export const S3RVER_KEY = 'S3RVER';

export interface S3Server {
  /** `http://127.0.0.1:<port>/`. */
  readonly endpoint: string;
  stop(): Promise<void>;
}

export async function startS3rver(): Promise<S3Server> {
  const directory = mkdtempSync(join(tmpdir(), 'weft-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  const { port } = (await server.run()) as { port: number };
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await server.close();
    rmSync(directory, { recursive: true, force: true });
  };
  return { endpoint: `http://127.0.0.1:${port}/`, stop };
}
