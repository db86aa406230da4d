/**
 * The node's keystore (WE's wallet): a JSON file of key pairs, each private key encrypted
 * with its own password.
 *
 * File format (version 1), written atomically (temp file + rename) with mode 0600:
 *
 *   { "format": "weft-keystore", "version": 1, "crypto": "waves", "chainId": "T",
 *     "entries": [ { "address": "3N…", "publicKey": "<Base58>", "passwordProtected": true,
 *                    "kdf": { "name": "scrypt", "N": 32768, "r": 8, "p": 1, "salt": "<Base64, 16 bytes>" },
 *                    "cipher": { "name": "aes-256-gcm", "nonce": "<Base64, 12 bytes>",
 *                                "ciphertext": "<Base64>", "tag": "<Base64, 16 bytes>" } } ] }
 *
 * The AES-256-GCM key is scrypt(password, salt); the additional authenticated data binds the
 * ciphertext to its entry (format, version, crypto, chain id, address, public key), so a
 * ciphertext moved to another entry, or any changed byte, fails authentication. Salt and
 * nonce are fresh random bytes per entry. An entry may have the empty password; as in WE,
 * whose password-less entries are stored in plain, such an entry unlocks whatever password
 * the caller gives ("passwordProtected": false).
 *
 * Addresses and public keys are in clear: `GET /addresses` and `/addresses/info` list them
 * without a password, as WE does. Every failure to unlock — unknown address, wrong or
 * missing password, tampered entry — is WE's error 115.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { AddressScheme } from '../crypto/address.js';
import { decodeBase58, decodeBase64, encodeBase58, encodeBase64, equalBytes } from '../crypto/encoding.js';
import type { KeyPair } from '../crypto/suite.js';
import { missingSenderPrivateKey, tooManyFailedUnlocks } from '../errors/catalogue.js';
import { InternalError } from '../errors/internal.js';

export const KEYSTORE_FORMAT = 'weft-keystore';
export const KEYSTORE_VERSION = 1;

/** The keystore file is unreadable, malformed or for another network (an operator error, not a client's). */
export class KeystoreError extends InternalError {
  override readonly name = 'KeystoreError';
}

export interface ScryptParams {
  /** CPU/memory cost, a power of two. */
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/** scrypt cost for new entries: 2^15 · 8 · 128 B = 32 MiB, ≈ 70 ms per derivation here. */
export const DEFAULT_SCRYPT: ScryptParams = { N: 2 ** 15, r: 8, p: 1 };

/** Bounds accepted when reading a file (a hostile file must not make us allocate gigabytes). */
const SCRYPT_LIMITS = { minLogN: 10, maxLogN: 20, maxR: 32, maxP: 16 };
const SALT_LENGTH = 16;
const NONCE_LENGTH = 12;
const TAG_LENGTH = 16;

export interface KeystoreOptions {
  /** scrypt cost of entries added from now on (tests use a small N). */
  readonly scrypt?: ScryptParams;
  /** Wrong passwords an address takes per window (default DEFAULT_UNLOCK_LIMIT). */
  readonly unlockLimit?: { readonly maxFailures: number; readonly windowMs: number };
  /** Wall clock in milliseconds for the unlock limit (default Date.now). */
  readonly now?: () => number;
}

/** What anyone may read about an entry. */
export interface KeystoreEntryInfo {
  readonly address: string;
  readonly publicKey: Uint8Array;
  readonly passwordProtected: boolean;
}

interface StoredEntry extends KeystoreEntryInfo {
  readonly kdf: ScryptParams & { readonly salt: Uint8Array };
  readonly nonce: Uint8Array;
  readonly ciphertext: Uint8Array;
  readonly tag: Uint8Array;
}

function scryptMaxmem(p: ScryptParams): number {
  return 128 * p.N * p.r * (p.p + 2) + 1024 * 1024;
}

function deriveKey(password: string, salt: Uint8Array, p: ScryptParams): Buffer {
  return scryptSync(Buffer.from(password, 'utf8'), salt, 32, { N: p.N, r: p.r, p: p.p, maxmem: scryptMaxmem(p) });
}

/** deriveKey on libuv's thread pool: the event loop goes on while scrypt runs. */
function deriveKeyOffThread(password: string, salt: Uint8Array, p: ScryptParams): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(Buffer.from(password, 'utf8'), salt, 32, { N: p.N, r: p.r, p: p.p, maxmem: scryptMaxmem(p) }, (e, key) => (e === null ? resolve(key) : reject(e)));
  });
}

