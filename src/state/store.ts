/**
 * The node's store: one LMDB environment, binary keys and values, every write of a
 * height in one synchronous transaction, so a crash leaves the node at the previous
 * commit or the new one.
 *
 * Durability: a commit returns once LMDB has written its pages into the file (the OS page
 * cache holds them), without waiting on fsync (LMDB's noSync); the fsync runs behind on
 * lmdb-js's thread pool, one at a time, starting again as soon as commits came in meanwhile.
 * So a process crash (kill -9) loses nothing a commit returned for, while a power cut or
 * OS crash can lose the commits since the last fsync that finished (see the README's
 * "Durability"). `flushed()` resolves once every commit so far is on disk.
 *
 * Key families (first key byte) are all declared in `F` below. Values read "at height"
 * are versioned: the current value under its own key for one-step reads, plus a history
 * entry per height that changed it. Every write of a height also records an undo entry,
 * so rolling a height back restores exactly what was there before it.
 */
import { createHash } from 'node:crypto';
import { open, type Database, type RootDatabase } from 'lmdb';
import { ADDRESS_LENGTH } from '../crypto/address.js';
import { Block, type BlockSummary } from '../protocol/blocks/block.js';
import { assembleLiquidBlock, parseMicroBlock, type MicroBlock } from '../protocol/blocks/micro-block.js';
import type { Protocol } from '../protocol/protocol.js';
import type { DataEntry } from '../protocol/transactions/fields.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import {
  decode,
  encode,
  NO_LEASE,
  type AssetInfo,
  type LeaseBalance,
  type LeaseDetails,
  type MinerBanEntry,
  type Participant,
  type PermissionOp,
  type Policy,
  type TxLocation,
  type AddressTxEntry,
  writeTxLocation,
  writeU32,
} from './model.js';
import { type PolicyDataHashEntry, type StateChanges, type StateView } from './view.js';
import { decodeContractInfo, encodeContractInfo, type ContractInfo } from './contract-info.js';
import { bytesKey, concatBytes, equalBytes } from '../crypto/encoding.js';
import { StoreFormatError } from '../errors/catalogue.js';

/** Key families. Versioned families have a current-value family and a history family. */
export const F = {
  META: 0x00,
  BLOCK: 0x01, // height u32 → full block bytes; at an NG height not yet final: its key block (the liquid block is assembled from MICRO)
  BLOCK_ID: 0x02, // block id (or liquid total signature) → height u32 ‖ transaction count at that id
  HEADER: 0x08, // height u32 → the block's header: its bytes without transactions, under its first id
  MICRO: 0x09, // height u32 ‖ index u32 → micro-block bytes, in order (written once each; dropped once the height is past any rollback)
  BLOCK_SUMMARY: 0x0f, // height u32 → the block's id, size, transaction count and fee as of the height's last commit (empty: not known, see blockSummary)
  TX: 0x03, // tx id → height u32 ‖ tx bytes
  ADDRESS_TX: 0x04, // address ‖ height u32 ‖ seq u32 → tx id (one entry per transaction: stores written before ADDRESS_TXS; read, no longer written)
  ADDRESS_TXS: 0x11, // address ‖ height u32 ‖ first seq u32 of the commit → (seq u32 ‖ id length u8 ‖ tx id) × n: one commit's transactions of the address
  ALIAS: 0x05, // alias name → address
  ALIAS_OF: 0x06, // address ‖ alias name → (empty)
  POLICY_DATA_HASH: 0x07, // policy id ‖ hash → id of the PolicyDataHash transaction
  // PKI certificates carried by mined transactions (WE's "certs" column family), first per subject DN only:
  CERT: 0x0a, // DN hash (SHA-1 of the RFC 2253 subject DN) → DER certificate
  CERT_BY_KEY: 0x0b, // public key → DN hash
  CERT_BY_FINGERPRINT: 0x0c, // SHA-1 of the DER → DN hash
  CERT_AT: 0x0d, // height u32 ‖ DN hash → (empty): the certificates a height stored
  EXECUTED_TX: 0x0e, // executable transaction id (103, 104, 107) → id of the ExecutedContract (105) that executed it
  ASSET_HOLDER: 0x10, // asset id ‖ holder → (empty): every holder whose balance of the asset ever changed
  // versioned: current at 0x20 + n, history at 0x40 + n
  BALANCE: 0x20, // holder ‖ asset id (absent for WEST) → bigint
  LEASE_BALANCE: 0x21, // address → in ‖ out
  ASSET: 0x22, // asset id → AssetInfo
  LEASE: 0x23, // lease id → LeaseDetails
  DATA: 0x24, // address ‖ key → data entry
  SCRIPT: 0x25, // address → script
  PERMISSION_OPS: 0x26, // address → every op
  ROLE_HOLDERS: 0x27, // role byte → addresses
  PARTICIPANT: 0x28, // address → participant
  PARTICIPANTS: 0x29, // (none) → addresses in registration order
  POLICY: 0x2a, // policy id → owners, recipients
  CARRY_FEE: 0x2b, // (none) → bigint
  MINER_BANS: 0x2c, // address → warnings and bans
  CONTRACT: 0x34, // contract id → ContractInfo
  CONTRACT_DATA: 0x35, // contract id ‖ key (UTF-8) → data entry
  CONTRACT_IDS: 0x36, // (none) → contract ids in creation order
  FEATURE_VOTES: 0x3a, // voting window u32 → feature id → votes (feature map)
  APPROVED_FEATURES: 0x3b, // (none) → feature id → approval height (feature map)
  CHAIN_SCORE: 0x3c, // (none) → bigint: the sum of block scores
  UNDO: 0x7f, // height u32 ‖ kind ‖ key → prior value (plain) or empty (versioned)
} as const;

const HISTORY_OFFSET = 0x20;
const META_HEIGHT = Uint8Array.from([F.META, 1]);
const META_CHAIN = Uint8Array.from([F.META, 2]);
/** Set once the ASSET_HOLDER index covers every asset balance in the store. */
const META_ASSET_HOLDERS = Uint8Array.from([F.META, 4]);
/** The height whose block is a key block plus stored micro-blocks (its full bytes not written yet) ‖ how many; empty for none. */
const META_LIQUID = Uint8Array.from([F.META, 5]);
const NO_LIQUID = new Uint8Array(0);
/** The layout version the store was last written in (u32; absent: 1, from before the mark). */
const META_FORMAT = Uint8Array.from([F.META, 6]);
/**
 * The store layout this build writes, marked in META_FORMAT when a store is created or opened
 * by this build; a store marked with a later one is refused at open. 1: the address index as
 * one ADDRESS_TX entry per transaction (stores without a mark); 2: one ADDRESS_TXS entry per
 * address and commit (ADDRESS_TX entries are still read).
 */
export const STORE_FORMAT = 2;
const TOMBSTONE = Uint8Array.from([0xde, 0xad]);
const ABSENT = Uint8Array.from([0]);
const PRESENT = Uint8Array.from([1]);
const UNDO_VERSIONED = 1;
const UNDO_PLAIN = 2;
/** One entry per commit listing the new keys it wrote (HeightWriter.fresh), each u16 length ‖ key: undone by removing them. */
const UNDO_FRESH_KEYS = 3;

