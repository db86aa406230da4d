/**
 * The embedded storage (Weft's default): everything under one directory of the node's
 * data directory, nothing to run beside the node.
 *
 *   <dir>/meta/      an LMDB environment of its own:
 *                      'm' key → type(1) ‖ length(u64) ‖ WE's metadata bytes   (what makes an item visible)
 *                      'd' key → the bytes of a small (default) item
 *                      'u' upload id → key                                     (large uploads under way)
 *   <dir>/large/     one file per large item, `<policyId>.<hash>`
 *   <dir>/incoming/  large uploads being written, `<upload id>.part`
 *
 * where key = policyId ‖ 0x00 ‖ hash (Base58 text). Every LMDB commit is synchronous.
 *
 * A small item is checked in memory and committed with its metadata in one transaction. A
 * large one streams into `incoming/` while its SHA-256 is taken; it is fsynced, its hash
 * checked, renamed into `large/` (directory fsynced) and only then made visible by
 * committing its metadata. Before it starts, the upload is journaled ('u'); the journal
 * entry goes away in the commit that makes the item visible, or when the upload fails.
 * Opening the storage finishes what a crash left: every file of `incoming/` is removed,
 * and for each journaled upload whose item never became visible the renamed file (if the
 * crash came after the rename) is removed too. So a crash at any point leaves either the
 * whole item visible or no trace of it.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open as openFile, readdir, readFile, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { open, type RootDatabase } from 'lmdb';
import { entityAlreadyExists, StorageFailure } from '../../errors/catalogue.js';
import { dataTypeOfByte, decodeItemMeta, encodeItemMeta, DATA_TYPE_BYTE, type PolicyItemKey, type PolicyItemMeta, type PrivacyDataType } from '../item.js';
import { chunksOf, ItemDigest, type IncomingData, type PolicyStorage, type StoredData } from './storage.js';

const META = 0x6d; // 'm'
const DATA = 0x64; // 'd'
const UPLOAD = 0x75; // 'u'
/** How much of a large file is read at a time when serving it. */
const READ_CHUNK = 1024 * 1024;
/** How many bytes of a large upload gather before they go to the file in one write. */
const WRITE_BATCH = 1024 * 1024;

const itemKey = (prefix: number, k: PolicyItemKey): Uint8Array =>
  new Uint8Array(Buffer.from(`${String.fromCharCode(prefix)}${k.policyId}\u0000${k.hash}`, 'latin1'));

interface MetaRecord {
  readonly type: PrivacyDataType;
  readonly length: number;
  readonly meta: PolicyItemMeta;
}

function encodeRecord(r: MetaRecord): Uint8Array {
  const meta = encodeItemMeta(r.meta);
  const out = new Uint8Array(9 + meta.length);
  out[0] = DATA_TYPE_BYTE[r.type];
  new DataView(out.buffer).setBigUint64(1, BigInt(r.length));
  out.set(meta, 9);
  return out;
}

function decodeRecord(bytes: Uint8Array): MetaRecord {
  const type = dataTypeOfByte(bytes[0] ?? -1);
  if (type === undefined) throw new StorageFailure(`corrupt metadata record: type byte ${bytes[0]}`);
  const length = Number(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(1));
  return { type, length, meta: decodeItemMeta(bytes.subarray(9)) };
}

export class EmbeddedStorage implements PolicyStorage {
  readonly vendor = 'embedded';
  /** Keys whose upload is being committed, so two uploads of one item never both land. */
  private readonly committing = new Set<string>();

  private constructor(
    private readonly db: RootDatabase<Uint8Array, Uint8Array>,
    private readonly largeDir: string,
    private readonly incomingDir: string,
  ) {}

  /** Opens (or creates) the storage in `directory`, clearing what an interrupted upload left. */
  static async open(directory: string): Promise<EmbeddedStorage> {
    const largeDir = join(directory, 'large');
    const incomingDir = join(directory, 'incoming');
    await mkdir(largeDir, { recursive: true });
    await mkdir(incomingDir, { recursive: true });
    const db = open<Uint8Array, Uint8Array>({
      path: join(directory, 'meta'),
      keyEncoding: 'binary',
      encoding: 'binary',
      compression: false,
      noSync: false,
      overlappingSync: false,
      mapSize: 16 * 1024 * 1024 * 1024,
    });
    const storage = new EmbeddedStorage(db, largeDir, incomingDir);
    await storage.recover();
    return storage;
  }

