/**
 * "Replay a data directory's blocks into a fresh store": the reference a crashed (or rolled
 * back) store is compared with.
 *
 * `readStoredChain` reads every stored block of a store and checks that it is a chain: each
 * block parses, its signature verifies, it references the block below, the configured
 * genesis is at height 1, the key block kept for a height is the block's header (the block is
 * the key block plus transactions, under its own signature), every block id resolves to its
 * height and every transaction to its block. `replayBlocks` builds a fresh Blockchain over a
 * new temporary store with the same settings and appends the blocks whole (genesis via
 * ensureGenesis, then `appendBlock` for heights 2..h: every key-block rule and every
 * transaction validated again). `compareWithReplay` does both and compares `stateHash()` of
 * the two stores, listing the first differing state entries when they differ.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Blockchain } from '../../src/chain/blockchain.js';
import { PreActivatedFeatures } from '../../src/chain/features.js';
import { ScriptVerifier } from '../../src/chain/scripts/verifier.js';
import type { ChainSettings } from '../../src/chain/settings.js';
import { PoaRules } from '../../src/consensus/rules.js';
import { encodeBase58, equalBytes } from '../../src/crypto/encoding.js';
import { Block, genesisBlock } from '../../src/protocol/blocks.js';
import type { Protocol } from '../../src/protocol/protocol.js';
import { F, Store } from '../../src/state/store.js';
import { devNodeConfig, devProtocol } from '../../src/cli/dev.js';

/** The chain a store holds, checked (see `readStoredChain`). */
export interface StoredChain {
  /** Blocks by height: `blocks[0]` is the genesis block (height 1). */
  readonly blocks: readonly Block[];
  readonly height: number;
  /** Transactions in all blocks (genesis included). */
  readonly transactionCount: number;
}

/** Where a stored chain breaks; thrown by `readStoredChain`. */
export class StoredChainError extends Error {}

/**
 * Reads and checks every block of `store` (see the module comment). `settings` gives the
 * genesis the chain must start with.
 */
export function readStoredChain(store: Store, protocol: Protocol, settings: ChainSettings): StoredChain {
  const height = store.height();
  const fail = (h: number, why: string): never => {
    throw new StoredChainError(`stored block at height ${h} (store height ${height}): ${why}`);
  };
  if (height < 1) throw new StoredChainError('the store holds no genesis block');
  const genesis = genesisBlock(protocol, settings.genesis, settings.consensus.type);
  const blocks: Block[] = [];
  let transactionCount = 0;
  for (let h = 1; h <= height; h++) {
    const bytes = store.blockBytes(h);
    if (bytes === undefined) fail(h, 'missing');
    let block: Block;
    try {
      block = Block.fromBytes(protocol, bytes!);
    } catch (e) {
      return fail(h, `does not parse: ${(e as Error).message}`);
    }
    if (h === 1) {
      if (!equalBytes(block.bytes, genesis.bytes)) fail(h, `is not the configured genesis ${genesis.idBase58}`);
    } else {
      if (!block.hasValidSignature()) fail(h, `${block.idBase58} has an invalid signature`);
      const parent = blocks[h - 2]!;
      if (!equalBytes(block.reference, parent.id))
        fail(h, `${block.idBase58} references ${encodeBase58(block.reference)}, not the block below (${parent.idBase58})`);
    }
    const keyBytes = store.headerBytes(h);
    if (keyBytes === undefined) fail(h, 'its header is missing');
    const keyBlock = Block.fromBytes(protocol, keyBytes!);
    if (keyBlock.transactions.length > 0) fail(h, 'its header holds transactions');
    // An NG height's header is its key block (signed on its own); a block appended whole keeps the block's id.
    if (h > 1 && !equalBytes(keyBlock.signature, block.signature) && !keyBlock.hasValidSignature()) {
      fail(h, `its key block ${keyBlock.idBase58} has an invalid signature`);
    }
    const rebuilt = Block.build(protocol, keyBlock.withContent(block.transactions), block.signature);
    if (!equalBytes(rebuilt.bytes, block.bytes)) fail(h, `${block.idBase58} is not its key block ${keyBlock.idBase58} plus transactions`);
    const idInfo = store.blockIdInfo(block.id);
    if (idInfo === undefined || idInfo.height !== h || idInfo.transactionCount !== block.transactions.length) {
      fail(h, `its id ${block.idBase58} resolves to ${JSON.stringify(idInfo)}, not {height: ${h}, transactionCount: ${block.transactions.length}}`);
    }
    for (const tx of block.transactions) {
      const at = store.transactionHeight(tx.id);
      if (at !== h) fail(h, `its transaction ${tx.idBase58} is indexed at height ${at}`);
    }
    transactionCount += block.transactions.length;
    blocks.push(block);
  }
  if (store.blockBytes(height + 1) !== undefined) fail(height + 1, 'a block is stored above the store height');
  return { blocks, height, transactionCount };
}

export interface ReplayOptions {
  readonly protocol: Protocol;
  /** The replaying chain's script verifier (for the same protocol). */
  readonly scripts: ScriptVerifier;
  readonly settings: ChainSettings;
  /** `utx.tx-expire-timeout` of the node whose blocks these are. */
  readonly txExpireTimeoutMs: number;
  /** The clock of the replaying chain (only "block from the future" reads it); the system clock by default. */
  readonly now?: () => bigint;
}