const u32 = (n: number): Uint8Array => {
  const b = new Uint8Array(4);
  writeU32(b, 0, n);
  return b;
};
const summaryKey = (height: number): Uint8Array => concatBytes(Uint8Array.from([F.BLOCK_SUMMARY]), u32(height));
const NO_SUMMARY = new Uint8Array(0);

/** u32 size ‖ u32 transaction count ‖ u16 id length ‖ id ‖ fee (model's bigint). */
function encodeSummary(s: BlockSummary): Uint8Array {
  const head = new Uint8Array(10);
  const view = new DataView(head.buffer);
  view.setUint32(0, s.size);
  view.setUint32(4, s.transactionCount);
  view.setUint16(8, s.id.length);
  return concatBytes(head, s.id, encode.bigint(s.fee));
}

function decodeSummary(v: Uint8Array): BlockSummary {
  const view = new DataView(v.buffer, v.byteOffset, v.byteLength);
  const idLength = view.getUint16(8);
  return {
    size: view.getUint32(0),
    transactionCount: view.getUint32(4),
    id: Uint8Array.from(v.subarray(10, 10 + idLength)),
    fee: decode.bigint(v.subarray(10 + idLength)),
  };
}

const microKey = (height: number, index: number): Uint8Array => concatBytes(Uint8Array.from([F.MICRO]), u32(height), u32(index));

const readU32 = (b: Uint8Array, at = 0): number => new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(at);

/** An id inside a composite key: u16 length ‖ bytes, so ids of any length never overlap. */
function idPart(id: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.from([id.length >> 8, id.length & 0xff]), id);
}

/** The key of a versioned value's history entry at `height`; without a height, the prefix of all its entries. */
function historyKey(family: number, id: Uint8Array, height?: number): Uint8Array {
  const prefix = concatBytes(Uint8Array.from([family + HISTORY_OFFSET]), idPart(id));
  return height === undefined ? prefix : concatBytes(prefix, u32(height));
}

const utf8 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'));

/** A plain Uint8Array copy of what LMDB returned. */
const copy = (v: Uint8Array | undefined): Uint8Array | undefined => (v === undefined ? undefined : Uint8Array.from(v));

/**
 * What LMDB returned as a plain Uint8Array, without copying: its `get` (binary encoding)
 * gives each call a buffer of its own — a copy out of its shared read buffer, or one made
 * for a large value — so only the type changes. For values too large to copy twice (a block
 * of thousands of transactions, read on every heavy REST answer).
 */
const own = (v: Uint8Array | undefined): Uint8Array | undefined => (v === undefined ? undefined : new Uint8Array(v.buffer, v.byteOffset, v.byteLength));

/** What one height commits besides state changes. */
export interface HeightCommit {
  readonly height: number;
  /**
   * Full bytes of the block at this height, when the height is first committed (a key block,
   * or a whole block). A micro-block gives `microBlock` instead: the store keeps micro-blocks
   * one by one and assembles the liquid block from them, so a micro-block costs its own
   * bytes, not the whole liquid block's; the full bytes are written once, when the next
   * height is committed.
   */
  readonly blockBytes?: Uint8Array;
  /** Bytes of a micro-block appended to the liquid block at this height. */
  readonly microBlock?: Uint8Array;
  /**
   * With a new height: the full bytes of the liquid block below it, as the chain holds it
   * (else the store assembles them from its micro-blocks).
   */
  readonly liquidBelow?: Uint8Array;
  /** Ids that resolve to this height — the key block id and each liquid total signature — with the transaction count at each. */
  readonly blockIds: ReadonlyArray<{ readonly id: Uint8Array; readonly transactionCount: number }>;
  /** The block's header record (bytes without transactions), given when the height is first committed. */
  readonly headerBytes?: Uint8Array;
  /** The block at this height as this commit leaves it (a liquid block: as assembled so far), for header reads. */
  readonly summary?: BlockSummary;
  /** Undo entries of this height and below are dropped: no rollback may reach them any more. */
  readonly pruneUndoAt?: number;
  readonly changes: StateChanges;
  /** Certificates the height's transactions carried; each is stored unless its subject DN already is. */
  readonly certificates?: readonly StoredCertificate[];
}

/** A certificate under WE's keys. */
export interface StoredCertificate {
  /** SHA-1 of the RFC 2253 subject DN. */
  readonly dnHash: Uint8Array;
  readonly der: Uint8Array;
  /** The account public key the certificate holds. */
  readonly publicKey: Uint8Array;
  /** SHA-1 of the DER. */
  readonly fingerprint: Uint8Array;
}

/** lmdb-js's `sync` (mdb_env_sync on its thread pool, calling back on this thread), which its typings leave out. */
interface SyncingRoot {
  sync(callback: (error?: Error | null) => void): void;
}

export class Store implements StateView {
  /** The stored height, cached between writes (the REST API reads it on every request). */
  private knownHeight: number | undefined;
  /** Current WEST balances read since the last write, by address (hot for the REST API and the pool). */
  private readonly westBalances = new Map<string, bigint>();
  /**
   * Account scripts, permission ops, role holders and lease balances read since the last
   * write (every transaction validated asks for its sender's script, permissions and lease
   * balance; the miner's key-block plan asks for the role holders on every look), and contracts
   * (each contract call asks for its contract's info several times: policy, runtime, applier).
   */
  private readonly readCache = {
    contracts: new Map<string, ContractInfo | undefined>(),
    scripts: new Map<string, Uint8Array | null>(),
    permissionOps: new Map<string, readonly PermissionOp[]>(),
    roleHolders: new Map<number, readonly Uint8Array[]>(),
    leaseBalances: new Map<string, LeaseBalance>(),
  };
  private writing = false;
  /** The fsync running behind the commits, if any. */
  private flushing: Promise<void> | undefined;
  /** A commit came in since the running fsync started. */
  private unflushed = false;
  /** Why the last fsync failed: nothing is committed after that. */
  private flushError: Error | undefined;

  private constructor(
    private readonly root: RootDatabase<Uint8Array, Uint8Array>,
    private readonly db: Database<Uint8Array, Uint8Array>,
    readonly protocol: Protocol,
  ) {}

  /** Opens (or creates) the store at `path` for a network; refuses a store of another chain. */
  static open(path: string, protocol: Protocol): Store {
    const root = open<Uint8Array, Uint8Array>({
      path,
      keyEncoding: 'binary',
      encoding: 'binary',
      compression: false,
      // Commits do not wait on fsync; Store.flushBehind syncs after them (see above).
      noSync: true,
      overlappingSync: false,
      mapSize: 64 * 1024 * 1024 * 1024,
    });
    const db = root;
    const store = new Store(root, db, protocol);
    const format = db.get(META_FORMAT);
    const found = format === undefined ? 1 : readU32(format);
    if (found > STORE_FORMAT) {
      void root.close();
      throw new StoreFormatError(`The store at ${path} is in format ${found}, written by a newer build; this build reads store formats up to ${STORE_FORMAT}`);
    }
    if (found < STORE_FORMAT) db.transactionSync(() => void db.put(META_FORMAT, u32(STORE_FORMAT)));
    const chain = db.get(META_CHAIN);
    const id = Uint8Array.from([protocol.chainId, protocol.crypto.type === 'gost' ? 1 : 0]);
    if (chain === undefined) db.transactionSync(() => void db.put(META_CHAIN, id));
    else if (!equalBytes(chain, id)) throw new Error(`The store at ${path} belongs to another network (chain or crypto type differs)`);
    if (db.get(META_ASSET_HOLDERS) === undefined) store.indexAssetHolders();
    store.flushBehind();
    return store;
  }