/** Wrong passwords an address takes within the window before it refuses unlocking until the window has passed. */
export const DEFAULT_UNLOCK_LIMIT = { maxFailures: 5, windowMs: 60_000 };

/**
 * Failed unlocks per address: after `maxFailures` wrong passwords within `windowMs` (attempts
 * still running count too, so a burst cannot slip past), the address refuses unlocking until
 * the oldest failure leaves the window — guessing passwords gets `maxFailures` tries a window.
 */
class FailedUnlocks {
  private readonly failures = new Map<string, number[]>();
  private readonly running = new Map<string, number>();

  constructor(
    private readonly limit: { readonly maxFailures: number; readonly windowMs: number },
    private readonly now: () => number,
  ) {}

  /** Starts an attempt; throws the limit error when the address takes none now. */
  begin(address: string): void {
    const now = this.now();
    const recent = (this.failures.get(address) ?? []).filter((t) => now - t < this.limit.windowMs);
    if (recent.length === 0) this.failures.delete(address);
    else this.failures.set(address, recent);
    if (recent.length + (this.running.get(address) ?? 0) >= this.limit.maxFailures) {
      const oldest = recent[0] ?? now;
      throw tooManyFailedUnlocks(Math.max(1, Math.ceil((oldest + this.limit.windowMs - now) / 1000)));
    }
    this.running.set(address, (this.running.get(address) ?? 0) + 1);
  }

  /** Forgets every failure (a reloaded keystore starts afresh). */
  clear(): void {
    this.failures.clear();
  }

  end(address: string, succeeded: boolean): void {
    const running = (this.running.get(address) ?? 1) - 1;
    if (running === 0) this.running.delete(address);
    else this.running.set(address, running);
    if (succeeded) this.failures.delete(address);
    else this.failures.set(address, [...(this.failures.get(address) ?? []), this.now()]);
  }
}

function checkScrypt(p: ScryptParams, what: string): void {
  const logN = Math.log2(p.N);
  if (
    !Number.isInteger(logN) ||
    logN < SCRYPT_LIMITS.minLogN ||
    logN > SCRYPT_LIMITS.maxLogN ||
    !Number.isInteger(p.r) ||
    p.r < 1 ||
    p.r > SCRYPT_LIMITS.maxR ||
    !Number.isInteger(p.p) ||
    p.p < 1 ||
    p.p > SCRYPT_LIMITS.maxP
  ) {
    throw new KeystoreError(`${what}: scrypt parameters out of range (N a power of two from 2^10 to 2^20, r 1–32, p 1–16)`);
  }
}

/** A UTF-8 file's text, or undefined when there is no such file (other read errors throw). */
export function readTextIfPresent(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** Writes a file atomically: a 0600 temp file in the same directory, fsync, rename, fsync of the directory. */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw e;
  }
  closeSync(fd);
  try {
    renameSync(temp, path);
  } catch (e) {
    rmSync(temp, { force: true });
    throw e;
  }
  try {
    const dirFd = openSync(dir, 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  } catch {
    // Directories cannot be fsynced on every platform; the rename is still atomic.
  }
}

export class Keystore {
  private entries = new Map<string, StoredEntry>();
  /** Unlocked keys of this process: address → (HMAC of the password that unlocked it, key pair). */
  private readonly unlockedKeys = new Map<string, { tag: Buffer; keyPair: KeyPair }>();
  /** Per-process secret for those HMACs: passwords themselves are never kept. */
  private readonly cacheKey = randomBytes(32);
  private readonly scrypt: ScryptParams;
  private readonly failedUnlocks: FailedUnlocks;

