/**
 * Catching up with peers (reference/chain-consensus-network.md §11.6; WE's
 * ScoringSyncChannelSelector, BlockLoader, ExtensionAppender): peers tell each other their
 * chain score (24); when the best fresh score of a peer beats ours, that peer becomes the
 * sync channel. The exchange with it: GetSignatures (our locator) → Signatures (the
 * common block and the ids after it) → GetBlocks in batches → one Block per id, or
 * MissingBlock; then the whole extension is applied by the score rule (chain/fork.ts),
 * and signatures are asked again until nothing is new. Each step has a hard timeout that
 * closes the peer. One sync channel at a time.
 */
import { applyExtension, blockLocator, localScore, newBlockIds } from '../chain/fork.js';
import type { Blockchain } from '../chain/blockchain.js';
import type { UtxPool } from '../chain/utx.js';
import { encodeBase58 } from '../crypto/encoding.js';
import type { KeyPair } from '../crypto/suite.js';
import type { Block } from '../protocol/blocks.js';
import type { Protocol } from '../protocol/protocol.js';
import { k } from '../state/view.js';
import { decodeMissingBlock, decodeScore, decodeSignatures, encodeGetBlocks, encodeScore, encodeSignatures } from './messages.js';
import { socketAddressText } from './peers.js';
import { MessageCode, NODE_TIMERS, type Peer, type Timers } from './types.js';

/** WE's `synchronization.*` settings that Weft uses (defaults from WE's application.conf). */
export interface SyncSettings {
  /** Locator length and deepest branch switch (max-rollback). */
  readonly maxRollback: number;
  /** Ids after the common one in a Signatures reply (max-chain-length). */
  readonly maxChainLength: number;
  /** Ids per GetBlocks (extension-batch-size). */
  readonly extensionBatchSize: number;
  /** Hard timeout of each sync step (synchronization-timeout). */
  readonly synchronizationTimeoutMs: number;
  /** How long a peer's score counts (score-ttl). */
  readonly scoreTtlMs: number;
  /** How long a block that failed stays refused (invalid-blocks-storage timeout). */
  readonly invalidBlocksTtlMs: number;
  /** Micro-block request timeout and attempts (micro-block-synchronizer). */
  readonly microBlockRequestTimeoutMs: number;
  readonly microBlockRequestAttempts: number;
  /** Seen-caches: how long and how many ids (received-txs-cache-timeout, …). */
  readonly seenCacheTtlMs: number;
  readonly seenCacheSize: number;
  /** A key block on a micro-block not here yet is retried (key-block-appending). */
  readonly keyBlockAppendAttempts: number;
  readonly keyBlockAppendRetryMs: number;
}

export const DEFAULT_SYNC_SETTINGS: SyncSettings = {
  maxRollback: 100,
  maxChainLength: 101,
  extensionBatchSize: 10,
  synchronizationTimeoutMs: 40_000,
  scoreTtlMs: 90_000,
  invalidBlocksTtlMs: 5 * 60_000,
  microBlockRequestTimeoutMs: 5_000,
  microBlockRequestAttempts: 3,
  seenCacheTtlMs: 3 * 60_000,
  seenCacheSize: 100_000,
  keyBlockAppendAttempts: 10,
  keyBlockAppendRetryMs: 400,
};

export interface NetworkLogger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
}

/** What the network logic runs on; no node/ or api/ parts. */
export interface NetworkDeps {
  readonly chain: Blockchain;
  readonly pool: Pick<UtxPool, 'put' | 'get' | 'preverify'>;
  readonly protocol: Protocol;
  /** Node time (ms), for score and cache ages. */
  readonly now: () => bigint;
  readonly logger: NetworkLogger;
  readonly settings?: Partial<SyncSettings>;
  /** A block's score (consensus/rules.ts blockScore). */
  readonly blockScore: (block: Block) => bigint;
  /** The node owner's keys: sign the inventories of micro-blocks this node mines. */
  readonly ownerKeys?: KeyPair;
  readonly timers?: Timers;
}

export interface SyncStatus {
  /** Whether a sync exchange with a peer is running. */
  readonly syncing: boolean;
  /** The sync channel ("/host:port"), while syncing. */
  readonly peer: string | undefined;
  /** The score the sync channel announced, while syncing. */
  readonly targetScore: bigint | undefined;
  readonly localScore: bigint;
  readonly height: number;
  /** Blocks taken from peers' extensions since start. */
  readonly blocksApplied: number;
  /** The best fresh score a peer announced, if any. */
  readonly bestPeerScore: bigint | undefined;
  readonly lastError: string | undefined;
}

/** A sync step's hard timeout ran out; the peer is closed. */
export class SyncTimeout extends Error {}
class PeerGone extends Error {}

type Pending =
  | { readonly kind: 'signatures'; readonly peer: Peer; readonly resolve: (ids: Uint8Array[]) => void; readonly reject: (e: Error) => void; timer: unknown }
  | {
      readonly kind: 'blocks';
      readonly peer: Peer;
      readonly expected: Map<string, Block | undefined>;
      readonly resolve: (r: Map<string, Block | undefined> | 'missing') => void;
      readonly reject: (e: Error) => void;
      timer: unknown;
    };