  /**
   * Builds the ASSET_HOLDER index from the stored asset balances, for a store written before
   * the index existed (an empty store just gets the mark). These entries have no undo: a
   * rollback keeps them, which only lists a holder whose balance reads zero.
   */
  private indexAssetHolders(): void {
    const db = this.db;
    db.transactionSync(() => {
      for (const key of db.getKeys({ start: Uint8Array.from([F.BALANCE]), end: Uint8Array.from([F.BALANCE + 1]) })) {
        const holderLength = (key[1]! << 8) | key[2]!;
        const assetId = key.subarray(3 + holderLength);
        if (assetId.length > 0) void db.put(assetHolderKey(assetId, key.subarray(3, 3 + holderLength)), new Uint8Array(0));
      }
      void db.put(META_ASSET_HOLDERS, PRESENT);
    });
  }

  async close(): Promise<void> {
    this.beginWrite(); // a closed store caches nothing
    try {
      await this.flushed();
    } finally {
      await this.root.close();
    }
  }

  // --- flushing to disk ---------------------------------------------------------

  /** After a commit: an fsync starts now unless one runs, which then starts another when it ends. */
  private flushBehind(): void {
    this.unflushed = true;
    this.flushing ??= this.flushLoop();
  }

  private async flushLoop(): Promise<void> {
    try {
      while (this.unflushed) {
        this.unflushed = false;
        const root = this.root as unknown as SyncingRoot;
        await new Promise<void>((resolve, reject) => root.sync((e) => (e ? reject(e) : resolve())));
      }
    } catch (e) {
      // A disk that cannot sync is not written to any more (see commit).
      this.flushError = e as Error;
    } finally {
      this.flushing = undefined;
    }
  }

  /** Resolves once every commit so far is on disk (fsync done); rejects when the disk refused a sync. */
  async flushed(): Promise<void> {
    while (this.flushing !== undefined) await this.flushing;
    if (this.flushError !== undefined) throw this.flushError;
  }

  private requireFlushable(): void {
    if (this.flushError !== undefined) throw new Error(`The store cannot be written: syncing it to disk failed (${this.flushError.message})`);
  }

  // --- low-level reads --------------------------------------------------------

  private current(family: number, id: Uint8Array): Uint8Array | undefined {
    return this.db.get(concatBytes(Uint8Array.from([family]), id));
  }

  /** The value a versioned key had after `height` was applied (undefined if none or deleted). */
  private versionedAt(family: number, id: Uint8Array, height: number): Uint8Array | undefined {
    for (const { value } of this.historyDown(family, id, height, 1)) return equalBytes(value, TOMBSTONE) ? undefined : value;
    return undefined;
  }

  /**
   * A versioned key's history entries at heights up to `to`, newest first (at most `limit`).
   * A value is the cursor's buffer, good until the next step.
   */
  private *historyDown(family: number, id: Uint8Array, to: number, limit?: number): Generator<{ height: number; value: Uint8Array }> {
    const prefix = historyKey(family, id);
    for (const { key, value } of this.db.getRange({
      start: concatBytes(prefix, u32(to)),
      end: prefix,
      reverse: true,
      ...(limit === undefined ? {} : { limit }),
    })) {
      yield { height: readU32(key, key.length - 4), value };
    }
  }

  /**
   * The amounts a versioned key held over [from, to], in one range read: each change at a
   * height up to `to`, newest first, down to (and including) the one in force at `from`, its
   * value read by `amount` (a deleted value, or none, is 0).
   */
  private amountsIn(family: number, id: Uint8Array, from: number, to: number, amount: (v: Uint8Array) => bigint): AmountSeries {
    const out: Array<{ height: number; amount: bigint }> = [];
    for (const { height, value } of this.historyDown(family, id, to)) {
      // Read now: the value is the cursor's buffer.
      out.push({ height, amount: equalBytes(value, TOMBSTONE) ? 0n : amount(value) });
      if (height <= from) break;
    }
    return out;
  }

  // --- StateView --------------------------------------------------------------

  height(): number {
    if (this.knownHeight !== undefined) return this.knownHeight;
    const v = this.db.get(META_HEIGHT);
    const height = v === undefined ? 0 : readU32(v);
    // Only the writes below change it; inside their transactions it is read from the database.
    if (!this.writing) this.knownHeight = height;
    return height;
  }

  balance(address: Uint8Array, assetId: Uint8Array | null): bigint {
    const cacheable = assetId === null && !this.writing;
    const key = cacheable ? bytesKey(address) : '';
    if (cacheable) {
      const known = this.westBalances.get(key);
      if (known !== undefined) return known;
    }
    const v = this.current(F.BALANCE, balanceId(address, assetId));
    const balance = v === undefined ? 0n : decode.bigint(v);
    if (cacheable) {
      if (this.westBalances.size >= 100_000) this.westBalances.clear();
      this.westBalances.set(key, balance);
    }
    return balance;
  }

  /** Balance after block `height` was applied. */
  balanceAt(address: Uint8Array, assetId: Uint8Array | null, height: number): bigint {
    const v = this.versionedAt(F.BALANCE, balanceId(address, assetId), height);
    return v === undefined ? 0n : decode.bigint(v);
  }

  leaseBalance(address: Uint8Array): LeaseBalance {
    return this.cachedRead(this.readCache.leaseBalances, bytesKey(address), () => {
      const v = this.current(F.LEASE_BALANCE, address);
      return v === undefined ? NO_LEASE : decode.leaseBalance(v);
    });
  }

  leaseBalanceAt(address: Uint8Array, height: number): LeaseBalance {
    const v = this.versionedAt(F.LEASE_BALANCE, address, height);
    return v === undefined ? NO_LEASE : decode.leaseBalance(v);
  }

  /** The smallest regular WEST balance in force at any height of [from, to]. */
  minBalance(address: Uint8Array, from: number, to: number): bigint {
    return minInForce(from, to, [this.westBalancesIn(address, from, to)]);
  }

  /** The regular WEST balances of an address over [from, to] (amountsIn). */
  private westBalancesIn(address: Uint8Array, from: number, to: number): AmountSeries {
    return this.amountsIn(F.BALANCE, balanceId(address, null), from, to, (v) => decode.bigint(v));
  }

  /**
   * Current asset balances of a holder: every asset whose balance it ever had (zero ones
   * included), in asset id byte order.
   */
  *assetBalances(holder: Uint8Array): Generator<{ assetId: Uint8Array; balance: bigint }> {
    const prefix = concatBytes(Uint8Array.from([F.BALANCE]), idPart(holder));
    for (const { key, value } of this.db.getRange({ start: concatBytes(prefix, Uint8Array.from([0])), end: prefixEnd(prefix) })) {
      yield { assetId: Uint8Array.from(key.subarray(prefix.length)), balance: decode.bigint(value) };
    }
  }

  /** Every holder whose balance of an asset ever changed, in holder byte order; strictly after `after` if given. */
  *assetHolders(assetId: Uint8Array, after?: Uint8Array): Generator<Uint8Array> {
    const prefix = concatBytes(Uint8Array.from([F.ASSET_HOLDER]), idPart(assetId));
    const start = after === undefined ? prefix : concatBytes(prefix, after);
    for (const key of this.db.getKeys({ start, end: prefixEnd(prefix) })) {
      const holder = key.subarray(prefix.length);
      if (after !== undefined && equalBytes(holder, after)) continue;
      yield Uint8Array.from(holder);
    }
  }

