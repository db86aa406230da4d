/**
 * The chain: appending key blocks and micro-blocks, the liquid (NG) block, rollback.
 *
 * Every key block and micro-block is committed to the store as soon as it is accepted —
 * the block, the state it changes and the indexes in one LMDB transaction — so nothing
 * confirmed is lost on a crash. The top height holds the liquid block: the key block and
 * every micro-block so far (the store keeps the micro-blocks and writes the whole block
 * once the next key block makes it final).
 *
 * Every change is announced as a ChainEvent carrying its origin (this node's miner, an
 * API call, a peer), so listeners decide from the event itself what to do with it. An
 * appended block or micro-block also says how long it took (AppendTiming: two clock reads
 * per append, none per transaction), which the node's metrics take up.
 *
 * The consensus layer comes after the chain in the layer order (it imports the chain), so
 * its rules reach the chain injected, as ConsensusRules.
 */
import { encodeBase58, equalBytes } from '../crypto/encoding.js';
import {
  Block,
  LiquidBlockBytes,
  NG_BLOCK_VERSION,
  applyMicroBlock,
  genesisBlock,
  produceMicroBlock,
  transactionsOfBlockBytes,
  type BlockHeaderView,
  type MicroBlock,
  type TxMicroBlock,
  type Vote,
  type VoteMicroBlock,
} from '../protocol/blocks.js';
import type { Protocol } from '../protocol/protocol.js';
import { isAtomic, mineAtomic, unmineAtomic } from '../protocol/transactions/atomic.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import type { Store, StoredCertificate } from '../state/store.js';
import { CarriedCertificates, storedCertificate } from './carried-certificates.js';
import { MutableState, type StateView } from '../state/view.js';
import { recordFeatureVotes, type FeatureView } from './features.js';
import type { ScriptVerifier } from './scripts/verifier.js';
import type { ChainSettings } from './settings.js';
import { applyTransaction, type TxContext } from './validation.js';
import { genericError, microBlockAppendError, WeError } from '../errors/catalogue.js';

/** Header facts consensus needs about stored blocks. */
export interface ChainHeaders {
  height(): number;
  /** Public key of the block's generator. */
  generatorAt(height: number): Uint8Array;
  timestampAt(height: number): bigint;
  /**
   * The header of the block at a height: the block with its transactions left out, under
   * the block's first id (for an NG height: exactly its key block).
   */
  headerAt(height: number): Block;
}

/**
 * The chain as the rules read it while a block is checked: its headers, the top block as it
 * stands (a liquid block with its micro-blocks so far) and the ids peers know.
 */
export interface ChainTop extends ChainHeaders {
  lastBlock(): Block;
  /** The block's final id, or the liquid block's current id at the top. */
  blockIdAt(height: number): Uint8Array | undefined;
}

/** What the consensus algorithm decides about blocks (implemented in consensus/). */
export interface ConsensusRules {
  /** Throws a WeError unless `block` may extend the chain now (timing, generator, consensus data). */
  validateKeyBlock(block: Block, chain: ChainTop, state: StateView, now: bigint): void;
  /** Throws unless the key block's generator may still add a transaction micro-block stamped `timestamp`. */
  validateMicroBlock(keyBlock: Block, timestamp: bigint, now: bigint): void;
  /** Throws unless the vote micro-block `micro` may finalise the top block (CFT; other consensus types refuse it). */
  validateVoteMicroBlock(micro: VoteMicroBlock, chain: ChainTop, state: StateView): void;
  /** Throws unless a switch to another branch may take back `blocksToRemove` blocks below and including `tip` (CFT limits it). */
  checkRollbackDepth(blocksToRemove: number, tip: Block): void;
  /**
   * Whether a peer's key block on the same parent as the top block replaces it, when the
   * consensus decides that itself (CFT: only an unfinal tip, from the next round on);
   * undefined leaves it to the block scores.
   */
  replacesTip(candidate: Block, tip: Block, now: bigint): boolean | undefined;
  /** Effects of appending a key block at `height` (PoA warnings and bans), written into its state. */
  afterKeyBlock(state: MutableState, block: Block, height: number, chain: ChainHeaders): void;
  /** A block's score under its consensus data: the chain score is their sum, and the better chain the higher one. */
  blockScore(block: Block): bigint;
}

/** Who made a chain change: this node's miner (or start-up), an API call, or a peer. */
export type ChainChangeOrigin = 'local' | 'api' | 'network';

