/**
 * Which runtime runs an image, and for the process runtime which local package it is
 * (`node.contracts.packages`). Images are matched by WE's normalised name
 * (DockerImageNameNormalizer: registry domain, `:latest` when no tag or digest), so a
 * 103 naming `registry.local/counter` matches an entry for `registry.local/counter:latest`.
 *
 * A `.tgz` source is unpacked once into the cache folder, named by its content digest. A
 * contract that runs as a user of its own (process-sandbox.ts) reads its package from the
 * cache too: a folder source is copied there once per digest, and what the cache holds is
 * readable by every user (the copy is mounted into the contract's namespace; the folders
 * above it, the node's data folder among them, stay closed to it).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ContractExecutionException, imageDigestMismatch } from '../errors/catalogue.js';
import { PackageDigests, packageTreeDigest } from './package-digest.js';
import type { ContractPackageSettings, ContractRuntimeKind } from './settings.js';

const execFileAsync = promisify(execFile);

/** WE's DockerImageName: the name as written and its normalised full name. */
export interface ImageName {
  readonly image: string;
  readonly domain: string | undefined;
  readonly component: string;
  readonly tag: string | undefined;
  readonly digest: string | undefined;
  readonly fullName: string;
}

const DIGEST_PREFIX = '@sha256:';

/** WE's DockerImageNameNormalizer.normalize. */
export function normalizeImageName(image: string, defaultRegistryDomain: string | undefined): ImageName {
  let domain: string | undefined = defaultRegistryDomain;
  let reference = image;
  const slash = image.indexOf('/');
  if (slash !== -1) {
    const first = image.slice(0, slash);
    if (first.includes('.') || first.includes(':') || first === 'localhost') {
      domain = first;
      reference = image.slice(slash + 1);
    }
  }
  let component: string;
  let tag: string | undefined;
  let digest: string | undefined;
  const at = reference.indexOf(DIGEST_PREFIX);
  if (at === -1) {
    const colon = reference.indexOf(':');
    component = colon === -1 ? reference : reference.slice(0, colon);
    tag = colon === -1 ? 'latest' : reference.slice(colon + 1);
  } else {
    component = reference.slice(0, at);
    digest = reference.slice(at + DIGEST_PREFIX.length);
  }
  const fullName =
    (domain === undefined ? '' : `${domain}/`) + component + (tag === undefined ? '' : `:${tag}`) + (digest === undefined ? '' : `${DIGEST_PREFIX}${digest}`);
  return { image, domain, component, tag, digest, fullName };
}

/** A package ready to start. */
export interface ResolvedPackage {
  readonly image: string;
  readonly directory: string;
  readonly digest: string;
  readonly command: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Whether the contract runs in a network of its own, reaching only the node's contract gRPC API. */
  readonly isolateNetwork: boolean;
}

interface TarballCacheEntry {
  readonly size: number;
  readonly mtimeMs: number;
  readonly directory: string;
  readonly digest: string;
}

export class ContractPackages {
  private readonly tarballs = new Map<string, TarballCacheEntry>();
  /** Cache folders made readable by every user since this process started. */
  private readonly opened = new Set<string>();
  /** Digests of the folder sources, hashed again only when they change. */
  private readonly folderDigests = new PackageDigests();

  constructor(
    private readonly entries: readonly ContractPackageSettings[],
    private readonly cacheDirectory: string,
    private readonly defaultRegistryDomain: string | undefined,
    /** The runtime of images no entry names (docker when the Docker engine is on). */
    private readonly unlistedRuntime: ContractRuntimeKind | undefined,
    private readonly defaultMaxInFlight = 1,
    private readonly defaultInstances = 1,
    /** `node.contracts.isolate-network`. */
    private readonly defaultIsolateNetwork = true,
  ) {}

  private entriesFor(image: string): ContractPackageSettings[] {
    const name = normalizeImageName(image, this.defaultRegistryDomain).fullName;
    return this.entries.filter((e) => normalizeImageName(e.image, this.defaultRegistryDomain).fullName === name);
  }

  /** The runtime that runs `image`; undefined when no runtime can. */
  runtimeFor(image: string): ContractRuntimeKind | undefined {
    return this.entriesFor(image)[0]?.runtime ?? this.unlistedRuntime;
  }

  /** Executions pushed at once to the running contract of an image. */
  maxInFlightFor(image: string): number {
    return this.entriesFor(image)[0]?.maxInFlight ?? this.defaultMaxInFlight;
  }

  /** Running contracts (processes or containers) of an image. */
  instancesFor(image: string): number {
    return this.entriesFor(image)[0]?.instances ?? this.defaultInstances;
  }

  /** Extra environment configured for an image (any runtime). */
  envFor(image: string): Readonly<Record<string, string>> {
    return this.entriesFor(image)[0]?.env ?? {};
  }