  /**
   * Every address with a positive WEST balance after the block at `height` (WE's
   * addressWestDistribution; a height at or above the top reads the current state), in
   * address byte order. Read from the balance history, so it needs no index of its own.
   */
  *westDistribution(height: number): Generator<{ address: Uint8Array; balance: bigint }> {
    const u16 = (n: number) => Uint8Array.from([n >> 8, n & 0xff]);
    // History keys of WEST balances of 26-byte holders: family ‖ u16(id length) ‖ u16(26) ‖ address ‖ u32 height.
    const prefix = concatBytes(Uint8Array.from([F.BALANCE + HISTORY_OFFSET]), u16(ADDRESS_LENGTH + 2), u16(ADDRESS_LENGTH));
    let holder: Uint8Array | undefined;
    let inForce: Uint8Array | undefined;
    const entry = (): { address: Uint8Array; balance: bigint } | undefined => {
      if (holder === undefined || inForce === undefined || equalBytes(inForce, TOMBSTONE)) return undefined;
      const balance = decode.bigint(inForce);
      return balance > 0n ? { address: holder, balance } : undefined;
    };
    for (const { key, value } of this.db.getRange({ start: prefix, end: prefixEnd(prefix) })) {
      const address = key.subarray(prefix.length, key.length - 4);
      if (holder === undefined || !equalBytes(holder, address)) {
        const done = entry();
        if (done !== undefined) yield done;
        holder = Uint8Array.from(address);
        inForce = undefined;
      }
      if (readU32(key, key.length - 4) <= height) inForce = Uint8Array.from(value);
    }
    const last = entry();
    if (last !== undefined) yield last;
  }

  /**
   * The smallest effective balance (regular + lease in − lease out) in force at any height
   * of [from, to] — WE's effective balance with confirmations and generating balance.
   */
  minEffectiveBalance(address: Uint8Array, from: number, to: number): bigint {
    const leased = (v: Uint8Array): bigint => {
      const lb = decode.leaseBalance(v);
      return lb.in - lb.out;
    };
    return minInForce(from, to, [this.westBalancesIn(address, from, to), this.amountsIn(F.LEASE_BALANCE, address, from, to, leased)]);
  }

  asset(assetId: Uint8Array): AssetInfo | undefined {
    const v = this.current(F.ASSET, assetId);
    return v === undefined ? undefined : decode.assetInfo(v);
  }

  lease(leaseId: Uint8Array): LeaseDetails | undefined {
    const v = this.current(F.LEASE, leaseId);
    return v === undefined ? undefined : decode.lease(v);
  }

  aliasOwner(name: string): Uint8Array | undefined {
    return copy(this.db.get(concatBytes(Uint8Array.from([F.ALIAS]), utf8(name))));
  }

  aliasesOf(address: Uint8Array): readonly string[] {
    const prefix = concatBytes(Uint8Array.from([F.ALIAS_OF]), idPart(address));
    const out: string[] = [];
    for (const key of this.db.getKeys({ start: prefix, end: concatBytes(prefix, Uint8Array.from([0xff])) })) {
      out.push(Buffer.from(key.subarray(prefix.length)).toString('utf8'));
    }
    return out;
  }

  dataEntry(address: Uint8Array, key: string): DataEntry | undefined {
    const v = this.current(F.DATA, dataId(address, key));
    return v === undefined ? undefined : decode.dataEntry(v, this.protocol);
  }

  /** Every data entry of an address, by key. */
  dataEntries(address: Uint8Array): DataEntry[] {
    const prefix = concatBytes(Uint8Array.from([F.DATA]), idPart(address));
    const out: DataEntry[] = [];
    for (const { value } of this.db.getRange({ start: prefix, end: concatBytes(prefix, Uint8Array.from([0xff])) })) {
      out.push(decode.dataEntry(value, this.protocol));
    }
    return out;
  }

  accountScript(address: Uint8Array): Uint8Array | null {
    return this.cachedRead(this.readCache.scripts, bytesKey(address), () => {
      const v = this.current(F.SCRIPT, address);
      return v === undefined ? null : decode.optBytes(v);
    });
  }

  permissionOps(address: Uint8Array): readonly PermissionOp[] {
    return this.cachedRead(this.readCache.permissionOps, bytesKey(address), () => {
      const v = this.current(F.PERMISSION_OPS, address);
      return v === undefined ? [] : decode.permissionOps(v);
    });
  }

  roleHolders(role: number): readonly Uint8Array[] {
    return this.cachedRead(this.readCache.roleHolders, role, () => {
      const v = this.current(F.ROLE_HOLDERS, Uint8Array.from([role]));
      return v === undefined ? [] : decode.addresses(v);
    });
  }

  /** A current value read through `cache` (not while a write runs: it reads its own changes then). */
  private cachedRead<K, V>(cache: Map<K, V>, key: K, read: () => V): V {
    if (this.writing) return read();
    if (cache.has(key)) return cache.get(key)!;
    const value = read();
    if (cache.size >= 100_000) cache.clear();
    cache.set(key, value);
    return value;
  }

  participant(address: Uint8Array): Participant | undefined {
    const v = this.current(F.PARTICIPANT, address);
    return v === undefined ? undefined : decode.participant(v);
  }

  participants(): readonly Uint8Array[] {
    const v = this.current(F.PARTICIPANTS, new Uint8Array(0));
    return v === undefined ? [] : decode.addresses(v);
  }

  policy(policyId: Uint8Array): Policy | undefined {
    const v = this.current(F.POLICY, policyId);
    return v === undefined ? undefined : decode.policy(v);
  }

  hasPolicyDataHash(policyId: Uint8Array, hash: Uint8Array): boolean {
    return this.db.get(concatBytes(Uint8Array.from([F.POLICY_DATA_HASH]), idPart(policyId), hash)) !== undefined;
  }

  policyDataHashes(policyId: Uint8Array): PolicyDataHashEntry[] {
    const prefix = concatBytes(Uint8Array.from([F.POLICY_DATA_HASH]), idPart(policyId));
    const out: PolicyDataHashEntry[] = [];
    for (const { key, value } of this.db.getRange({ start: prefix, end: prefixEnd(prefix) })) {
      out.push({ hash: Uint8Array.from(key.subarray(prefix.length)), txId: Uint8Array.from(value) });
    }
    return out;
  }

  transactionHeight(id: Uint8Array): number | undefined {
    const v = this.db.get(concatBytes(Uint8Array.from([F.TX]), id));
    return v === undefined ? undefined : readU32(v);
  }

  /** Where a confirmed transaction is, and its stored bytes: a buffer of this read's own (a view of what LMDB's get returned, see `own`). */
  transaction(id: Uint8Array): TxLocation | undefined {
    const v = this.db.get(concatBytes(Uint8Array.from([F.TX]), id));
    return v === undefined ? undefined : decode.txLocation(v);
  }

  transactionById(id: Uint8Array): Transaction | undefined {
    return this.confirmedTransaction(id)?.tx;
  }