/** A block's header record: the block without transactions, under its own signature. */
function headerOf(block: Block): Block {
  return block.transactions.length === 0 ? block : Block.build(block.protocol, block.withContent([]), block.signature);
}

/** NG fee split (WE's 40/60): the block's miner gets ⌊fee/5⌋·2 now, the next block's miner the rest. */
export function minerShare(fee: bigint): bigint {
  return (fee / 5n) * 2n;
}

export interface MicroBlockBuild {
  /** The appended micro-block; undefined when no candidate fitted. */
  readonly microBlock: TxMicroBlock | undefined;
  readonly included: readonly Transaction[];
  /** Candidates that failed against state, with why. */
  readonly rejected: ReadonlyArray<{ tx: Transaction; error: WeError }>;
  /** The build stopped at its deadline with candidates left to look at. */
  readonly outOfTime: boolean;
  /** How long validating, signing and the store's commit of the micro-block took (zero when none was built). */
  readonly timing: AppendTiming;
  /** The micro-block was prepared on a tip that changed before it was committed: nothing was appended. */
  readonly stale?: true;
}

/** This node's next micro-block, validated and applied in memory, not yet signed nor committed (Blockchain.prepareOwnMicroBlock). */
export interface PreparedMicroBlock {
  /** The top block it extends: committed only while that is still the top block. */
  readonly tip: Block;
  readonly height: number;
  readonly timestamp: bigint;
  readonly state: MutableState;
  readonly privateKey: Uint8Array;
  readonly included: readonly Transaction[];
  readonly rejected: ReadonlyArray<{ tx: Transaction; error: WeError }>;
  readonly outOfTime: boolean;
  /** How long validating and applying took, in ms. */
  readonly appliedMs: number;
  /** The micro-block and liquid block once signed (Blockchain.signOwnMicroBlock), with how long that took in ms. */
  readonly signed?: { readonly microBlock: TxMicroBlock; readonly liquidBlock: Block; readonly signMs: number };
}

/** This node's appended vote micro-block (Blockchain.appendOwnVoteMicroBlock). */
export interface VoteMicroBlockBuild {
  readonly microBlock: VoteMicroBlock;
  /** The top block with the votes: final. */
  readonly liquidBlock: Block;
  readonly timing: AppendTiming;
}

/**
 * Refuses transactions on a liquid block that already carries its votes (CFT): the votes
 * are for the block as it was, and more transactions would change what they voted for.
 * WE's miner never builds one; a peer that does is refused (stricter than WE).
 */
function requireUnvoted(tip: Block): void {
  if (tip.consensus.type === 'cft' && tip.consensus.votes.length > 0) {
    throw microBlockAppendError(`Block '${tip.idBase58}' carries its votes already: no transactions may follow them`);
  }
}

/** Limits of one micro-block this node builds. */
export interface MicroBlockLimits {
  readonly maxTransactions: number;
  readonly maxBlockBytes: number;
  /**
   * No further candidate is looked at after this moment (performance.now() ms): the
   * micro-block takes what was validated so far, so that building one holds the event loop
   * for a bounded time whatever the pool holds.
   */
  readonly deadline?: number;
  /**
   * The store's expected commit time per transaction, in ms: the deadline keeps room for
   * committing what was taken so far, so that validating and committing a micro-block
   * together end by it.
   */
  readonly commitMsPerTransaction?: number;
  /**
   * When the commit runs in an event-loop turn of its own (the miner's): the longest it is
   * expected to take, in ms. The candidates then stop at the deadline or when the expected
   * commit reaches this, instead of the deadline covering both.
   */
  readonly commitBudgetMs?: number;
}

export interface BlockchainOptions {
  readonly store: Store;
  readonly protocol: Protocol;
  readonly settings: ChainSettings;
  readonly features: FeatureView;
  readonly consensus: ConsensusRules;
  readonly txExpireTimeoutMs: number;
  /** Node time in ms. */
  readonly now: () => bigint;
  /** Runs account and asset scripts for this chain's transactions (`await ScriptVerifier.create(protocol)`). */
  readonly scripts: ScriptVerifier;
}