  private constructor(
    /** Absolute path of the keystore file. */
    readonly path: string,
    private readonly scheme: AddressScheme,
    options: KeystoreOptions,
  ) {
    this.scrypt = options.scrypt ?? DEFAULT_SCRYPT;
    checkScrypt(this.scrypt, 'keystore options');
    this.failedUnlocks = new FailedUnlocks(options.unlockLimit ?? DEFAULT_UNLOCK_LIMIT, options.now ?? Date.now);
  }

  /**
   * Opens a keystore file for a network (its chain id and crypto suite). A missing or empty
   * file is an empty keystore; the file is created by the first `addKeyPair`.
   */
  static open(path: string, scheme: AddressScheme, options: KeystoreOptions = {}): Keystore {
    const ks = new Keystore(resolve(path), scheme, options);
    ks.reload();
    return ks;
  }

  /** Re-reads the file (WE's `POST /utils/reload-wallet`); unlocked keys and failed unlocks are forgotten. */
  reload(): void {
    this.entries = this.readFile();
    this.unlockedKeys.clear();
    this.failedUnlocks.clear();
  }

  /** Addresses in the order they were added. */
  addresses(): string[] {
    return [...this.entries.keys()];
  }

  has(address: string): boolean {
    return this.entries.has(address);
  }

  info(): KeystoreEntryInfo[] {
    return [...this.entries.values()].map(({ address, publicKey, passwordProtected }) => ({ address, publicKey, passwordProtected }));
  }

  /** The public key of an address in the keystore (no password needed); 115 if absent. */
  publicKey(address: string): Uint8Array {
    const entry = this.entries.get(address);
    if (entry === undefined) throw missingSenderPrivateKey();
    return entry.publicKey;
  }

  /**
   * The key pair of an address, unlocked with its password (undefined = no password). WE's
   * error 115 when the address is not in the keystore, the password is wrong or missing, or
   * the entry was tampered with.
   */
  keyPair(address: string, password?: string): KeyPair {
    const { entry, effective, tag, cached } = this.lookup(address, password);
    if (cached !== undefined) return cached;
    this.failedUnlocks.begin(address);
    const privateKey = this.decrypt(entry, deriveKey(effective, entry.kdf.salt, entry.kdf));
    return this.unlocked(entry, tag, privateKey);
  }

  /**
   * keyPair with the password derived off the event loop: what REST requests use, so wrong
   * passwords cost the node no main-thread time. Unlocked keys are kept for the life of the
   * process (until `reload`); an address refuses unlocking for a while after repeated wrong
   * passwords (115, 429 — see DEFAULT_UNLOCK_LIMIT).
   */
  async unlock(address: string, password?: string): Promise<KeyPair> {
    const { entry, effective, tag, cached } = this.lookup(address, password);
    if (cached !== undefined) return cached;
    this.failedUnlocks.begin(address);
    let key: Buffer;
    try {
      key = await deriveKeyOffThread(effective, entry.kdf.salt, entry.kdf);
    } catch (e) {
      this.failedUnlocks.end(address, false);
      throw e;
    }
    return this.unlocked(entry, tag, this.decrypt(entry, key));
  }

  private lookup(address: string, password: string | undefined) {
    const entry = this.entries.get(address);
    if (entry === undefined) throw missingSenderPrivateKey();
    const effective = entry.passwordProtected ? (password ?? '') : '';
    const tag = createHmac('sha256', this.cacheKey).update(address).update('\0').update(effective, 'utf8').digest();
    const hit = this.unlockedKeys.get(address);
    const cached = hit !== undefined && timingSafeEqual(hit.tag, tag) ? hit.keyPair : undefined;
    return { entry, effective, tag, cached };
  }

  /** Ends an unlock attempt: the key pair kept and returned, or 115 counted as a failure. */
  private unlocked(entry: StoredEntry, tag: Buffer, privateKey: Uint8Array | undefined): KeyPair {
    this.failedUnlocks.end(entry.address, privateKey !== undefined);
    if (privateKey === undefined) throw missingSenderPrivateKey();
    const keyPair: KeyPair = { privateKey, publicKey: entry.publicKey };
    this.unlockedKeys.set(entry.address, { tag, keyPair });
    return keyPair;
  }