  /** A confirmed transaction and its height, read from its stored bytes (Protocol.transactionFromStoredBytes: it keeps views of this read's own buffer). */
  confirmedTransaction(id: Uint8Array): { tx: Transaction; height: number } | undefined {
    const loc = this.transaction(id);
    return loc === undefined ? undefined : { tx: this.protocol.transactionFromStoredBytes(loc.bytes), height: loc.height };
  }

  carryFee(): bigint {
    const v = this.current(F.CARRY_FEE, new Uint8Array(0));
    return v === undefined ? 0n : decode.bigint(v);
  }

  minerBanHistory(address: Uint8Array): readonly MinerBanEntry[] {
    const v = this.current(F.MINER_BANS, address);
    return v === undefined ? [] : decode.minerBans(v);
  }

  featureVotes(window: number): ReadonlyMap<number, number> {
    const v = this.current(F.FEATURE_VOTES, u32(window));
    return v === undefined ? NO_FEATURES : decodeFeatureMap(v);
  }

  /** Read on every feature check that is not pre-activated: decoded once per stored value. */
  private approvedCache: { bytes: Uint8Array; value: ReadonlyMap<number, number> } | undefined;

  approvedFeatures(): ReadonlyMap<number, number> {
    const v = this.current(F.APPROVED_FEATURES, new Uint8Array(0));
    if (v === undefined) return NO_FEATURES;
    if (this.approvedCache === undefined || !equalBytes(this.approvedCache.bytes, v))
      this.approvedCache = { bytes: Uint8Array.from(v), value: decodeFeatureMap(v) };
    return this.approvedCache.value;
  }

  chainScore(): bigint {
    const v = this.current(F.CHAIN_SCORE, new Uint8Array(0));
    return v === undefined ? 0n : decode.bigint(v);
  }

  /** The chain score after block `height` was applied (0 when not recorded). */
  chainScoreAt(height: number): bigint {
    const v = this.versionedAt(F.CHAIN_SCORE, new Uint8Array(0), height);
    return v === undefined ? 0n : decode.bigint(v);
  }

  // --- contracts ----------------------------------------------------------------

  contract(contractId: Uint8Array): ContractInfo | undefined {
    return this.cachedRead(this.readCache.contracts, bytesKey(contractId), () => {
      const v = this.current(F.CONTRACT, contractId);
      return v === undefined ? undefined : decodeContractInfo(v, this.protocol);
    });
  }

  contractIds(): readonly Uint8Array[] {
    const v = this.current(F.CONTRACT_IDS, new Uint8Array(0));
    return v === undefined ? [] : decode.addresses(v).map((id) => Uint8Array.from(id));
  }

  contractData(contractId: Uint8Array, key: string): DataEntry | undefined {
    const v = this.current(F.CONTRACT_DATA, dataId(contractId, key));
    return v === undefined ? undefined : decode.dataEntry(v, this.protocol);
  }

  contractKeys(contractId: Uint8Array): readonly string[] {
    const prefix = concatBytes(Uint8Array.from([F.CONTRACT_DATA]), idPart(contractId));
    const out: string[] = [];
    for (const key of this.db.getKeys({ start: prefix, end: prefixEnd(prefix) })) out.push(Buffer.from(key.subarray(prefix.length)).toString('utf8'));
    return out;
  }

  executedTxFor(txId: Uint8Array): Uint8Array | undefined {
    return copy(this.db.get(concatBytes(Uint8Array.from([F.EXECUTED_TX]), txId)));
  }

  // --- blocks and indexes -----------------------------------------------------

  blockBytes(height: number): Uint8Array | undefined {
    const block = this.db.get(concatBytes(Uint8Array.from([F.BLOCK]), u32(height)));
    if (block === undefined || !this.isLiquid(height)) return own(block);
    return assembleLiquidBlock(Block.fromBytes(this.protocol, block), this.microBlocksAt(height)).bytes;
  }

  /** Whether the block at a height has micro-blocks whose full assembly is not written yet (only ever the top height). */
  private isLiquid(height: number): boolean {
    const v = this.db.get(META_LIQUID);
    return v !== undefined && v.length >= 4 && readU32(v) === height;
  }

  /** The stored micro-blocks of a height, in order (the top height's are those of its liquid block). */
  microBlocksAt(height: number): MicroBlock[] {
    const start = microKey(height, 0);
    const end = microKey(height + 1, 0);
    return [...this.db.getRange({ start, end })].map(({ value }) => parseMicroBlock(this.protocol, Uint8Array.from(value)));
  }

  /** How many micro-blocks the liquid block at `height` has: kept beside its height in META_LIQUID. */
  private microBlockCount(height: number): number {
    const v = this.db.get(META_LIQUID);
    if (v === undefined || v.length < 4 || readU32(v) !== height) return 0;
    if (v.length >= 8) return readU32(v, 4);
    // Written before the count was kept: count the records.
    let n = 0;
    for (const _ of this.db.getKeys({ start: microKey(height, 0), end: microKey(height + 1, 0) })) n++;
    return n;
  }

  heightOf(blockId: Uint8Array): number | undefined {
    return this.blockIdInfo(blockId)?.height;
  }

  /** Height of a block id or liquid total signature, and how many transactions the block had under that id. */
  blockIdInfo(blockId: Uint8Array): { height: number; transactionCount: number } | undefined {
    const v = this.db.get(concatBytes(Uint8Array.from([F.BLOCK_ID]), blockId));
    return v === undefined ? undefined : { height: readU32(v), transactionCount: readU32(v, 4) };
  }

  /**
   * The id, size, transaction count and fee of the block at a height (a liquid block: as
   * assembled so far), read without decoding the block; undefined when not kept (heights
   * committed before summaries were, or by a commit that gave none): read the block then.
   */
  blockSummary(height: number): BlockSummary | undefined {
    const v = this.db.get(summaryKey(height));
    return v === undefined || v.length === 0 ? undefined : decodeSummary(v);
  }

  /** The header record of a height (its block without transactions). */
  headerBytes(height: number): Uint8Array | undefined {
    return copy(this.db.get(concatBytes(Uint8Array.from([F.HEADER]), u32(height))));
  }

  /** Transaction ids involving an address, newest first. */
  *addressTransactionIds(address: Uint8Array): Generator<Uint8Array> {
    // Commits listed per address (newest commits first, each one's list read backwards), then
    // the one-per-transaction entries of a store written before those lists (all older).
    const grouped = concatBytes(Uint8Array.from([F.ADDRESS_TXS]), idPart(address));
    for (const { value } of this.db.getRange({ start: concatBytes(grouped, Uint8Array.from([0xff])), end: grouped, reverse: true })) {
      const entries = decode.addressTxs(value);
      for (let i = entries.length - 1; i >= 0; i--) yield entries[i]!.id;
    }
    const single = concatBytes(Uint8Array.from([F.ADDRESS_TX]), idPart(address));
    for (const { value } of this.db.getRange({ start: concatBytes(single, Uint8Array.from([0xff])), end: single, reverse: true })) {
      yield Uint8Array.from(value);
    }
  }