export class Blockchain implements ChainHeaders {
  readonly store: Store;
  readonly protocol: Protocol;
  readonly settings: ChainSettings;
  readonly features: FeatureView;
  private readonly consensus: ConsensusRules;
  private readonly txExpireTimeoutMs: number;
  private readonly now: () => bigint;
  private readonly scripts: ScriptVerifier;
  /** The top block as assembled so far; undefined before genesis. */
  private tip: Block | undefined;
  private readonly headers = new Map<number, Block>();
  /**
   * The micro-blocks of the liquid block at the top height, in order, as they were applied
   * (peers ask for them by total signature, and a key block that references one of them
   * keeps only those up to it). Read back from the store on start; empty after a
   * whole-block append.
   */
  private liquidMicros: MicroBlock[] = [];
  /** The signed bytes of the top block kept for its next micro-block (see keptBytesOf). */
  private keptBytes: LiquidBlockBytes | undefined;
  private listeners: Array<(event: ChainEvent) => void> = [];
  /** Certificate chains carried with transactions, stored with the block that mines them (PKI). */
  readonly certificates: CarriedCertificates;

  constructor(o: BlockchainOptions) {
    this.store = o.store;
    this.protocol = o.protocol;
    this.settings = o.settings;
    this.features = o.features;
    this.consensus = o.consensus;
    this.txExpireTimeoutMs = o.txExpireTimeoutMs;
    this.now = o.now;
    this.scripts = o.scripts;
    this.certificates = new CarriedCertificates(o.txExpireTimeoutMs, o.now);
    this.tip = this.readBlock(this.store.height());
    this.liquidMicros = this.tip === undefined ? [] : this.store.microBlocksAt(this.store.height());
  }

  /** Applies the configured genesis block to an empty store, or checks the stored one is it. */
  ensureGenesis(): void {
    const genesis = genesisBlock(this.protocol, this.settings.genesis, this.settings.consensus.type);
    if (this.store.height() > 0) {
      const stored = this.blockAt(1);
      if (stored === undefined || !equalBytes(stored.id, genesis.id)) {
        throw new Error(`The data directory holds another chain: its genesis is not ${genesis.idBase58}`);
      }
      return;
    }
    const started = performance.now();
    const state = new MutableState(this.store, 1);
    const ctx = this.txContext(1, genesis.timestamp, undefined);
    for (const tx of genesis.transactions) applyTransaction(state, tx, ctx, { verifySignature: false });
    const applied = performance.now();
    this.store.commit({
      height: 1,
      blockBytes: genesis.bytes,
      blockIds: [{ id: genesis.id, transactionCount: genesis.transactionCount }],
      headerBytes: headerOf(genesis).bytes,
      summary: genesis.summary,
      changes: state.changes(),
    });
    const timing = appendTiming(started, applied);
    this.tip = genesis;
    this.liquidMicros = [];
    this.emit({ kind: 'block', origin: 'local', height: 1, block: genesis, timing });
  }

  // --- reads ----------------------------------------------------------------------

  height(): number {
    return this.store.height();
  }

  /** The top block (the liquid block while micro-blocks are being added). */
  lastBlock(): Block {
    if (this.tip === undefined) throw new Error('The chain has no genesis block yet');
    return this.tip;
  }

  /** The state after the top block. */
  state(): StateView {
    return this.store;
  }

  private readBlock(height: number): Block | undefined {
    if (height < 1) return undefined;
    const bytes = this.store.blockBytes(height);
    return bytes === undefined ? undefined : Block.fromBytes(this.protocol, bytes);
  }

  blockAt(height: number): Block | undefined {
    if (height === this.height()) return this.tip;
    return this.readBlock(height);
  }

  /** A block by id; a liquid block's intermediate total signature gives it as assembled then. */
  blockById(id: Uint8Array): { block: Block; height: number } | undefined {
    const info = this.store.blockIdInfo(id);
    if (info === undefined) return undefined;
    const block = this.blockAt(info.height);
    if (block === undefined) return undefined;
    if (equalBytes(block.id, id)) return { block, height: info.height };
    const partial = Block.build(this.protocol, block.withContent(block.transactions.slice(0, info.transactionCount)), id);
    return { block: partial, height: info.height };
  }

  /**
   * The block at a height as header reads show it, without decoding its transactions: the
   * header record under the block's id with the stored summary (the top height: the liquid
   * block as assembled so far). A height committed before summaries were kept is read whole.
   */
  blockHeaderAt(height: number): BlockHeaderView | undefined {
    const top = this.height();
    if (!Number.isInteger(height) || height < 1 || height > top) return undefined;
    if (height === top) {
      const tip = this.lastBlock();
      return { header: tip, summary: tip.summary };
    }
    const summary = this.store.blockSummary(height);
    if (summary === undefined) {
      const block = this.readBlock(height);
      return block === undefined ? undefined : { header: block, summary: block.summary };
    }
    const header = this.headerAt(height);
    return { header: equalBytes(header.id, summary.id) ? header : header.withSignature(summary.id), summary };
  }