export class ChainSync {
  readonly settings: SyncSettings;
  private readonly chain: Blockchain;
  private readonly timers: Timers;
  private readonly scores = new Map<number, { score: bigint; at: bigint; peer: Peer }>();
  private readonly invalid = new Map<string, bigint>();
  private pending: Pending | undefined;
  private current: { peer: Peer; target: bigint } | undefined;
  private blocksApplied = 0;
  private lastError: string | undefined;
  private closed = false;
  private kick: unknown;

  constructor(
    private readonly deps: NetworkDeps,
    /** Runs a chain change made for the network (so the node's own-block broadcast skips it). */
    private readonly asNetwork: <T>(f: () => T) => T = (f) => f(),
  ) {
    this.settings = { ...DEFAULT_SYNC_SETTINGS, ...deps.settings };
    this.chain = deps.chain;
    this.timers = deps.timers ?? NODE_TIMERS;
  }

  localScore(): bigint {
    return localScore(this.chain, this.deps.blockScore);
  }

  status(): SyncStatus {
    const best = this.bestPeer();
    return {
      syncing: this.current !== undefined,
      peer: this.current === undefined ? undefined : socketAddressText(this.current.peer.remote),
      targetScore: this.current?.target,
      localScore: this.localScore(),
      height: this.chain.height(),
      blocksApplied: this.blocksApplied,
      bestPeerScore: best?.score,
      lastError: this.lastError,
    };
  }

  onPeer(peer: Peer): void {
    peer.send(MessageCode.Score, encodeScore(this.localScore()));
  }

  onClose(peer: Peer): void {
    this.scores.delete(peer.id);
    if (this.pending?.peer === peer) this.pending.reject(new PeerGone(`peer ${socketAddressText(peer.remote)} closed`));
  }

  onScore(peer: Peer, payload: Uint8Array): void {
    const score = decodeScore(payload);
    this.scores.set(peer.id, { score, at: this.deps.now(), peer });
    this.deps.logger.debug(`Score ${score} from ${socketAddressText(peer.remote)}`);
    this.maybeSync();
  }

  onSignatures(peer: Peer, payload: Uint8Array): void {
    const ids = decodeSignatures(MessageCode.Signatures, payload, this.deps.protocol.crypto.signatureLength);
    const p = this.pending;
    if (p?.kind !== 'signatures' || p.peer !== peer) {
      this.deps.logger.debug(`Unexpected Signatures from ${socketAddressText(peer.remote)} ignored`);
      return;
    }
    this.settle();
    p.resolve(ids);
  }

  onMissingBlock(peer: Peer, payload: Uint8Array): void {
    const id = decodeMissingBlock(payload, this.deps.protocol.crypto.signatureLength);
    const p = this.pending;
    if (p?.kind !== 'blocks' || p.peer !== peer || !p.expected.has(k(id))) return;
    this.deps.logger.debug(`${socketAddressText(peer.remote)} is missing block ${encodeBase58(id)}`);
    this.settle();
    p.resolve('missing');
  }

  /** A Block message: taken when it answers this peer's pending GetBlocks; false otherwise (a broadcast). */
  onBlock(peer: Peer, block: Block): boolean {
    const p = this.pending;
    if (p?.kind !== 'blocks' || p.peer !== peer) return false;
    const key = k(block.id);
    if (!p.expected.has(key)) return false;
    p.expected.set(key, block);
    if ([...p.expected.values()].every((b) => b !== undefined)) {
      this.settle();
      p.resolve(p.expected);
    }
    return true;
  }

  close(): void {
    this.closed = true;
    if (this.kick !== undefined) this.timers.clearTimeout(this.kick);
    this.pending?.reject(new PeerGone('network closed'));
  }

  /** Looks for a better peer after the current sync (or now). */
  maybeSync(): void {
    if (this.closed || this.current !== undefined) return;
    const best = this.bestPeer();
    if (best === undefined || best.score <= this.localScore() || best.peer.closed) return;
    void this.run(best.peer, best.score);
  }

  private bestPeer(): { score: bigint; peer: Peer } | undefined {
    const now = this.deps.now();
    let best: { score: bigint; peer: Peer } | undefined;
    for (const [id, s] of this.scores) {
      if (now - s.at > BigInt(this.settings.scoreTtlMs) || s.peer.closed) {
        this.scores.delete(id);
        continue;
      }
      if (best === undefined || s.score > best.score) best = s;
    }
    return best;
  }

  private isInvalid(id: Uint8Array): boolean {
    const at = this.invalid.get(k(id));
    if (at === undefined) return false;
    if (this.deps.now() - at > BigInt(this.settings.invalidBlocksTtlMs)) {
      this.invalid.delete(k(id));
      return false;
    }
    return true;
  }

