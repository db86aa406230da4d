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

/** An entry of a package tree other than a folder: its '/'-separated path from the root. */
interface TreeEntry {
  readonly path: string;
  readonly full: string;
  readonly kind: 'file' | 'link' | 'other';
}

async function fileSha256(path: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(path))
    .digest('hex');
}

/** Files hashed (or looked at) at once. */
const PARALLEL_READS = 32;

/** Every entry under `root` but the folders, sorted by path as UTF-8 bytes. */
async function treeEntries(root: string): Promise<TreeEntry[]> {
  const out: TreeEntry[] = [];
  const walk = async (rel: string): Promise<void> => {
    const dir = rel === '' ? root : join(root, rel);
    const subdirs: Promise<void>[] = [];
    for (const d of await readdir(dir, { withFileTypes: true })) {
      const path = rel === '' ? d.name : `${rel}/${d.name}`;
      if (d.isDirectory()) subdirs.push(walk(path));
      else out.push({ path, full: join(root, path), kind: d.isSymbolicLink() ? 'link' : d.isFile() ? 'file' : 'other' });
    }
    // Every branch finishes before the walk fails, so none runs on after it.
    const settled = await Promise.allSettled(subdirs);
    for (const r of settled) if (r.status === 'rejected') throw r.reason;
  };
  await walk('');
  return out.sort((a, b) => Buffer.compare(Buffer.from(a.path, 'utf8'), Buffer.from(b.path, 'utf8')));
}

/** `line` of every entry, PARALLEL_READS at a time, hashed in order after `header`. */
async function hashLines(entries: readonly TreeEntry[], header: string, line: (e: TreeEntry) => Promise<string>): Promise<string> {
  const lines: string[] = new Array<string>(entries.length);
  for (let i = 0; i < entries.length; i += PARALLEL_READS) {
    const batch = entries.slice(i, i + PARALLEL_READS);
    (await Promise.all(batch.map(line))).forEach((l, j) => (lines[i + j] = l));
  }
  const h = createHash('sha256').update(header);
  for (const l of lines) h.update(l, 'utf8');
  return h.digest('hex');
}

/** The digest of the package tree rooted at `directory` (64 lowercase hex characters). */
export async function packageTreeDigest(directory: string): Promise<string> {
  const entries = await treeEntries(directory);
  const refused = entries.find((e) => e.kind === 'other');
  if (refused !== undefined) throw new Error(`Contract package ${directory}: '${refused.path}' is neither a file, a folder nor a symbolic link`);
  return hashLines(entries, HEADER, async (e) => {
    if (e.kind === 'link') return `L ${e.path}\0${await readlink(e.full)}\n`;
    const [st, sha] = await Promise.all([lstat(e.full), fileSha256(e.full)]);
    return `F${(st.mode & 0o100) !== 0 ? 'x' : '-'} ${e.path}\0${sha}\n`;
  });
}

/**
 * What changes whenever anything a package tree's digest covers may have changed: each
 * entry's path, kind, inode, size, mode and modification and change times (ns). The change
 * time moves on every write, rename or mode change of an inode and cannot be set back, so a
 * tree whose fingerprint is the same holds the same bytes (git's index trusts the same) —
 * unless it changed twice within one tick of the kernel's clock, which is why `newestChangeNs`
 * is given too (see PackageDigests).
 */
async function treeFingerprint(directory: string): Promise<{ readonly fingerprint: string; readonly newestChangeNs: bigint }> {
  let newestChangeNs = 0n;
  const fingerprint = await hashLines(await treeEntries(directory), '', async (e) => {
    const st = await lstat(e.full, { bigint: true });
    if (st.ctimeNs > newestChangeNs) newestChangeNs = st.ctimeNs;
    return `${e.kind} ${e.path}\0${st.ino}:${st.size}:${st.mode}:${st.mtimeNs}:${st.ctimeNs}\n`;
  });
  return { fingerprint, newestChangeNs };
}

/**
 * A tree with an entry changed this recently (ns) before its fingerprint was taken is not
 * remembered: a second change within the same tick of the kernel's clock would leave the
 * fingerprint as it was (git's "racily clean" entries).
 */
const SETTLED_NS = 2_000_000_000n;

/**
 * The digests of package folders, each remembered with its tree's fingerprint: a folder is
 * hashed again only when something in it changed. Every start of a process contract needs its
 * package's digest; hashing an SDK package (its node_modules: ~2,300 files, 26 MB) took
 * 0.3–0.5 s of the node's CPU on each start, a fingerprint a fraction of that. Digests asked
 * for together (a package's instances starting at once) share one computation.
 */
export class PackageDigests {
  private readonly known = new Map<string, { readonly fingerprint: string; readonly digest: string }>();
  private readonly computing = new Map<string, Promise<string>>();

  digestOf(directory: string): Promise<string> {
    const running = this.computing.get(directory);
    if (running !== undefined) return running;
    const digest = this.compute(directory).finally(() => this.computing.delete(directory));
    this.computing.set(directory, digest);
    return digest;
  }

  private async compute(directory: string): Promise<string> {
    const startedNs = BigInt(Date.now()) * 1_000_000n;
    // Taken before the hash: a tree changed while it was hashed has another fingerprint at the next look.
    const { fingerprint, newestChangeNs } = await treeFingerprint(directory);
    const known = this.known.get(directory);
    if (known?.fingerprint === fingerprint) return known.digest;
    this.known.delete(directory);
    const digest = await packageTreeDigest(directory);
    if (newestChangeNs < startedNs - SETTLED_NS) this.known.set(directory, { fingerprint, digest });
    return digest;
  }
}