  /**
   * The transactions of the block at a height, each decoded as it is iterated (the top
   * height: the liquid block's, already in memory). The block's bytes are read now: later
   * blocks or a rollback do not change what the iteration gives.
   */
  blockTransactionsAt(height: number): Iterable<Transaction> | undefined {
    if (height === this.height()) return this.tip?.transactions;
    if (!Number.isInteger(height) || height < 1 || height > this.height()) return undefined;
    const bytes = this.store.blockBytes(height);
    return bytes === undefined ? undefined : transactionsOfBlockBytes(this.protocol, bytes);
  }

  childOf(id: Uint8Array): Block | undefined {
    const found = this.blockById(id);
    if (found === undefined || !equalBytes(found.block.id, id)) return undefined;
    const child = this.blockAt(found.height + 1);
    return child !== undefined && equalBytes(child.reference, id) ? child : undefined;
  }

  headerAt(height: number): Block {
    let block = this.headers.get(height);
    if (block === undefined) {
      const bytes = this.store.headerBytes(height);
      if (bytes === undefined) throw new Error(`No block at height ${height}`);
      block = Block.fromBytes(this.protocol, bytes);
      if (this.headers.size > 4096) this.headers.clear();
      this.headers.set(height, block);
    }
    return block;
  }

  generatorAt(height: number): Uint8Array {
    return this.headerAt(height).generator;
  }

  timestampAt(height: number): bigint {
    return this.headerAt(height).timestamp;
  }

  /** Context for applying a transaction in the block at `height`. */
  txContext(height: number, blockTimestamp: bigint, lastBlockTimestamp: bigint | undefined, blockGenerator?: Uint8Array): TxContext {
    return {
      settings: this.settings,
      features: this.features,
      height,
      blockTimestamp,
      lastBlockTimestamp,
      now: this.now(),
      txExpireTimeoutMs: this.txExpireTimeoutMs,
      scripts: this.scripts,
      ...(blockGenerator === undefined ? {} : { blockGenerator }),
    };
  }

  /** Context of a micro-block on the current liquid block. */
  private liquidTxContext(): TxContext {
    const h = this.height();
    const keyBlock = this.headerAt(h);
    return this.txContext(h, keyBlock.timestamp, h > 1 ? this.timestampAt(h - 1) : undefined, keyBlock.generator);
  }

  /** Context the pool validates against: the current state, the node's clock as block time (as WE does). */
  poolTxContext(): TxContext {
    const h = this.height();
    return this.txContext(h, this.now(), h > 1 ? this.timestampAt(h - 1) : undefined);
  }

  // --- appending ------------------------------------------------------------------

  on(listener: (event: ChainEvent) => void): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  private emit(event: ChainEvent): void {
    for (const l of this.listeners) l(event);
  }

  /** Appends a key block on top of the current (liquid) block. */
  appendKeyBlock(block: Block, origin: ChainChangeOrigin = 'local'): void {
    this.appendWhole(block, true, origin);
  }

  /**
   * Appends a whole block — a key block with all its transactions, as a peer serves a
   * finished block or as stored blocks are replayed: the key-block checks, then every
   * transaction validated and applied, in one commit.
   */
  appendBlock(block: Block, origin: ChainChangeOrigin = 'local'): void {
    this.appendWhole(block, false, origin);
  }