  /**
   * Adds a key pair, its private key encrypted with `password` ('' for none), and writes the
   * file. Entries another process added to the file meanwhile are kept. Returns the address.
   */
  addKeyPair(keyPair: KeyPair, password: string): string {
    const suite = this.scheme.crypto;
    if (keyPair.publicKey.length !== suite.publicKeyLength) {
      throw new KeystoreError(`public key must be ${suite.publicKeyLength} bytes for ${suite.type} crypto, got ${keyPair.publicKey.length}`);
    }
    if (keyPair.privateKey.length !== suite.privateKeyLength) {
      throw new KeystoreError(`private key must be ${suite.privateKeyLength} bytes for ${suite.type} crypto, got ${keyPair.privateKey.length}`);
    }
    if (!equalBytes(suite.publicKeyOf(keyPair.privateKey), keyPair.publicKey)) {
      throw new KeystoreError('the public key does not belong to the private key');
    }
    const address = this.scheme.fromPublicKey(keyPair.publicKey).toString();
    const current = this.readFile();
    if (current.has(address)) throw new KeystoreError(`address ${address} is already in the keystore`);
    current.set(address, this.encrypt(address, keyPair, password));
    this.writeFile(current);
    this.entries = current;
    return address;
  }

  // -------------------------------------------------------------------------

  private aad(address: string, publicKey: Uint8Array): Buffer {
    const s = this.scheme;
    return Buffer.from(`${KEYSTORE_FORMAT}/${KEYSTORE_VERSION}/${s.crypto.type}/${s.chainChar}/${address}/${encodeBase58(publicKey)}`, 'utf8');
  }

  private encrypt(address: string, keyPair: KeyPair, password: string): StoredEntry {
    const salt = randomBytes(SALT_LENGTH);
    const nonce = randomBytes(NONCE_LENGTH);
    const cipher = createCipheriv('aes-256-gcm', deriveKey(password, salt, this.scrypt), nonce, { authTagLength: TAG_LENGTH });
    cipher.setAAD(this.aad(address, keyPair.publicKey));
    const ciphertext = Buffer.concat([cipher.update(keyPair.privateKey), cipher.final()]);
    return {
      address,
      publicKey: Uint8Array.from(keyPair.publicKey),
      passwordProtected: password !== '',
      kdf: { ...this.scrypt, salt },
      nonce,
      ciphertext,
      tag: cipher.getAuthTag(),
    };
  }

