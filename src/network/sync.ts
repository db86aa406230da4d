/**
 * Catching up with peers (reference/chain-consensus-network.md §11.6; WE's
 * ScoringSyncChannelSelector, BlockLoader, ExtensionAppender): peers tell each other their
 * chain score (24); when the best fresh score of a peer beats ours, that peer becomes the
 * sync channel. The exchange with it: GetSignatures (our locator) → Signatures (the
 * common block and the ids after it) → GetBlocks in batches → one Block per id, or
 * MissingBlock; then the extension is applied by the score rule (chain/fork.ts) — block
 * by block while it continues our tip, its signatures verified on the worker threads from
 * the moment each batch arrives (extension-import.ts) — and signatures are asked again until nothing is new. Each step has a hard timeout that
 * closes the peer. One sync channel at a time.
 *
 * The other side too: this node's score goes to every peer whenever the chain changes, and
 * peers' GetSignatures and GetBlocks are answered from the chain (WE's HistoryReplier).
 */
import type { ChainEvent } from '../chain/peer-chain.js';
import { bytesKey, encodeBase58 } from '../crypto/encoding.js';
import type { Block } from '../protocol/blocks.js';
import { syncSettings, type NetworkDeps, type SyncSettings } from './chain-deps.js';
import { ExtensionImport } from './extension-import.js';
import { encodeBlock, encodeGetBlocks, encodeHistoryBlock, encodeMissingBlock, encodeScore, encodeSignatures } from './messages.js';
import { socketAddressText } from './peers.js';
import { peerFormsOf, type PeerForms } from './peer-forms.js';
import { MessageCode, NODE_TIMERS, type Peer, type Timers } from './types.js';
import { InternalError } from '../errors/internal.js';

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

export interface ScoreStats {
  readonly localScore: bigint;
  /** `Some(/host:port)` of the sync channel, or of the best peer scoring above us; `None` otherwise. */
  readonly currentBestChannel: string;
  readonly scoresCacheSize: number;
}