  private appendWhole(block: Block, keyBlockOnly: boolean, origin: ChainChangeOrigin): void {
    const started = performance.now();
    const tip = this.lastBlock();
    const height = this.height() + 1;
    if (!equalBytes(block.reference, tip.id)) {
      throw genericError(`Block ${block.idBase58} does not reference the last block ${tip.idBase58}`, 'reference');
    }
    if (block.version !== 3) throw genericError(`Block version ${block.version} is not allowed at height ${height}`, 'version');
    if (keyBlockOnly && block.transactions.length > 0) throw genericError('A key block carries no transactions (NG)', 'transactions');
    if (!block.hasValidSignature()) throw genericError(`Block ${block.idBase58} has an invalid signature`, 'signature');
    this.consensus.validateKeyBlock(block, this, this.store, this.now());
    const state = new MutableState(this.store, height);
    const miner = this.protocol.addresses.fromPublicKey(block.generator).bytes;
    const carry = state.carryFee();
    if (carry !== 0n) {
      state.addBalance(miner, null, carry);
      state.setCarryFee(0n);
    }
    this.consensus.afterKeyBlock(state, block, height, this);
    recordFeatureVotes(state, block, height, this.settings.functionality);
    if (block.transactions.length > 0) {
      const ctx = this.txContext(height, block.timestamp, tip.timestamp, block.generator);
      for (const tx of block.transactions) {
        const { fee } = applyTransaction(state, tx, ctx, { verifySignature: true });
        this.shareFee(state, miner, fee);
      }
    }
    const applied = performance.now();
    this.store.commit({
      pruneUndoAt: height - this.settings.maxRollbackDepth,
      height,
      blockBytes: block.bytes,
      blockIds: [{ id: block.id, transactionCount: block.transactions.length }],
      headerBytes: headerOf(block).bytes,
      summary: block.summary,
      ...this.liquidBelow(tip),
      changes: state.changes(),
      certificates: this.certificatesOf(block.transactions),
    });
    const timing = appendTiming(started, applied);
    this.tip = block;
    this.liquidMicros = [];
    this.emit({ kind: 'block', origin, height, block, timing });
  }

  /** Appends a micro-block received from its producer: every check, every transaction validated. */
  appendMicroBlock(micro: MicroBlock, origin: ChainChangeOrigin = 'network'): Block {
    const started = performance.now();
    const tip = this.lastBlock();
    const height = this.height();
    const keyBlock = this.headerAt(height);
    // Votes are checked before the liquid block is made of them: a chain without CFT refuses them with its own reason.
    if (micro.kind === 'vote') this.consensus.validateVoteMicroBlock(micro, this, this.store);
    const liquidBytes = this.keptBytesOf(tip);
    const next = applyMicroBlock(tip, micro, { firstMicroBlock: equalBytes(tip.id, keyBlock.id), ...(liquidBytes === undefined ? {} : { liquidBytes }) });
    if (micro.kind === 'vote') {
      // Votes change no state: the liquid block takes them as its consensus data, and is final from then on.
      this.commitLiquid(height, next, new MutableState(this.store), micro, origin, started);
      return next;
    }
    this.consensus.validateMicroBlock(keyBlock, micro.timestamp, this.now());
    requireUnvoted(tip);
    const state = new MutableState(this.store);
    const ctx = this.liquidTxContext();
    const miner = this.protocol.addresses.fromPublicKey(keyBlock.generator).bytes;
    for (const tx of micro.transactions) {
      const { fee } = applyTransaction(state, tx, ctx, { verifySignature: true });
      this.shareFee(state, miner, fee);
    }
    this.commitLiquid(height, next, state, micro, origin, started);
    return next;
  }

  /**
   * Builds, signs and appends this node's next micro-block from candidate transactions
   * (already signature-checked by the pool), in the given order, skipping those that fail
   * against state, within the count and byte limits: prepareOwnMicroBlock, then
   * commitOwnMicroBlock at once.
   */
  appendOwnMicroBlock(candidates: Iterable<Transaction>, limits: MicroBlockLimits, privateKey: Uint8Array, modifiedTotalSign: boolean): MicroBlockBuild {
    return this.commitOwnMicroBlock(this.prepareOwnMicroBlock(candidates, limits, privateKey), modifiedTotalSign);
  }