/** A fresh chain that applied blocks whole; call `close` when done (removes its directory). */
export interface ReplayedChain {
  readonly chain: Blockchain;
  readonly store: Store;
  close(): Promise<void>;
}

/**
 * Appends `blocks` (genesis first) whole to a fresh Blockchain over a new temporary store,
 * with the given settings and PoA rules: ensureGenesis, then `appendBlock` for each later block.
 */
export function replayBlocks(blocks: readonly Block[], o: ReplayOptions): ReplayedChain {
  const dir = mkdtempSync(join(tmpdir(), 'weft-replay-'));
  const store = Store.open(dir, o.protocol);
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const features = PreActivatedFeatures.fromSettings(o.settings.functionality);
    const chain = new Blockchain({
      store,
      protocol: o.protocol,
      settings: o.settings,
      features,
      consensus: PoaRules.fromSettings(o.settings, features),
      txExpireTimeoutMs: o.txExpireTimeoutMs,
      scripts: o.scripts,
      now: o.now ?? ((): bigint => BigInt(Date.now())),
    });
    chain.ensureGenesis();
    if (blocks.length > 0 && !equalBytes(blocks[0]!.id, chain.blockAt(1)!.id)) throw new StoredChainError('the blocks start with another genesis block');
    for (let i = 1; i < blocks.length; i++) {
      try {
        chain.appendBlock(blocks[i]!);
      } catch (e) {
        throw new StoredChainError(`replaying the block at height ${i + 1} (${blocks[i]!.idBase58}) failed: ${(e as Error).message}`);
      }
    }
    return { chain, store, close };
  } catch (e) {
    void close();
    throw e;
  }
}

/** Families `Store.stateHash()` covers: the state families (current and history) and the transaction indexes. */
function isHashedFamily(family: number): boolean {
  return (
    family === F.TX ||
    family === F.ADDRESS_TX ||
    family === F.ALIAS ||
    family === F.ALIAS_OF ||
    family === F.POLICY_DATA_HASH ||
    (family >= F.BALANCE && family < F.BALANCE + 0x40)
  );
}

/** Up to `limit` state entries that differ between two stores, as readable lines. */
export function stateDifferences(a: Store, b: Store, limit = 10): string[] {
  const read = (s: Store): Map<string, string> => {
    const m = new Map<string, string>();
    for (const { key, value } of s.entries()) {
      if (isHashedFamily(key[0]!)) m.set(Buffer.from(key).toString('hex'), Buffer.from(value).toString('hex'));
    }
    return m;
  };
  const left = read(a);
  const right = read(b);
  const out: string[] = [];
  for (const key of [...new Set([...left.keys(), ...right.keys()])].sort()) {
    const l = left.get(key);
    const r = right.get(key);
    if (l === r) continue;
    out.push(`family 0x${key.slice(0, 2)} key ${key.slice(2)}: stored ${l ?? '(absent)'} / replayed ${r ?? '(absent)'}`);
    if (out.length >= limit) break;
  }
  if (out.length === 0 && a.height() !== b.height()) out.push(`heights differ: stored ${a.height()} / replayed ${b.height()}`);
  return out;
}

export interface ReplayComparison extends StoredChain {
  readonly storedHash: string;
  readonly replayedHash: string;
  /** The first differing state entries when the hashes differ (empty when equal). */
  readonly differences: readonly string[];
}

/**
 * Checks the chain `store` holds (readStoredChain), replays its blocks into a fresh store
 * and compares the two stores' state hashes.
 */
export async function compareWithReplay(store: Store, o: ReplayOptions): Promise<ReplayComparison> {
  const stored = readStoredChain(store, o.protocol, o.settings);
  const replayed = replayBlocks(stored.blocks, o);
  try {
    const storedHash = store.stateHash();
    const replayedHash = replayed.store.stateHash();
    const differences = storedHash === replayedHash ? [] : stateDifferences(store, replayed.store);
    return { ...stored, storedHash, replayedHash, differences };
  } finally {
    await replayed.close();
  }
}

/** Where a dev node keeps its LMDB store inside its data directory. */
export async function devStateDir(dataDir: string): Promise<string> {
  const config = await devNodeConfig({ dataDir });
  return join(config.node.dataDirectory, 'state');
}

/**
 * `compareWithReplay` for the dev chain in `dataDir` (the node must not be running): opens
 * its store with the dev settings (devNodeConfig), and closes it again.
 */
export async function replayDevDataDir(dataDir: string): Promise<ReplayComparison> {
  const config = await devNodeConfig({ dataDir });
  const protocol = await devProtocol();
  const store = Store.open(join(config.node.dataDirectory, 'state'), protocol);
  try {
    return await compareWithReplay(store, {
      protocol,
      scripts: await ScriptVerifier.create(protocol),
      settings: config.chain,
      txExpireTimeoutMs: config.utx.txExpireTimeoutMs,
    });
  } finally {
    await store.close();
  }
}