  /** Removes every trace of uploads a crash interrupted. */
  private async recover(): Promise<void> {
    for (const name of await readdir(this.incomingDir)) await rm(join(this.incomingDir, name), { force: true });
    const journal = [...this.db.getRange({ start: Uint8Array.of(UPLOAD), end: Uint8Array.of(UPLOAD + 1) })].map(({ key, value }) => ({
      key: Uint8Array.from(key),
      item: Buffer.from(value).toString('latin1'),
    }));
    for (const { key, item } of journal) {
      const [policyId = '', hash = ''] = item.split('\u0000');
      if (this.db.get(itemKey(META, { policyId, hash })) === undefined) await rm(this.largePath({ policyId, hash }), { force: true });
      await this.db.remove(key);
    }
  }

  private largePath(k: PolicyItemKey): string {
    return join(this.largeDir, `${k.policyId}.${k.hash}`);
  }

  private record(k: PolicyItemKey): MetaRecord | undefined {
    const v = this.db.get(itemKey(META, k));
    return v === undefined ? undefined : decodeRecord(v);
  }

  exists(key: PolicyItemKey): Promise<boolean> {
    return Promise.resolve(this.db.get(itemKey(META, key)) !== undefined);
  }

  itemType(key: PolicyItemKey): Promise<PrivacyDataType | undefined> {
    return Promise.resolve(this.record(key)?.type);
  }

  meta(key: PolicyItemKey): Promise<PolicyItemMeta | undefined> {
    return Promise.resolve(this.record(key)?.meta);
  }

  metas(request: ReadonlyMap<string, ReadonlySet<string>>): Promise<PolicyItemMeta[]> {
    const out: PolicyItemMeta[] = [];
    for (const [policyId, hashes] of request) {
      for (const hash of hashes) {
        const r = this.record({ policyId, hash });
        if (r !== undefined) out.push(r.meta);
      }
    }
    return Promise.resolve(out);
  }

  async readData(key: PolicyItemKey): Promise<Uint8Array | undefined> {
    const r = this.record(key);
    if (r === undefined) return undefined;
    if (r.type === 'default') {
      const v = this.db.get(itemKey(DATA, key));
      return v === undefined ? undefined : Uint8Array.from(v);
    }
    try {
      return new Uint8Array(await readFile(this.largePath(key)));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new StorageFailure(`reading ${this.largePath(key)}: ${(e as Error).message}`, { cause: e });
    }
  }