  private decrypt(entry: StoredEntry, key: Buffer): Uint8Array | undefined {
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, entry.nonce, { authTagLength: TAG_LENGTH });
      decipher.setAAD(this.aad(entry.address, entry.publicKey));
      decipher.setAuthTag(entry.tag);
      const privateKey = new Uint8Array(Buffer.concat([decipher.update(entry.ciphertext), decipher.final()]));
      const suite = this.scheme.crypto;
      if (privateKey.length !== suite.privateKeyLength || !equalBytes(suite.publicKeyOf(privateKey), entry.publicKey)) return undefined;
      return privateKey;
    } catch {
      return undefined;
    }
  }

  private readFile(): Map<string, StoredEntry> {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
      throw new KeystoreError(`cannot read keystore '${this.path}': ${(e as Error).message}`);
    }
    if (text.trim() === '') return new Map();
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw new KeystoreError(`keystore '${this.path}' is not valid JSON: ${(e as Error).message}`);
    }
    return this.parseDocument(doc);
  }

  private parseDocument(doc: unknown): Map<string, StoredEntry> {
    const where = `keystore '${this.path}'`;
    const bad = (what: string): never => {
      throw new KeystoreError(`${where}: ${what}`);
    };
    const obj = (v: unknown, what: string): Record<string, unknown> =>
      typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : bad(`${what} must be an object`);
    const str = (v: unknown, what: string): string => (typeof v === 'string' ? v : bad(`${what} must be a string`));
    const int = (v: unknown, what: string): number => (typeof v === 'number' && Number.isSafeInteger(v) ? v : bad(`${what} must be an integer`));
    const b64 = (v: unknown, what: string, length?: number): Uint8Array => {
      let bytes: Uint8Array;
      try {
        bytes = decodeBase64(str(v, what));
      } catch {
        return bad(`${what} is not Base64`);
      }
      if (length !== undefined && bytes.length !== length) bad(`${what} must be ${length} bytes`);
      return bytes;
    };
    const root = obj(doc, 'the document');
    if (root['format'] !== KEYSTORE_FORMAT) bad(`not a Weft keystore (format must be "${KEYSTORE_FORMAT}")`);
    if (root['version'] !== KEYSTORE_VERSION)
      bad(`unsupported keystore version ${JSON.stringify(root['version'])} (this node reads version ${KEYSTORE_VERSION})`);
    const s = this.scheme;
    const crypto = str(root['crypto'], 'crypto');
    const chainId = str(root['chainId'], 'chainId');
    if (crypto !== s.crypto.type || chainId !== s.chainChar) {
      bad(`holds keys of chain '${chainId}' (${crypto} crypto), but this network is chain '${s.chainChar}' (${s.crypto.type} crypto)`);
    }
    const list = root['entries'];
    if (!Array.isArray(list)) bad('entries must be a list');
    const out = new Map<string, StoredEntry>();
    (list as unknown[]).forEach((item, i) => {
      const at = `entries[${i}]`;
      const e = obj(item, at);
      const address = str(e['address'], `${at}.address`);
      let publicKey: Uint8Array;
      try {
        publicKey = decodeBase58(str(e['publicKey'], `${at}.publicKey`));
      } catch (err) {
        if (err instanceof KeystoreError) throw err;
        return bad(`${at}.publicKey is not Base58`);
      }
      if (publicKey.length !== s.crypto.publicKeyLength) bad(`${at}.publicKey must be ${s.crypto.publicKeyLength} bytes`);
      if (s.fromPublicKey(publicKey).toString() !== address) bad(`${at}.address does not match its public key`);
      if (out.has(address)) bad(`${at}: address ${address} appears twice`);
      const protectedFlag = e['passwordProtected'];
      if (typeof protectedFlag !== 'boolean') bad(`${at}.passwordProtected must be a boolean`);
      const kdf = obj(e['kdf'], `${at}.kdf`);
      if (kdf['name'] !== 'scrypt') bad(`${at}.kdf.name must be "scrypt"`);
      const params = { N: int(kdf['N'], `${at}.kdf.N`), r: int(kdf['r'], `${at}.kdf.r`), p: int(kdf['p'], `${at}.kdf.p`) };
      checkScrypt(params, `${where} ${at}.kdf`);
      const cipher = obj(e['cipher'], `${at}.cipher`);
      if (cipher['name'] !== 'aes-256-gcm') bad(`${at}.cipher.name must be "aes-256-gcm"`);
      out.set(address, {
        address,
        publicKey,
        passwordProtected: protectedFlag as boolean,
        kdf: { ...params, salt: b64(kdf['salt'], `${at}.kdf.salt`, SALT_LENGTH) },
        nonce: b64(cipher['nonce'], `${at}.cipher.nonce`, NONCE_LENGTH),
        ciphertext: b64(cipher['ciphertext'], `${at}.cipher.ciphertext`),
        tag: b64(cipher['tag'], `${at}.cipher.tag`, TAG_LENGTH),
      });
    });
    return out;
  }

  private writeFile(entries: Map<string, StoredEntry>): void {
    const doc = {
      format: KEYSTORE_FORMAT,
      version: KEYSTORE_VERSION,
      crypto: this.scheme.crypto.type,
      chainId: this.scheme.chainChar,
      entries: [...entries.values()].map((e) => ({
        address: e.address,
        publicKey: encodeBase58(e.publicKey),
        passwordProtected: e.passwordProtected,
        kdf: { name: 'scrypt', N: e.kdf.N, r: e.kdf.r, p: e.kdf.p, salt: encodeBase64(e.kdf.salt) },
        cipher: { name: 'aes-256-gcm', nonce: encodeBase64(e.nonce), ciphertext: encodeBase64(e.ciphertext), tag: encodeBase64(e.tag) },
      })),
    };
    writeFileAtomic(this.path, `${JSON.stringify(doc, null, 2)}\n`);
  }
}