  /**
   * The address index as one entry per transaction and address (ADDRESS_TX's layout), in key
   * order, whichever way it is stored: how a store's state compares with another's, which
   * may have committed the same transactions in other groups (whole blocks or micro-blocks).
   */
  private *addressTxRecords(): Generator<{ key: Uint8Array; value: Uint8Array }> {
    const records: Array<{ key: Uint8Array; value: Uint8Array }> = [];
    for (const { key, value } of this.db.getRange({ start: Uint8Array.from([F.ADDRESS_TX]), end: Uint8Array.from([F.ADDRESS_TX + 1]) })) {
      records.push({ key: Uint8Array.from(key), value: Uint8Array.from(value) });
    }
    for (const { key, value } of this.db.getRange({ start: Uint8Array.from([F.ADDRESS_TXS]), end: Uint8Array.from([F.ADDRESS_TXS + 1]) })) {
      // address ‖ height, without the family byte and the commit's first seq
      const addressAndHeight = key.subarray(1, key.length - 4);
      for (const { seq, id } of decode.addressTxs(value))
        records.push({ key: concatBytes(Uint8Array.from([F.ADDRESS_TX]), addressAndHeight, u32(seq)), value: id });
    }
    records.sort((a, b) => Buffer.compare(a.key, b.key));
    yield* records;
  }

  // --- writing ------------------------------------------------------------------

  /** Commits one height (a key block, or a liquid block's new assembly) in one transaction. */
  commit(c: HeightCommit): void {
    const current = this.height();
    if (c.height !== current && c.height !== current + 1) {
      throw new Error(`Cannot commit height ${c.height} on a store at height ${current}`);
    }
    this.requireFlushable();
    this.beginWrite();
    try {
      this.db.transactionSync(() => {
        const w = new HeightWriter(this.db, c.height);
        // A new height makes the liquid block below it final: its full bytes are written once
        // (undone with this height, when the micro-blocks assemble it again).
        if (c.height === current + 1 && this.isLiquid(current)) {
          w.plain(concatBytes(Uint8Array.from([F.BLOCK]), u32(current)), c.liquidBelow ?? this.blockBytes(current)!);
          w.plain(META_LIQUID, NO_LIQUID);
        }
        if (c.blockBytes !== undefined) w.plain(concatBytes(Uint8Array.from([F.BLOCK]), u32(c.height)), c.blockBytes);
        if (c.microBlock !== undefined) {
          const index = this.microBlockCount(c.height);
          w.plain(microKey(c.height, index), c.microBlock);
          w.plain(META_LIQUID, concatBytes(u32(c.height), u32(index + 1)));
        }
        for (const { id, transactionCount } of c.blockIds)
          w.plain(concatBytes(Uint8Array.from([F.BLOCK_ID]), id), concatBytes(u32(c.height), u32(transactionCount)));
        if (c.headerBytes !== undefined) w.plain(concatBytes(Uint8Array.from([F.HEADER]), u32(c.height)), c.headerBytes);
        // A commit that changes the block without its summary leaves it unknown (read from the block).
        if (c.summary !== undefined || c.blockBytes !== undefined || c.microBlock !== undefined) {
          w.plain(summaryKey(c.height), c.summary === undefined ? NO_SUMMARY : encodeSummary(c.summary));
        }
        this.writeChanges(w, c.changes);
        for (const cert of c.certificates ?? []) this.writeCertificate(w, cert);
        void this.db.put(META_HEIGHT, u32(c.height));
        if (c.pruneUndoAt !== undefined && c.pruneUndoAt >= 1) this.pruneUndo(c.pruneUndoAt);
      });
    } finally {
      this.writing = false;
    }
    this.flushBehind();
  }

  /** The cached reads are dropped, and nothing is cached, for the length of a write. */
  private beginWrite(): void {
    this.writing = true;
    this.knownHeight = undefined;
    this.westBalances.clear();
    for (const cache of Object.values(this.readCache)) cache.clear();
  }

  private writeChanges(w: HeightWriter, ch: StateChanges): void {
    const p = this.protocol;
    for (const b of ch.balances.values()) {
      w.versioned(F.BALANCE, balanceId(b.holder, b.assetId), encode.bigint(b.value));
      if (b.assetId !== null) {
        const holderKey = assetHolderKey(b.assetId, b.holder);
        if (this.db.get(holderKey) === undefined) w.plain(holderKey, new Uint8Array(0));
      }
    }
    for (const l of ch.leaseBalances.values()) w.versioned(F.LEASE_BALANCE, l.address, encode.leaseBalance(l.value));
    for (const a of ch.assets.values()) w.versioned(F.ASSET, a.id, encode.assetInfo(a.value));
    for (const l of ch.leases.values()) w.versioned(F.LEASE, l.id, encode.lease(l.value));
    for (const [name, address] of ch.aliases) {
      w.plain(concatBytes(Uint8Array.from([F.ALIAS]), utf8(name)), address);
      w.plain(concatBytes(Uint8Array.from([F.ALIAS_OF]), idPart(address), utf8(name)), new Uint8Array(0));
    }
    for (const d of ch.data.values()) w.versioned(F.DATA, dataId(d.address, d.entry.key), encode.dataEntry(d.entry, p));
    for (const s of ch.scripts.values()) w.versioned(F.SCRIPT, s.address, encode.optBytes(s.script));
    const roles = new Map<number, Uint8Array[]>();
    for (const { address, ops } of ch.permissionOps.values()) {
      w.versioned(F.PERMISSION_OPS, address, encode.permissionOps([...this.permissionOps(address), ...ops]));
      for (const op of ops) {
        const holders = roles.get(op.role) ?? [...this.roleHolders(op.role)];
        if (!holders.some((h) => equalBytes(h, address))) holders.push(address);
        roles.set(op.role, holders);
      }
    }
    for (const [role, holders] of roles) w.versioned(F.ROLE_HOLDERS, Uint8Array.from([role]), encode.addresses(holders));
    if (ch.participants.size > 0) {
      let list = [...this.participants()];
      for (const { address, value } of ch.participants.values()) {
        w.versioned(F.PARTICIPANT, address, value === null ? null : encode.participant(value));
        list = list.filter((a) => !equalBytes(a, address));
        if (value !== null) list.push(address);
      }
      w.versioned(F.PARTICIPANTS, new Uint8Array(0), encode.addresses(list));
    }
    for (const pol of ch.policies.values()) w.versioned(F.POLICY, pol.id, encode.policy(pol.value));
    for (const h of ch.policyDataHashes.values()) w.plain(concatBytes(Uint8Array.from([F.POLICY_DATA_HASH]), idPart(h.policyId), h.hash), h.txId);
    if (ch.contracts.size > 0) {
      const added: Uint8Array[] = [];
      for (const info of ch.contracts.values()) {
        if (this.current(F.CONTRACT, info.contractId) === undefined) added.push(info.contractId);
        w.versioned(F.CONTRACT, info.contractId, encodeContractInfo(info, p));
      }
      if (added.length > 0) w.versioned(F.CONTRACT_IDS, new Uint8Array(0), encode.addresses([...this.contractIds(), ...added]));
    }
    for (const d of ch.contractData.values()) w.versioned(F.CONTRACT_DATA, dataId(d.contractId, d.entry.key), encode.dataEntry(d.entry, p));
    for (const e of ch.executedTxFor.values()) w.plain(concatBytes(Uint8Array.from([F.EXECUTED_TX]), e.txId), e.executedTxId);
    const firstSeq = this.addressTxSeq(w.height);
    let seq = firstSeq;
    // One address-index entry per address and commit, listing its transactions (ADDRESS_TXS).
    const byAddress = new Map<string, { readonly address: Uint8Array; readonly entries: AddressTxEntry[] }>();
    // The TX values (model's txLocation: height ‖ bytes) laid out in one buffer: LMDB looks
    // a value buffer's address up once per ArrayBuffer, not once per transaction.
    // An ExecutedContract's executable transaction is recorded too (WE's state holds it), just before it.
    const recorded = ch.transactions.flatMap((t) => (t.executed === undefined ? [t] : [t.executed, t]));
    let slabLength = 0;
    for (const { tx } of recorded) slabLength += 4 + tx.bytes.length;
    const slab = new Uint8Array(slabLength);
    let slabAt = 0;
    for (const { tx, addresses } of recorded) {
      const location = slab.subarray(slabAt, slabAt + 4 + tx.bytes.length);
      writeTxLocation(location, w.height, tx.bytes);
      slabAt += location.length;
      // New keys: a transaction is applied only if the state does not hold it; address entries are numbered per height.
      w.fresh(concatBytes(Uint8Array.from([F.TX]), tx.id), location);
      for (const a of addresses) {
        const id = bytesKey(a);
        let list = byAddress.get(id);
        if (list === undefined) byAddress.set(id, (list = { address: a, entries: [] }));
        list.entries.push({ seq, id: tx.id });
      }
      seq++;
    }
    for (const list of byAddress.values())
      w.fresh(concatBytes(Uint8Array.from([F.ADDRESS_TXS]), idPart(list.address), u32(w.height), u32(firstSeq)), encode.addressTxs(list.entries));
    if (ch.transactions.length > 0) w.plain(concatBytes(Uint8Array.from([F.META, 3]), u32(w.height)), u32(seq));
    // The numbering of this commit's first transaction tells its list from other commits' at the height.
    w.writeFreshKeys(u32(firstSeq));
    if (ch.carryFee !== undefined) w.versioned(F.CARRY_FEE, new Uint8Array(0), encode.bigint(ch.carryFee));
    for (const b of ch.minerBans.values()) w.versioned(F.MINER_BANS, b.address, encode.minerBans(b.entries));
    for (const [window, counts] of ch.featureVotes ?? []) w.versioned(F.FEATURE_VOTES, u32(window), encodeFeatureMap(counts));
    if (ch.approvedFeatures !== undefined) w.versioned(F.APPROVED_FEATURES, new Uint8Array(0), encodeFeatureMap(ch.approvedFeatures));
    if (ch.chainScore !== undefined) w.versioned(F.CHAIN_SCORE, new Uint8Array(0), encode.bigint(ch.chainScore));
  }