  async openData(key: PolicyItemKey): Promise<StoredData | undefined> {
    const r = this.record(key);
    if (r === undefined) return undefined;
    if (r.type === 'default') {
      const v = this.db.get(itemKey(DATA, key));
      return v === undefined ? undefined : { length: v.length, stream: Readable.from([Buffer.from(v)], { objectMode: false }) };
    }
    const path = this.largePath(key);
    try {
      const { size } = await stat(path);
      return { length: size, stream: createReadStream(path, { highWaterMark: READ_CHUNK }) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new StorageFailure(`opening ${path}: ${(e as Error).message}`, { cause: e });
    }
  }

  async save(meta: PolicyItemMeta, type: PrivacyDataType, data: IncomingData): Promise<void> {
    if (type === 'default' && data instanceof Uint8Array) return this.saveSmall(meta, data);
    return this.saveLarge(meta, type, data);
  }

  private async saveSmall(meta: PolicyItemMeta, data: Uint8Array): Promise<void> {
    const digest = new ItemDigest();
    digest.update(data);
    digest.check(meta.hash);
    const metaKey = itemKey(META, meta);
    const stored = await this.db.transaction(() => {
      if (this.db.get(metaKey) !== undefined) return false;
      void this.db.put(itemKey(DATA, meta), data);
      void this.db.put(metaKey, encodeRecord({ type: 'default', length: data.length, meta }));
      return true;
    });
    if (!stored) throw entityAlreadyExists();
  }

  private async saveLarge(meta: PolicyItemMeta, type: PrivacyDataType, data: IncomingData): Promise<void> {
    const uploadId = randomBytes(12).toString('hex');
    const journalKey = new Uint8Array(Buffer.from(`${String.fromCharCode(UPLOAD)}${uploadId}`, 'latin1'));
    await this.db.put(journalKey, new Uint8Array(Buffer.from(`${meta.policyId}\u0000${meta.hash}`, 'latin1')));
    const partPath = join(this.incomingDir, `${uploadId}.part`);
    const finalPath = this.largePath(meta);
    let renamed = false;
    let locked = false;
    const lockKey = `${meta.policyId}\u0000${meta.hash}`;
    try {
      const digest = new ItemDigest();
      const file = await onDisk(`creating ${partPath}`, () => openFile(partPath, 'wx'));
      const writer = new BatchedWriter(file, partPath);
      try {
        for await (const chunk of chunksOf(data)) {
          digest.update(chunk);
          await writer.write(chunk);
        }
        await writer.end();
        await onDisk(`syncing ${partPath}`, () => file.sync());
      } finally {
        await writer.settled();
        await file.close();
      }
      digest.check(meta.hash);
      if (this.committing.has(lockKey) || this.db.get(itemKey(META, meta)) !== undefined) throw entityAlreadyExists();
      this.committing.add(lockKey);
      locked = true;
      await onDisk(`moving ${partPath} to ${finalPath}`, () => rename(partPath, finalPath));
      renamed = true;
      await onDisk(`syncing ${this.largeDir}`, () => syncDirectory(this.largeDir));
      await this.db.transaction(() => {
        void this.db.put(itemKey(META, meta), encodeRecord({ type, length: digest.length, meta }));
        void this.db.remove(journalKey);
      });
    } catch (e) {
      await rm(partPath, { force: true });
      if (renamed && this.db.get(itemKey(META, meta)) === undefined) await rm(finalPath, { force: true });
      await this.db.remove(journalKey);
      throw e;
    } finally {
      if (locked) this.committing.delete(lockKey);
    }
  }

  async healthCheck(): Promise<void> {
    try {
      await stat(this.largeDir);
      void this.db.get(Uint8Array.of(META));
    } catch (e) {
      throw new StorageFailure(`embedded storage unusable: ${(e as Error).message}`, { cause: e });
    }
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}

/** A file-system operation whose failure (full disk, permissions) is the storage's: StorageFailure. */
async function onDisk<T>(what: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (e) {
    throw new StorageFailure(`${what}: ${(e as Error).message}`, { cause: e });
  }
}

/**
 * A file written from a stream of chunks in batches of WRITE_BATCH bytes, one writev at a
 * time: while a batch is being written (on libuv's threads) the next one gathers, so the
 * chunks' hashing and the socket reads overlap the disk writes instead of waiting for each,
 * and a writev costs one thread-pool round trip per batch instead of one per chunk. At
 * most two batches are held: `write` waits while a full batch stands behind the one being
 * written.
 */
class BatchedWriter {
  private batch: Uint8Array[] = [];
  private batchBytes = 0;
  private writing: Promise<void> | undefined;

  constructor(
    private readonly file: FileHandle,
    private readonly path: string,
  ) {}

  async write(chunk: Uint8Array): Promise<void> {
    this.batch.push(chunk);
    this.batchBytes += chunk.length;
    if (this.batchBytes < WRITE_BATCH) return;
    await this.writing;
    this.flush();
  }

  /** Writes what is left; resolves once every byte is written. */
  async end(): Promise<void> {
    await this.writing;
    if (this.batchBytes > 0) this.flush();
    await this.writing;
  }

  /** Resolves once no write is under way, whatever its outcome (the file can then be closed). */
  async settled(): Promise<void> {
    await this.writing?.catch(() => undefined);
  }

  private flush(): void {
    const buffers = this.batch;
    const expected = this.batchBytes;
    this.batch = [];
    this.batchBytes = 0;
    const writing = onDisk(`writing ${this.path}`, async () => {
      const { bytesWritten } = await this.file.writev(buffers);
      if (bytesWritten !== expected) throw new Error(`${bytesWritten} of ${expected} bytes written`);
    });
    // Awaited by the next write or end; a failure meanwhile is not unhandled.
    writing.catch(() => undefined);
    this.writing = writing;
  }
}

/** fsync of a directory, so a rename into it survives a crash. */
async function syncDirectory(path: string): Promise<void> {
  const dir = await openFile(path, 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}