  /**
   * The first half of appending this node's micro-block: validates and applies the
   * candidates in memory, on the current tip, within the limits. Nothing is signed or
   * written yet: commitOwnMicroBlock does that — in a later event-loop turn if the caller
   * wants the loop to serve in between (the miner does).
   */
  prepareOwnMicroBlock(candidates: Iterable<Transaction>, limits: MicroBlockLimits, privateKey: Uint8Array): PreparedMicroBlock {
    const started = performance.now();
    const tip = this.lastBlock();
    const height = this.height();
    const keyBlock = this.headerAt(height);
    const timestamp = this.now();
    this.consensus.validateMicroBlock(keyBlock, timestamp, timestamp);
    requireUnvoted(tip);
    const state = new MutableState(this.store);
    const ctx = this.liquidTxContext();
    const miner = this.protocol.addresses.fromPublicKey(keyBlock.generator).bytes;
    const minerKeys = { publicKey: keyBlock.generator, privateKey };
    let bytes = 0;
    for (const tx of tip.transactions) bytes += tx.bytes.length;
    const included: Transaction[] = [];
    const rejected: Array<{ tx: Transaction; error: WeError }> = [];
    let outOfTime = false;
    let looked = 0;
    const commitMs = limits.commitMsPerTransaction ?? 0;
    const commitBudget = limits.commitBudgetMs;
    // What the deadline keeps for the commit per transaction taken (nothing when the commit has a budget of its own).
    const commitReserve = commitBudget === undefined ? commitMs : 0;
    for (const candidate of candidates) {
      if (included.length >= limits.maxTransactions) break;
      if (commitBudget !== undefined && included.length > 0 && commitMs * (included.length + 1) > commitBudget) {
        outOfTime = true;
        break;
      }
      // The clock is read every 16 candidates.
      if (limits.deadline !== undefined && ++looked % 16 === 0 && performance.now() + commitReserve * included.length >= limits.deadline) {
        outOfTime = true;
        break;
      }
      if (bytes + candidate.bytes.length > limits.maxBlockBytes) continue;
      let tx = candidate;
      let fee: bigint;
      try {
        // An atomic goes into the block mined: this node named as miner, with its proof.
        if (isAtomic(tx)) tx = mineAtomic(tx, [], minerKeys);
        // Applied in a layer of its own, merged into `state` only when it passed.
        fee = applyTransaction(state, tx, ctx, { verifySignature: false }).fee;
      } catch (e) {
        if (e instanceof WeError) {
          rejected.push({ tx: candidate, error: e });
          continue;
        }
        throw e;
      }
      this.shareFee(state, miner, fee);
      included.push(tx);
      bytes += tx.bytes.length;
    }
    return { tip, height, timestamp, state, privateKey, included, rejected, outOfTime, appliedMs: performance.now() - started };
  }

  /**
   * Signs a prepared micro-block and the liquid block it makes (their bytes kept for the
   * commit), without committing it: the miner signs in a turn of its own, since signing
   * hashes the whole liquid block. One prepared on a tip that changed since is given back as
   * it is (the commit drops it).
   */
  signOwnMicroBlock(prepared: PreparedMicroBlock, modifiedTotalSign: boolean): PreparedMicroBlock {
    if (prepared.signed !== undefined || this.tip !== prepared.tip || prepared.included.length === 0) return prepared;
    const started = performance.now();
    const liquidBytes = this.keptBytesOf(prepared.tip);
    const { microBlock, liquidBlock } = produceMicroBlock(
      this.protocol,
      prepared.tip,
      { transactions: prepared.included },
      { timestamp: prepared.timestamp, privateKey: prepared.privateKey, modifiedTotalSign, ...(liquidBytes === undefined ? {} : { liquidBytes }) },
    );
    if (microBlock.kind !== 'tx') throw new Error('A transaction micro-block was expected');
    return { ...prepared, signed: { microBlock, liquidBlock, signMs: performance.now() - started } };
  }

  /**
   * Signs and appends this node's vote micro-block (CFT): the validators' `votes` for the top
   * block, which becomes final. Checked as a peer's would be (its window, enough votes of
   * the block's validators); `modifiedTotalSign` picks v6 over v4 (feature 160).
   */
  appendOwnVoteMicroBlock(votes: readonly Vote[], privateKey: Uint8Array, modifiedTotalSign: boolean): VoteMicroBlockBuild {
    const started = performance.now();
    const tip = this.lastBlock();
    const height = this.height();
    const { microBlock, liquidBlock } = produceMicroBlock(this.protocol, tip, { votes }, { timestamp: this.now(), privateKey, modifiedTotalSign });
    if (microBlock.kind !== 'vote') throw new Error('A vote micro-block was expected');
    this.consensus.validateVoteMicroBlock(microBlock, this, this.store);
    const timing = this.commitLiquid(height, liquidBlock, new MutableState(this.store), microBlock, 'local', started);
    return { microBlock, liquidBlock, timing };
  }

  /** Whether a switch to another branch may take back `blocksToRemove` blocks from the top (fork.ts; CFT limits it). */
  checkRollbackDepth(blocksToRemove: number): void {
    this.consensus.checkRollbackDepth(blocksToRemove, this.lastBlock());
  }

  /** Whether a peer's key block on the top block's parent replaces it by the consensus' own rule (undefined: by score). */
  replacesTip(candidate: Block): boolean | undefined {
    return this.consensus.replacesTip(candidate, this.lastBlock(), this.now());
  }