/** A sync step's hard timeout ran out; the peer is closed. */
export class SyncTimeout extends InternalError {}
class PeerGone extends InternalError {}

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
  private readonly chain: NetworkDeps['chain'];
  private readonly forms: PeerForms;
  private readonly timers: Timers;
  private readonly scores = new Map<number, { score: bigint; at: bigint; peer: Peer }>();
  private readonly invalid = new Map<string, bigint>();
  private pending: Pending | undefined;
  private current: { peer: Peer; target: bigint } | undefined;
  private blocksApplied = 0;
  private lastError: string | undefined;
  private closed = false;
  private kick: unknown;
  /** The peers to tell our score, and the last score told. */
  private readonly peers = new Map<number, Peer>();
  private scoreSent: bigint | undefined;
  private scoreQueued = false;
  private readonly unsubscribe: () => void;

  constructor(private readonly deps: NetworkDeps) {
    this.settings = syncSettings(deps.settings);
    this.chain = deps.chain;
    this.forms = deps.forms ?? peerFormsOf(undefined);
    this.timers = deps.timers ?? NODE_TIMERS;
    this.unsubscribe = deps.chain.on((e) => this.onChainEvent(e));
  }

  localScore(): bigint {
    return this.chain.score();
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

  /** WE's ScoreObserver stats (`/debug/info`): our score, the sync channel, how many fresh peer scores are held. */
  scoreStats(): ScoreStats {
    const localScore = this.localScore();
    const best = this.bestPeer();
    const channel = this.current?.peer ?? (best !== undefined && best.score > localScore ? best.peer : undefined);
    return { localScore, currentBestChannel: channel === undefined ? 'None' : `Some(${socketAddressText(channel.remote)})`, scoresCacheSize: this.scores.size };
  }

  onPeer(peer: Peer): void {
    this.peers.set(peer.id, peer);
    peer.send(MessageCode.Score, encodeScore(this.localScore()));
  }

  onClose(peer: Peer): void {
    this.peers.delete(peer.id);
    this.scores.delete(peer.id);
    if (this.pending?.peer === peer) this.pending.reject(new PeerGone(`peer ${socketAddressText(peer.remote)} closed`));
  }

  private onChainEvent(_event: ChainEvent): void {
    this.queueScore();
  }

  /** Sends our score to every peer once the current chain change is over, when it changed. */
  private queueScore(): void {
    if (this.scoreQueued) return;
    this.scoreQueued = true;
    queueMicrotask(() => {
      this.scoreQueued = false;
      if (this.closed) return;
      const score = this.localScore();
      if (score === this.scoreSent) return;
      this.scoreSent = score;
      const payload = encodeScore(score);
      for (const peer of this.peers.values()) peer.send(MessageCode.Score, payload);
    });
  }

  /** A peer's GetSignatures: the common block and the ids after it. */
  answerGetSignatures(peer: Peer, locator: readonly Uint8Array[]): void {
    const reply = this.chain.signaturesReply(locator, this.settings.maxChainLength);
    if (reply !== undefined) peer.send(MessageCode.Signatures, encodeSignatures(reply));
    else this.deps.logger.debug(`GetSignatures from ${socketAddressText(peer.remote)}: no common block`);
  }

  /** A peer's GetBlocks: each block in order, or MissingBlock for the first one not here. */
  answerGetBlocks(peer: Peer, ids: readonly Uint8Array[]): void {
    for (const id of ids) {
      const found = this.chain.blockById(id);
      if (found === undefined) {
        peer.send(MessageCode.MissingBlock, encodeMissingBlock(id));
        return;
      }
      // WE's HistoryReplier: a 45 with the block's certificates (maybe none) to a peer from 1.11.1, a 23 to an older one.
      if (!this.forms.separateBlockAndTxMessages(peer)) {
        peer.send(MessageCode.Block, encodeBlock(found.block));
        continue;
      }
      const certificates = found.block.transactions.length === 0 ? [] : this.chain.certificatesStoredAt(found.height);
      peer.send(MessageCode.HistoryBlock, encodeHistoryBlock(found.block, certificates));
    }
  }

  onScore(peer: Peer, score: bigint): void {
    this.scores.set(peer.id, { score, at: this.deps.now(), peer });
    this.deps.logger.debug(`Score ${score} from ${socketAddressText(peer.remote)}`);
    this.maybeSync();
  }

  onSignatures(peer: Peer, ids: Uint8Array[]): void {
    const p = this.pending;
    if (p?.kind !== 'signatures' || p.peer !== peer) {
      this.deps.logger.debug(`Unexpected Signatures from ${socketAddressText(peer.remote)} ignored`);
      return;
    }
    this.settle();
    p.resolve(ids);
  }

  onMissingBlock(peer: Peer, id: Uint8Array): void {
    const p = this.pending;
    if (p?.kind !== 'blocks' || p.peer !== peer || !p.expected.has(bytesKey(id))) return;
    this.deps.logger.debug(`${socketAddressText(peer.remote)} is missing block ${encodeBase58(id)}`);
    this.settle();
    p.resolve('missing');
  }

  /** A Block message: taken when it answers this peer's pending GetBlocks; false otherwise (a broadcast). */
  onBlock(peer: Peer, block: Block): boolean {
    const p = this.pending;
    if (p?.kind !== 'blocks' || p.peer !== peer) return false;
    const key = bytesKey(block.id);
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
    this.unsubscribe();
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
    const at = this.invalid.get(bytesKey(id));
    if (at === undefined) return false;
    if (this.deps.now() - at > BigInt(this.settings.invalidBlocksTtlMs)) {
      this.invalid.delete(bytesKey(id));
      return false;
    }
    return true;
  }

  private async run(peer: Peer, target: bigint): Promise<void> {
    const log = this.deps.logger;
    this.current = { peer, target };
    log.info(`Sync with ${socketAddressText(peer.remote)} (score ${target}, ours ${this.localScore()}, height ${this.chain.height()})`);
    let missing = 0;
    /** The import of a download the peer could not finish: the next one takes its blocks again, verified. */
    let unfinished: ExtensionImport | undefined;
    try {
      for (;;) {
        const ids = await this.requestSignatures(peer);
        const news = this.chain.newBlockIds(ids);
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
        // Each batch's signatures go to the verifier threads as it arrives; each block is applied once its own are checked.
        const extension = new ExtensionImport(this.chain, this.deps.pool, unfinished);
        const downloaded = await this.download(peer, news.unknown, (batch) => extension.add(batch));
        if (downloaded === 'missing') {
          if (++missing > 3) {
            this.scores.delete(peer.id);
            break;
          }
          unfinished = extension;
          continue;
        }
        unfinished = undefined;
        const result = await extension.apply(this.settings.maxRollback);
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
          this.invalid.set(bytesKey(result.block), this.deps.now());
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
      peer.send(MessageCode.GetSignatures, encodeSignatures(this.chain.locator(this.settings.maxRollback)));
    });
  }

  /** Downloads the blocks of `ids` in batches, each batch handed to `onBatch` in order as it is complete. */
  private async download(peer: Peer, ids: readonly Uint8Array[], onBatch: (blocks: Block[]) => void): Promise<number | 'missing'> {
    let received = 0;
    for (let i = 0; i < ids.length; i += this.settings.extensionBatchSize) {
      const batch = ids.slice(i, i + this.settings.extensionBatchSize);
      const got = await new Promise<Map<string, Block | undefined> | 'missing'>((resolve, reject) => {
        if (peer.closed) return reject(new PeerGone(`peer ${socketAddressText(peer.remote)} closed`));
        const expected = new Map<string, Block | undefined>(batch.map((id) => [bytesKey(id), undefined]));
        this.pending = { kind: 'blocks', peer, expected, resolve, reject, timer: this.timeout(`${batch.length} blocks`) };
        peer.send(MessageCode.GetBlocks, encodeGetBlocks(batch));
      });
      if (got === 'missing') return 'missing';
      onBatch(batch.map((id) => got.get(bytesKey(id))!));
      received += batch.length;
      this.deps.logger.debug(`Received ${received} of ${ids.length} blocks from ${socketAddressText(peer.remote)}`);
    }
    return received;
  }
}