  private async run(peer: Peer, target: bigint): Promise<void> {
    const log = this.deps.logger;
    this.current = { peer, target };
    log.info(`Sync with ${socketAddressText(peer.remote)} (score ${target}, ours ${this.localScore()}, height ${this.chain.height()})`);
    let missing = 0;
    try {
      for (;;) {
        const ids = await this.requestSignatures(peer);
        const news = newBlockIds(this.chain, ids);
        if (news === undefined) {
          peer.close('Signatures hold no block of this chain');
          break;
        }
        const invalid = news.unknown.find((id) => this.isInvalid(id));
        if (invalid !== undefined) {
          peer.close(`Signatures hold the invalid block ${encodeBase58(invalid)}`);
          break;
        }
        if (news.unknown.length === 0) {
          log.info(`Synced with ${socketAddressText(peer.remote)} at height ${this.chain.height()}`);
          this.scores.delete(peer.id);
          break;
        }
        const blocks = await this.download(peer, news.unknown);
        if (blocks === 'missing') {
          if (++missing > 3) {
            this.scores.delete(peer.id);
            break;
          }
          continue;
        }
        // Signatures of the extension's transactions are checked on the verifier threads first.
        await this.deps.pool.preverify(blocks.flatMap((b) => b.transactions));
        const result = this.asNetwork(() =>
          applyExtension(this.chain, this.deps.pool, blocks, { blockScore: this.deps.blockScore, maxRollback: this.settings.maxRollback }),
        );
        if (result.kind === 'applied') {
          this.blocksApplied += result.added;
          log.info(
            `Applied ${result.added} blocks from ${socketAddressText(peer.remote)} (${result.removed} rolled back, ${result.returnedToPool} txs back to the pool): height ${this.chain.height()}, score ${result.score} of ${target}`,
          );
          continue;
        }
        if (result.kind === 'known' || result.kind === 'not-better') {
          log.info(`Extension from ${socketAddressText(peer.remote)} is ${result.kind === 'known' ? 'already here' : 'not better than our chain'}`);
          this.scores.delete(peer.id);
          break;
        }
        if (result.kind === 'failed') {
          this.invalid.set(k(result.block), this.deps.now());
          if (!result.restored) log.warn(`Could not restore the chain after a failed extension: ${this.chain.describeTip()}`);
        }
        this.lastError = result.error.message;
        peer.close(`Error appending extension: ${result.error.message}`);
        break;
      }
    } catch (e) {
      if (e instanceof SyncTimeout) {
        this.lastError = e.message;
        log.warn(`Sync with ${socketAddressText(peer.remote)}: ${e.message}`);
        peer.close(e.message);
      } else if (e instanceof PeerGone) {
        log.info(`Sync with ${socketAddressText(peer.remote)} ended: ${e.message}`);
      } else {
        this.lastError = (e as Error).message;
        log.warn(`Sync with ${socketAddressText(peer.remote)} failed: ${(e as Error).message}`);
        peer.close(`sync: ${(e as Error).message}`);
      }
    } finally {
      this.current = undefined;
      this.settle();
      if (!this.closed) this.kick = this.timers.setTimeout(() => this.maybeSync(), 0);
    }
  }

  private settle(): void {
    if (this.pending !== undefined) this.timers.clearTimeout(this.pending.timer);
    this.pending = undefined;
  }

  private timeout(what: string): unknown {
    const ms = this.settings.synchronizationTimeoutMs;
    return this.timers.setTimeout(() => {
      const p = this.pending;
      if (p === undefined) return;
      this.pending = undefined;
      p.reject(new SyncTimeout(`Timeout (${ms} ms) waiting for ${what} from ${socketAddressText(p.peer.remote)}`));
    }, ms);
  }

  private requestSignatures(peer: Peer): Promise<Uint8Array[]> {
    return new Promise((resolve, reject) => {
      if (peer.closed) return reject(new PeerGone(`peer ${socketAddressText(peer.remote)} closed`));
      this.pending = { kind: 'signatures', peer, resolve, reject, timer: this.timeout('Signatures') };
      peer.send(MessageCode.GetSignatures, encodeSignatures(blockLocator(this.chain, this.settings.maxRollback)));
    });
  }

  private async download(peer: Peer, ids: readonly Uint8Array[]): Promise<Block[] | 'missing'> {
    const out: Block[] = [];
    for (let i = 0; i < ids.length; i += this.settings.extensionBatchSize) {
      const batch = ids.slice(i, i + this.settings.extensionBatchSize);
      const got = await new Promise<Map<string, Block | undefined> | 'missing'>((resolve, reject) => {
        if (peer.closed) return reject(new PeerGone(`peer ${socketAddressText(peer.remote)} closed`));
        const expected = new Map<string, Block | undefined>(batch.map((id) => [k(id), undefined]));
        this.pending = { kind: 'blocks', peer, expected, resolve, reject, timer: this.timeout(`${batch.length} blocks`) };
        peer.send(MessageCode.GetBlocks, encodeGetBlocks(batch));
      });
      if (got === 'missing') return 'missing';
      for (const id of batch) out.push(got.get(k(id))!);
      this.deps.logger.debug(`Received ${out.length} of ${ids.length} blocks from ${socketAddressText(peer.remote)}`);
    }
    return out;
  }
}