  /**
   * Signs (unless signOwnMicroBlock did) and commits a prepared micro-block. One prepared on
   * a tip that changed since (a key block, a peer's micro-block, a rollback in between) is
   * dropped: no micro-block, its transactions stay where they were (`stale`).
   */
  commitOwnMicroBlock(prepared: PreparedMicroBlock, modifiedTotalSign: boolean): MicroBlockBuild {
    const { tip, height, included, rejected, outOfTime } = prepared;
    const none = { microBlock: undefined, included: [], rejected, outOfTime, timing: { applySeconds: prepared.appliedMs / 1000, commitSeconds: 0 } };
    if (this.tip !== tip) return { ...none, stale: true };
    if (included.length === 0) return none;
    const { microBlock, liquidBlock, signMs } = (prepared.signed ?? this.signOwnMicroBlock(prepared, modifiedTotalSign).signed)!;
    // The timing counts the preparing and signing, not the waits between the turns.
    const timing = this.commitLiquid(height, liquidBlock, prepared.state, microBlock, 'local', performance.now() - prepared.appliedMs - signMs);
    return { microBlock, included, rejected, outOfTime, timing };
  }

  /**
   * The kept signed bytes of the top block (an NG block): a micro-block on it appends its
   * transactions' bytes instead of serialising the whole liquid block again. Made again
   * from the tip when it changed in another way (a key block, a refused micro-block, a
   * rollback, a restart).
   */
  private keptBytesOf(tip: Block): LiquidBlockBytes | undefined {
    if (tip.version !== NG_BLOCK_VERSION) return undefined;
    if (this.keptBytes?.block !== tip) this.keptBytes = LiquidBlockBytes.of(tip);
    return this.keptBytes;
  }

  private shareFee(state: MutableState, miner: Uint8Array, fee: bigint): void {
    if (fee === 0n) return;
    const share = minerShare(fee);
    state.addBalance(miner, null, share);
    state.setCarryFee(state.carryFee() + fee - share);
  }

  /** The certificates carried with transactions being mined (the store keeps those of new subject DNs). */
  private certificatesOf(txs: readonly Transaction[]): StoredCertificate[] {
    return txs.length === 0 ? [] : this.certificates.of(txs.map((t) => t.id)).map(storedCertificate);
  }

  /** The liquid block this node assembled in memory, handed to the store as it becomes final (else the store rebuilds it). */
  private liquidBelow(tip: Block): { liquidBelow?: Uint8Array } {
    if (this.liquidMicros.length === 0) return {};
    return { liquidBelow: this.keptBytes?.block === tip ? this.keptBytes.blockBytes() : tip.bytes };
  }

  /** Commits a micro-block applied to `state`; `started` is when its append began (performance.now()). */
  private commitLiquid(height: number, liquid: Block, state: MutableState, microBlock: MicroBlock, origin: ChainChangeOrigin, started: number): AppendTiming {
    const applied = performance.now();
    this.store.commit({
      pruneUndoAt: height - this.settings.maxRollbackDepth,
      height,
      microBlock: microBlock.bytes,
      blockIds: [{ id: liquid.id, transactionCount: liquid.transactions.length }],
      summary: liquid.summaryAfter(this.lastBlock(), microBlock.kind === 'tx' ? microBlock.transactions : []),
      changes: state.changes(),
      certificates: microBlock.kind === 'tx' ? this.certificatesOf(microBlock.transactions) : [],
    });
    const timing = appendTiming(started, applied);
    this.tip = liquid;
    this.liquidMicros.push(microBlock);
    this.emit({ kind: 'micro-block', origin, height, block: liquid, microBlock, transactions: state.changes().transactions.map((t) => t.tx), timing });
    return timing;
  }

  // --- rollback -------------------------------------------------------------------

  /** The lowest height a rollback may go to. */
  minRollbackHeight(): number {
    return Math.max(1, this.height() - this.settings.maxRollbackDepth);
  }