  /**
   * The local package of a process-runtime image whose content digest is `imageHash`.
   * No package: WE's fatal "image is not found"; a different digest: WE's fatal digest error.
   */
  async resolve(image: string, imageHash: string): Promise<ResolvedPackage> {
    const candidates = this.entriesFor(image).filter((e) => e.runtime === 'process' && e.source !== undefined);
    const name = normalizeImageName(image, this.defaultRegistryDomain).fullName;
    if (candidates.length === 0) {
      throw new ContractExecutionException(`Can't find image '${name}': no contract package is configured for it (node.contracts.packages)`, undefined, true);
    }
    let first: string | undefined;
    for (const entry of candidates) {
      const { directory, digest } = await this.materialize(entry.source!);
      first ??= digest;
      if (digest === imageHash) {
        return {
          image,
          directory,
          digest,
          command: entry.command ?? (await defaultCommand(directory)),
          env: entry.env,
          isolateNetwork: entry.isolateNetwork ?? this.defaultIsolateNetwork,
        };
      }
    }
    throw imageDigestMismatch(first!, image, imageHash);
  }

  /**
   * The folder of `pkg` in the cache, readable by every user (folders 0755, files 0644, or 0755
   * when their owner may run them): a `.tgz` is already there; a folder is copied there once per
   * digest, and the copy must still have that digest (the folder may change meanwhile).
   */
  async readableCopy(pkg: ResolvedPackage): Promise<string> {
    const target = join(this.cacheDirectory, pkg.digest);
    if (pkg.directory !== target && !existsSync(target)) {
      await mkdir(this.cacheDirectory, { recursive: true });
      const scratch = await mkdtemp(join(this.cacheDirectory, '.copy-'));
      try {
        const copy = join(scratch, 'package');
        await cp(pkg.directory, copy, { recursive: true, verbatimSymlinks: true });
        const digest = await packageTreeDigest(copy);
        if (digest !== pkg.digest)
          throw new ContractExecutionException(`Contract package '${pkg.directory}' changed while it was copied (digest ${digest}, expected ${pkg.digest})`);
        await openTreeToEveryone(copy);
        if (!existsSync(target)) await rename(copy, target);
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
      this.opened.add(target);
    }
    if (!this.opened.has(target)) {
      // A cache entry of an earlier version of the node may still have its archive's modes.
      await openTreeToEveryone(target);
      this.opened.add(target);
    }
    return target;
  }

  /** The folder and digest of a package source (a `.tgz` is unpacked into the cache first). */
  async materialize(source: string): Promise<{ directory: string; digest: string }> {
    let st;
    try {
      st = await stat(source);
    } catch (e) {
      throw new ContractExecutionException(`Contract package '${source}' is missing`, undefined, true, { cause: e });
    }
    if (st.isDirectory()) return { directory: source, digest: await this.folderDigests.digestOf(source) };
    const cached = this.tarballs.get(source);
    if (cached !== undefined && cached.size === st.size && cached.mtimeMs === st.mtimeMs && existsSync(cached.directory)) return cached;
    const unpacked = await unpackTarball(source, this.cacheDirectory);
    this.tarballs.set(source, { size: st.size, mtimeMs: st.mtimeMs, ...unpacked });
    return unpacked;
  }
}

/** `node <main of package.json>`, or `node dist/index.js` (the JS contract template's entry). */
async function defaultCommand(directory: string): Promise<string[]> {
  try {
    const pkg = JSON.parse(await readFile(join(directory, 'package.json'), 'utf8')) as { main?: unknown };
    if (typeof pkg.main === 'string' && pkg.main !== '') return ['node', pkg.main];
  } catch {
    // no package.json: the template's entry point
  }
  return ['node', 'dist/index.js'];
}

/** Lets every user read the tree under `directory` (and run what its owner may run); symbolic links are left as they are. */
async function openTreeToEveryone(directory: string): Promise<void> {
  await chmod(directory, 0o755);
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) await openTreeToEveryone(path);
    else if (entry.isFile()) await chmod(path, ((await stat(path)).mode & 0o100) !== 0 ? 0o755 : 0o644);
  }
}

/** The package root inside an unpacked tarball: its single top-level folder, if that is all it holds. */
async function packageRoot(directory: string): Promise<string> {
  const names = await readdir(directory, { withFileTypes: true });
  const only = names[0];
  return names.length === 1 && only !== undefined && only.isDirectory() ? join(directory, only.name) : directory;
}

/** Unpacks a `.tgz` (with the system's tar) into `<cache>/<digest>`, reusing an earlier copy. */
export async function unpackTarball(file: string, cacheDirectory: string): Promise<{ directory: string; digest: string }> {
  await mkdir(cacheDirectory, { recursive: true });
  const scratch = await mkdtemp(join(cacheDirectory, '.unpack-'));
  try {
    try {
      await execFileAsync('tar', ['-xzf', file, '-C', scratch, '--no-same-owner']);
    } catch (e) {
      throw new ContractExecutionException(`Contract package '${file}' is not a readable .tgz: ${(e as Error).message}`, undefined, true, { cause: e });
    }
    const root = await packageRoot(scratch);
    const digest = await packageTreeDigest(root);
    await openTreeToEveryone(root);
    const target = join(cacheDirectory, digest);
    if (!existsSync(target)) await rename(root, target);
    return { directory: target, digest };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The digest `weft contract hash` prints for a folder or a `.tgz`. */
export async function packageDigestOf(source: string, scratchDirectory: string): Promise<string> {
  const st = await stat(source);
  if (st.isDirectory()) return packageTreeDigest(source);
  const scratch = await mkdtemp(join(scratchDirectory, 'weft-contract-hash-'));
  try {
    return (await unpackTarball(source, scratch)).digest;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
