/**
 * The content digest of a contract package: what a process-runtime contract's `imageHash`
 * is (the analogue of a Docker image Id, which is the digest of the image config).
 *
 * Definition (version 1), SHA-256 in lowercase hex over:
 *
 *   "weft-contract-package-v1\n"
 *   then for every regular file and symbolic link under the package root, sorted by its
 *   relative path ('/'-separated, compared as UTF-8 bytes):
 *     file:    "F" ‖ (executable by its owner ? "x" : "-") ‖ " " ‖ path ‖ "\0" ‖ hex SHA-256 of its bytes ‖ "\n"
 *     symlink: "L " ‖ path ‖ "\0" ‖ link target as stored ‖ "\n"
 *
 * Directories count only through what they hold (empty ones are ignored); nothing is
 * excluded; any other kind of entry (socket, device, FIFO) is refused. The same tree gives
 * the same digest on every node and whether it ships as a folder or as a `.tgz` (a tarball
 * is digested after unpacking; when it holds a single top-level folder, as `npm pack`'s
 * `package/`, that folder is the package root). `weft contract hash DIR|FILE.tgz` prints it.
 */
import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';

const HEADER = 'weft-contract-package-v1\n';

interface TreeEntry {
  readonly path: string;
  readonly line: () => Promise<string>;
}

async function fileSha256(path: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(path))
    .digest('hex');
}

/** Files hashed at once. */
const PARALLEL_READS = 32;

async function walk(root: string, rel: string, out: TreeEntry[]): Promise<void> {
  const dir = rel === '' ? root : join(root, rel);
  const subdirs: Promise<void>[] = [];
  let refused: Error | undefined;
  for (const d of await readdir(dir, { withFileTypes: true })) {
    const relPath = rel === '' ? d.name : `${rel}/${d.name}`;
    const full = join(root, relPath);
    if (d.isDirectory()) subdirs.push(walk(root, relPath, out));
    else if (d.isSymbolicLink()) out.push({ path: relPath, line: async () => `L ${relPath}\0${await readlink(full)}\n` });
    else if (d.isFile()) {
      out.push({
        path: relPath,
        line: async () => {
          const [st, sha] = await Promise.all([lstat(full), fileSha256(full)]);
          return `F${(st.mode & 0o100) !== 0 ? 'x' : '-'} ${relPath}\0${sha}\n`;
        },
      });
    } else refused ??= new Error(`Contract package ${root}: '${relPath}' is neither a file, a folder nor a symbolic link`);
  }
  // Every branch finishes before the walk fails, so none runs on after it.
  const settled = await Promise.allSettled(subdirs);
  if (refused !== undefined) throw refused;
  for (const r of settled) if (r.status === 'rejected') throw r.reason;
}

const byUtf8 = (a: TreeEntry, b: TreeEntry): number => Buffer.compare(Buffer.from(a.path, 'utf8'), Buffer.from(b.path, 'utf8'));

/** The digest of the package tree rooted at `directory` (64 lowercase hex characters). */
export async function packageTreeDigest(directory: string): Promise<string> {
  const entries: TreeEntry[] = [];
  await walk(directory, '', entries);
  entries.sort(byUtf8);
  const lines: string[] = new Array<string>(entries.length);
  for (let i = 0; i < entries.length; i += PARALLEL_READS) {
    const batch = entries.slice(i, i + PARALLEL_READS);
    (await Promise.all(batch.map((e) => e.line()))).forEach((line, j) => (lines[i + j] = line));
  }
  const h = createHash('sha256').update(HEADER);
  for (const line of lines) h.update(line, 'utf8');
  return h.digest('hex');
}