  /**
   * Removes every block above `height` (the block there becomes the tip) and returns the
   * transactions they held, oldest first. `returnToPool` tells the pool (through the
   * rollback event) whether to take them back.
   */
  rollbackTo(
    height: number,
    o: { readonly origin: ChainChangeOrigin; readonly returnToPool: boolean } = { origin: 'local', returnToPool: true },
  ): Transaction[] {
    const top = this.height();
    if (!Number.isInteger(height) || height < 1 || height > top) {
      throw genericError(`Rollback height ${height} is out of range: the chain is at height ${top}`, 'rollbackTo');
    }
    if (height < this.minRollbackHeight()) {
      throw genericError(
        `Rollback is possible only to the block at height ${this.minRollbackHeight()} or above (max-rollback-depth ${this.settings.maxRollbackDepth})`,
        'rollbackTo',
      );
    }
    const removed = this.store.rollbackTo(height);
    this.headers.clear();
    this.tip = this.readBlock(height);
    this.liquidMicros = [];
    // Mined atomics go back as their clients sent them.
    const blocks = removed.map((bytes) => Block.fromBytes(this.protocol, bytes).transactions);
    const txs = blocks.flat().map((tx) => (isAtomic(tx) && tx.data.miner !== null ? unmineAtomic(tx) : tx));
    const removedBlockSizes = blocks.map((b) => b.length);
    this.emit({ kind: 'rollback', origin: o.origin, height, removed: txs, removedBlockSizes, returnToPool: o.returnToPool });
    return txs;
  }

  // --- ids for peers (sync, NG) ---------------------------------------------------

  /** The id of the block at a height as peers know it: its final id, or the liquid block's current id at the top. */
  blockIdAt(height: number): Uint8Array | undefined {
    const top = this.height();
    if (!Number.isInteger(height) || height < 1 || height > top) return undefined;
    if (height === top) return this.lastBlock().id;
    return this.headerAt(height + 1).reference;
  }

  /** The height of a block this chain holds under `id` (final id, or the liquid block's current id); undefined otherwise. */
  heightOfBlock(id: Uint8Array): number | undefined {
    const height = this.store.heightOf(id);
    if (height === undefined) return undefined;
    const at = this.blockIdAt(height);
    return at !== undefined && equalBytes(at, id) ? height : undefined;
  }

  /** The micro-blocks applied to the current liquid block so far, oldest first. */
  liquidMicroBlocks(): readonly MicroBlock[] {
    return this.liquidMicros;
  }

  /** A micro-block of the current liquid block by its total signature. */
  microBlock(totalSignature: Uint8Array): MicroBlock | undefined {
    return this.liquidMicros.find((m) => equalBytes(m.totalLiquidBlockSig, totalSignature));
  }

  /** Whether an id is a block of this chain: a final block id, or the liquid block's total signature after any of its micro-blocks. */
  holdsBlockId(id: Uint8Array): boolean {
    return this.store.heightOf(id) !== undefined;
  }

  /** The chain score after the block at `height`: the sum of block scores up to it (the genesis block counts its own score). */
  scoreAt(height: number): bigint {
    if (height <= 1) return this.consensus.blockScore(this.headerAt(1));
    return this.store.chainScoreAt(height);
  }

  /** This chain's score now (the liquid block counts its key block's score). */
  score(): bigint {
    return this.scoreAt(this.height());
  }

  /** A block's score under this chain's consensus. */
  blockScore(block: Block): bigint {
    return this.consensus.blockScore(block);
  }

  describeTip(): string {
    const tip = this.tip;
    return tip === undefined ? 'empty' : `${this.height()}:${encodeBase58(tip.id).slice(0, 8)}`;
  }
}

/** How long appending a block or micro-block took on the chain's thread, in seconds. */
export interface AppendTiming {
  /** From the call to the store's commit: the checks, validating and applying every transaction. */
  readonly applySeconds: number;
  /** The store's commit (one LMDB transaction). */
  readonly commitSeconds: number;
}

/** The timing of an append that started at `started` and finished applying at `applied` (performance.now() ms); the commit ends now. */
function appendTiming(started: number, applied: number): AppendTiming {
  return { applySeconds: (applied - started) / 1000, commitSeconds: (performance.now() - applied) / 1000 };
}

export type ChainEvent =
  | { readonly kind: 'block'; readonly origin: ChainChangeOrigin; readonly height: number; readonly block: Block; readonly timing: AppendTiming }
  | {
      readonly kind: 'micro-block';
      readonly origin: ChainChangeOrigin;
      readonly height: number;
      readonly block: Block;
      readonly microBlock: MicroBlock;
      readonly transactions: readonly Transaction[];
      readonly timing: AppendTiming;
    }
  | {
      readonly kind: 'rollback';
      readonly origin: ChainChangeOrigin;
      readonly height: number;
      /** The transactions of the removed blocks, oldest first. */
      readonly removed: readonly Transaction[];
      /** How many of `removed` each removed block held, from height `height + 1` up (the liquid block last). */
      readonly removedBlockSizes: readonly number[];
      /** Whether they go back to the pool (a fork switch, or a rollback asked with `returnTransactionsToUtx`). */
      readonly returnToPool: boolean;
    };