  /** A certificate under its DN hash, public key and fingerprint, unless a certificate of its subject DN is stored. */
  private writeCertificate(w: HeightWriter, c: StoredCertificate): void {
    const dnKey = concatBytes(Uint8Array.from([F.CERT]), c.dnHash);
    if (this.db.get(dnKey) !== undefined) return;
    w.plain(dnKey, c.der);
    w.plain(concatBytes(Uint8Array.from([F.CERT_BY_KEY]), c.publicKey), c.dnHash);
    w.plain(concatBytes(Uint8Array.from([F.CERT_BY_FINGERPRINT]), c.fingerprint), c.dnHash);
    w.plain(concatBytes(Uint8Array.from([F.CERT_AT]), u32(w.height), c.dnHash), new Uint8Array(0));
  }

  // --- certificates (PKI) -----------------------------------------------------------

  /** The DER certificate stored for a subject DN hash. */
  certificateByDnHash(dnHash: Uint8Array): Uint8Array | undefined {
    return copy(this.current(F.CERT, dnHash));
  }

  /** The DN hash of the certificate stored for an account public key. */
  certificateDnHashByPublicKey(publicKey: Uint8Array): Uint8Array | undefined {
    return copy(this.current(F.CERT_BY_KEY, publicKey));
  }

  /** The DN hash of the certificate stored under a fingerprint (SHA-1 of its DER). */
  certificateDnHashByFingerprint(fingerprint: Uint8Array): Uint8Array | undefined {
    return copy(this.current(F.CERT_BY_FINGERPRINT, fingerprint));
  }

  /** The DER certificates the block at `height` stored, in DN-hash order. */
  certificatesStoredAt(height: number): Uint8Array[] {
    const prefix = concatBytes(Uint8Array.from([F.CERT_AT]), u32(height));
    const out: Uint8Array[] = [];
    for (const key of this.db.getKeys({ start: prefix, end: prefixEnd(prefix) })) {
      const der = this.certificateByDnHash(key.subarray(prefix.length));
      if (der !== undefined) out.push(der);
    }
    return out;
  }

  /** Next sequence number for the address index at a height (liquid blocks commit several times). */
  private addressTxSeq(height: number): number {
    const v = this.db.get(concatBytes(Uint8Array.from([F.META, 3]), u32(height)));
    return v === undefined ? 0 : readU32(v);
  }

  /**
   * Removes every height above `height` (the block at `height` becomes the tip), restoring
   * what each one overwrote. Returns the removed blocks' bytes, lowest height first.
   */
  rollbackTo(height: number): Uint8Array[] {
    const top = this.height();
    if (height < 0 || height > top) throw new Error(`Cannot roll back a store at height ${top} to ${height}`);
    const removed: Uint8Array[] = [];
    this.requireFlushable();
    this.beginWrite();
    try {
      this.db.transactionSync(() => {
        for (let h = top; h > height; h--) {
          const bytes = this.blockBytes(h);
          if (bytes !== undefined) removed.unshift(Uint8Array.from(bytes));
          this.undoHeight(h);
        }
        void this.db.put(META_HEIGHT, u32(height));
      });
    } finally {
      this.writing = false;
    }
    this.flushBehind();
    return removed;
  }

  /** The lowest height that still has undo entries (how far back a rollback can reach), if any. */
  oldestUndoHeight(): number | undefined {
    for (const key of this.db.getKeys({ start: Uint8Array.from([F.UNDO]), end: Uint8Array.from([F.UNDO + 1]), limit: 1 })) return readU32(key, 1);
    return undefined;
  }

  /** Drops the undo entries of heights up to `height` (each commit drops one, so this stays small). */
  private pruneUndo(height: number): void {
    const end = concatBytes(Uint8Array.from([F.UNDO]), u32(height + 1));
    for (const key of this.db.getKeys({ start: Uint8Array.from([F.UNDO]), end })) void this.db.remove(key);
    // No rollback reaches below `height` any more: blocks there are final, their micro-blocks unneeded.
    for (const key of this.db.getKeys({ start: Uint8Array.from([F.MICRO]), end: microKey(height, 0) })) void this.db.remove(key);
  }

  private undoHeight(h: number): void {
    const prefix = concatBytes(Uint8Array.from([F.UNDO]), u32(h));
    const entries: Array<{ key: Uint8Array; value: Uint8Array }> = [];
    for (const { key, value } of this.db.getRange({ start: prefix, end: concatBytes(prefix, Uint8Array.from([0xff])) })) {
      entries.push({ key: Uint8Array.from(key), value: Uint8Array.from(value) });
    }
    for (const { key, value } of entries) {
      const kind = key[prefix.length];
      const target = key.subarray(prefix.length + 1);
      if (kind === UNDO_FRESH_KEYS) {
        for (let at = 0; at < value.length;) {
          const length = (value[at]! << 8) | value[at + 1]!;
          void this.db.remove(value.subarray(at + 2, at + 2 + length));
          at += 2 + length;
        }
      } else if (kind === UNDO_VERSIONED) {
        const family = target[0]!;
        const id = target.subarray(1);
        void this.db.remove(historyKey(family, id, h));
        const previous = this.versionedAt(family, id, h - 1);
        if (previous === undefined) void this.db.remove(target);
        else void this.db.put(target, previous);
      } else if (value[0] === 0) {
        void this.db.remove(target);
      } else {
        void this.db.put(target, value.subarray(1));
      }
      void this.db.remove(key);
    }
  }

