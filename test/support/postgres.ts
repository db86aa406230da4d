/**
 * A throwaway PostgreSQL cluster for tests: Debian's `postgresql` binaries (initdb, pg_ctl;
 * `.ci/run` installs the package when missing), a fresh data directory under the system
 * temp dir, a free loopback port, trust authentication for the `postgres` role. PostgreSQL
 * refuses to run as root, so as root the cluster runs as the `postgres` system user (the
 * package creates it). `stop()` (immediate mode) removes it; callers call it from their
 * file's `after` hook (a hook registered while another hook runs would fire at once).
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freeLoopbackPort } from '../../src/cli/devnet.js';

const run = promisify(execFile);

/** The directory of Debian's newest PostgreSQL binaries. */
function binaries(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error("PostgreSQL's binaries are missing: install Debian's `postgresql` package (.ci/run does)");
  return join(root, versions[0]!, 'bin');
}

export interface PostgresCluster {
  readonly port: number;
  /** A new empty database; its JDBC URL (role `postgres`, no password). */
  createDatabase(name: string): Promise<string>;
  /** A client of a database of the cluster, for checks. */
  client(database: string): Promise<pg.Client>;
  stop(): Promise<void>;
}

export async function startPostgres(): Promise<PostgresCluster> {
  const bin = binaries();
  const asRoot = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'weft-pg-'));
  const data = join(dir, 'data');
  const socket = join(dir, 'socket');
  mkdirSync(socket);
  if (asRoot) {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    chownSync(dir, uid, gid);
    chownSync(socket, uid, gid);
  }
  const asPostgres = async (cmd: string, args: string[]): Promise<void> => {
    const file = join(bin, cmd);
    if (asRoot) await run('runuser', ['-u', 'postgres', '--', file, ...args], { cwd: dir });
    else await run(file, args, { cwd: dir });
  };
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  await asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freeLoopbackPort();
  await asPostgres('pg_ctl', [
    '-D',
    data,
    '-l',
    join(dir, 'log'),
    '-w',
    '-t',
    '60',
    '-o',
    `-p ${port} -k ${socket} -c listen_addresses=127.0.0.1 -c fsync=off`,
    'start',
  ]);
  const client = async (database: string): Promise<pg.Client> => {
    const c = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database });
    await c.connect();
    return c;
  };
  return {
    port,
    async createDatabase(name: string) {
      const c = await client('postgres');
      try {
        await c.query(`CREATE DATABASE "${name}"`);
      } finally {
        await c.end();
      }
      return `jdbc:postgresql://127.0.0.1:${port}/${name}`;
    },
    client,
    stop,
  };
}