  /**
   * SHA-256 over every state and transaction-index entry (not blocks, ids or bookkeeping):
   * two stores that applied the same transactions in the same blocks hash the same,
   * however the blocks arrived (key block plus micro-blocks, or whole).
   */
  stateHash(): string {
    const h = createHash('sha256');
    const families = [F.TX, F.ADDRESS_TX, F.ALIAS, F.ALIAS_OF, F.POLICY_DATA_HASH, F.EXECUTED_TX];
    for (let f = F.BALANCE; f < F.BALANCE + 2 * HISTORY_OFFSET; f++) families.push(f as never);
    for (const f of families) {
      const records = f === F.ADDRESS_TX ? this.addressTxRecords() : this.db.getRange({ start: Uint8Array.from([f]), end: Uint8Array.from([f + 1]) });
      for (const { key, value } of records) {
        h.update(u32(key.length)).update(key).update(u32(value.length)).update(value);
      }
    }
    h.update(u32(this.height()));
    return h.digest('hex');
  }

  /** Every entry of the block, index and state families (no bookkeeping), for comparing states. */
  *entries(): Generator<{ key: Uint8Array; value: Uint8Array }> {
    for (const { key, value } of this.db.getRange({ start: Uint8Array.from([F.META + 1]), end: Uint8Array.from([F.UNDO]) })) {
      // The address index comes last, as one entry per transaction (addressTxRecords).
      if (key[0] !== F.ADDRESS_TX && key[0] !== F.ADDRESS_TXS) yield { key, value };
    }
    yield* this.addressTxRecords();
  }
}

function balanceId(holder: Uint8Array, assetId: Uint8Array | null): Uint8Array {
  return assetId === null ? idPart(holder) : concatBytes(idPart(holder), assetId);
}

/** A versioned amount's changes, newest first (Store.amountsIn): each holds from its height until the next one's. */
type AmountSeries = ReadonlyArray<{ readonly height: number; readonly amount: bigint }>;

/**
 * The smallest sum of the series' amounts in force at any height of [from, to] (0 for a series
 * before its first change; 0 for an empty window). The sum only changes where a series does, so it is looked at
 * `from` and at each change inside the window, oldest first, each series walked once.
 */
function minInForce(from: number, to: number, series: readonly AmountSeries[]): bigint {
  if (from > to) return 0n;
  const heights = new Set<number>([from]);
  for (const s of series) for (const { height } of s) if (height > from && height <= to) heights.add(height);
  // Per series: the index of its change in force at the height looked at (it is newest first).
  const at = series.map((s) => s.length);
  let min: bigint | undefined;
  for (const h of [...heights].sort((a, b) => a - b)) {
    let sum = 0n;
    series.forEach((s, i) => {
      let k = at[i]!;
      while (k > 0 && s[k - 1]!.height <= h) k--;
      at[i] = k;
      if (k < s.length) sum += s[k]!.amount;
    });
    if (min === undefined || sum < min) min = sum;
  }
  return min ?? 0n;
}

/** The first key after every key that starts with `prefix`. */
function prefixEnd(prefix: Uint8Array): Uint8Array {
  const out = Uint8Array.from(prefix);
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i] !== 0xff) {
      out[i] = out[i]! + 1;
      return out.subarray(0, i + 1);
    }
  }
  return Uint8Array.from([0xff, 0xff, 0xff, 0xff]);
}

function assetHolderKey(assetId: Uint8Array, holder: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.from([F.ASSET_HOLDER]), idPart(assetId), holder);
}

const NO_FEATURES: ReadonlyMap<number, number> = new Map();

/** A feature map (feature id → height or count): u16 n ‖ (i16 id ‖ u32 value) × n, ids ascending. */
function encodeFeatureMap(m: ReadonlyMap<number, number>): Uint8Array {
  const entries = [...m].sort(([a], [b]) => a - b);
  const out = new Uint8Array(2 + 6 * entries.length);
  const v = new DataView(out.buffer);
  v.setUint16(0, entries.length);
  entries.forEach(([id, value], i) => {
    v.setInt16(2 + 6 * i, id);
    v.setUint32(4 + 6 * i, value);
  });
  return out;
}

function decodeFeatureMap(b: Uint8Array): Map<number, number> {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out = new Map<number, number>();
  const n = v.getUint16(0);
  for (let i = 0; i < n; i++) out.set(v.getInt16(2 + 6 * i), v.getUint32(4 + 6 * i));
  return out;
}

function dataId(address: Uint8Array, key: string): Uint8Array {
  return concatBytes(idPart(address), utf8(key));
}

/** Writes of one height, each with its undo entry (recorded once per key and height). */
class HeightWriter {
  private freshKeys: Uint8Array[] = [];
  private freshLength = 0;

  constructor(
    private readonly db: Database<Uint8Array, Uint8Array>,
    readonly height: number,
  ) {}

  private undoKey(kind: number, target: Uint8Array): Uint8Array {
    return concatBytes(Uint8Array.from([F.UNDO]), u32(this.height), Uint8Array.from([kind]), target);
  }

  /** Sets (or, with null, deletes) a versioned value at this height. */
  versioned(family: number, id: Uint8Array, value: Uint8Array | null): void {
    const target = concatBytes(Uint8Array.from([family]), id);
    const undo = this.undoKey(UNDO_VERSIONED, target);
    if (this.db.get(undo) === undefined) void this.db.put(undo, new Uint8Array(0));
    void this.db.put(historyKey(family, id, this.height), value ?? TOMBSTONE);
    if (value === null) void this.db.remove(target);
    else void this.db.put(target, value);
  }

  /** Sets a plain key, remembering what it held before this height. */
  plain(key: Uint8Array, value: Uint8Array): void {
    const undo = this.undoKey(UNDO_PLAIN, key);
    if (this.db.get(undo) === undefined) {
      const prior = this.db.get(key);
      void this.db.put(undo, prior === undefined ? ABSENT : concatBytes(PRESENT, prior));
    }
    void this.db.put(key, value);
  }

  /**
   * Sets a key no earlier height wrote and this height did not write yet: nothing is read
   * first, and the undo is one entry per commit listing such keys (writeFreshKeys).
   */
  fresh(key: Uint8Array, value: Uint8Array): void {
    this.freshKeys.push(key);
    this.freshLength += 2 + key.length;
    void this.db.put(key, value);
  }

  /** Writes the undo entry of the keys `fresh` set, under `id` (unique among this height's commits). */
  writeFreshKeys(id: Uint8Array): void {
    if (this.freshKeys.length === 0) return;
    const list = new Uint8Array(this.freshLength);
    let at = 0;
    for (const key of this.freshKeys) {
      list[at] = key.length >> 8;
      list[at + 1] = key.length & 0xff;
      list.set(key, at + 2);
      at += 2 + key.length;
    }
    void this.db.put(this.undoKey(UNDO_FRESH_KEYS, id), list);
    this.freshKeys = [];
    this.freshLength = 0;
  }
}
