/**
 * Catching up with peers (reference/chain-consensus-network.md §11.6; WE's
 * ScoringSyncChannelSelector, BlockLoader, ExtensionAppender): peers tell each other their
 * chain score (24); when the best fresh score of a peer beats ours, that peer becomes the
 * sync channel. The exchange with it: GetSignatures (our locator) → Signatures (the
 * common block and the ids after it) → GetBlocks in batches → one Block per id, or
 * MissingBlock; then the extension is applied by the score rule (chain/fork.ts) — block
 * by block while it continues our tip, its signatures verified on the worker threads from
 * the moment each batch arrives (extension-import.ts) — and signatures are asked again until
 * nothing is new. Each step has a hard timeout that closes the peer. One sync channel at a
 * time: it alone names the extension, and it is the peer closed when the extension fails.
 *
 * Two things go beyond WE's one-batch-at-a-time exchange, so that a node that missed many
 * blocks catches up at the rate it applies them: the batches of an extension are downloaded
 * from the sync channel and every other peer ahead of us at once (block-download.ts), and
 * while an extension is applied the next one is already asked for — GetSignatures with the
 * last downloaded id first in the locator, which the peer answers from there — and
 * downloaded, so the network and the verifier threads work while the chain applies.
 *
 * The other side too: this node's score goes to every peer whenever the chain changes, and
 * peers' GetSignatures and GetBlocks are answered from the chain (WE's HistoryReplier).
 */
import type { ChainEvent } from '../chain/peer-chain.js';
import { bytesKey, encodeBase58, equalBytes } from '../crypto/encoding.js';
import type { ExtensionResult } from '../chain/peer-chain.js';
import type { Block } from '../protocol/blocks.js';
import { BlockDownload, PeerGone, SyncTimeout } from './block-download.js';
import { syncSettings, type NetworkDeps, type SyncSettings } from './chain-deps.js';
import { ExtensionImport } from './extension-import.js';
import { encodeBlock, encodeHistoryBlock, encodeMissingBlock, encodeScore, encodeSignatures } from './messages.js';
import { socketAddressText } from './peers.js';
import { peerFormsOf, type PeerForms } from './peer-forms.js';
import { MessageCode, NODE_TIMERS, type Peer, type Timers } from './types.js';

export { SyncTimeout };

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

interface Pending {
  readonly peer: Peer;
  readonly resolve: (ids: Uint8Array[]) => void;
  readonly reject: (e: Error) => void;
  timer: unknown;
}

export class ChainSync {
  readonly settings: SyncSettings;
  private readonly chain: NetworkDeps['chain'];
  private readonly forms: PeerForms;
  private readonly timers: Timers;
  private readonly scores = new Map<number, { score: bigint; at: bigint; peer: Peer }>();
  private readonly invalid = new Map<string, bigint>();
  /** The sync channel's Signatures awaited. */
  private pending: Pending | undefined;
  /** Block downloads with requests in flight: the running one, and ended ones whose late answers are still taken (block-download.ts). */
  private readonly downloads = new Set<BlockDownload>();
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
    for (const download of [...this.downloads]) download.onClose(peer);
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
    if (p?.peer !== peer) {
      this.deps.logger.debug(`Unexpected Signatures from ${socketAddressText(peer.remote)} ignored`);
      return;
    }
    this.settle();
    p.resolve(ids);
  }

  onMissingBlock(peer: Peer, id: Uint8Array): void {
    for (const download of [...this.downloads]) download.onMissingBlock(peer, id);
  }

  /** A Block message: taken when it answers a GetBlocks of the sync to this peer; false otherwise (a broadcast). */
  onBlock(peer: Peer, block: Block): boolean {
    for (const download of this.downloads) if (download.onBlock(peer, block)) return true;
    return false;
  }

  close(): void {
    this.closed = true;
    this.unsubscribe();
    if (this.kick !== undefined) this.timers.clearTimeout(this.kick);
    this.pending?.reject(new PeerGone('network closed'));
    for (const download of [...this.downloads]) download.cancel(new PeerGone('network closed'));
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
    /** The extension being applied while the next one is asked for and downloaded, and the id of its last block. */
    let applying: { readonly result: Promise<ExtensionResult>; readonly last: Uint8Array } | undefined;
    /** Ends the apply running, if any: whether the sync goes on. */
    const applied = async (): Promise<boolean> => {
      if (applying === undefined) return true;
      const result = await applying.result;
      applying = undefined;
      return this.afterApply(peer, target, result);
    };
    try {
      for (;;) {
        // While an extension is applied, the next is asked for after its last block (the peer's reply then starts there).
        const after = applying?.last;
        const ids = await this.requestSignatures(peer, after);
        let unknown: Uint8Array[];
        if (after !== undefined && ids[0] !== undefined && equalBytes(ids[0], after)) unknown = ids.slice(1);
        else {
          // Not a continuation of what is being applied (or nothing is): read against the chain once it is applied.
          if (!(await applied())) break;
          if (after !== undefined) continue;
          const news = this.chain.newBlockIds(ids);
          if (news === undefined) {
            peer.close('Signatures hold no block of this chain');
            break;
          }
          unknown = news.unknown;
        }
        const invalid = unknown.find((id) => this.isInvalid(id));
        if (invalid !== undefined) {
          peer.close(`Signatures hold the invalid block ${encodeBase58(invalid)}`);
          break;
        }
        if (unknown.length === 0) {
          if (!(await applied())) break;
          if (after !== undefined) continue;
          log.info(`Synced with ${socketAddressText(peer.remote)} at height ${this.chain.height()}`);
          this.scores.delete(peer.id);
          break;
        }
        // Each batch's signatures go to the verifier threads as it arrives; each block is applied once its own are checked.
        const extension = new ExtensionImport(this.chain, this.deps.pool, unfinished);
        const downloaded = await this.download(peer, unknown, (batch) => extension.add(batch));
        if (downloaded === 'missing') {
          if (++missing > 3) {
            this.scores.delete(peer.id);
            break;
          }
          unfinished = extension;
          continue;
        }
        unfinished = undefined;
        if (!(await applied())) break;
        applying = { result: extension.apply(this.settings.maxRollback), last: unknown[unknown.length - 1]! };
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
      // The extension downloaded before the sync stopped is still applied: its blocks are verified and the chain is not touched twice at once.
      if (applying !== undefined) await applied().catch((e: unknown) => log.warn(`Applying an extension failed: ${(e as Error).message}`));
      this.current = undefined;
      this.settle();
      if (!this.closed) this.kick = this.timers.setTimeout(() => this.maybeSync(), 0);
    }
  }

  /** What an applied extension's result means for the sync with `peer`: whether it goes on. */
  private afterApply(peer: Peer, target: bigint, result: ExtensionResult): boolean {
    const log = this.deps.logger;
    if (result.kind === 'applied') {
      this.blocksApplied += result.added;
      log.info(
        `Applied ${result.added} blocks from ${socketAddressText(peer.remote)} (${result.removed} rolled back, ${result.returnedToPool} txs back to the pool): height ${this.chain.height()}, score ${result.score} of ${target}`,
      );
      return true;
    }
    if (result.kind === 'known' || result.kind === 'not-better') {
      log.info(`Extension from ${socketAddressText(peer.remote)} is ${result.kind === 'known' ? 'already here' : 'not better than our chain'}`);
      this.scores.delete(peer.id);
      return false;
    }
    if (result.kind === 'failed') {
      this.invalid.set(bytesKey(result.block), this.deps.now());
      if (!result.restored) log.warn(`Could not restore the chain after a failed extension: ${this.chain.describeTip()}`);
    }
    this.lastError = result.error.message;
    peer.close(`Error appending extension: ${result.error.message}`);
    return false;
  }

  private settle(): void {
    if (this.pending !== undefined) this.timers.clearTimeout(this.pending.timer);
    this.pending = undefined;
  }

  /** GetSignatures to the sync channel: our locator, after `after` (a block downloaded and not applied yet) when given. */
  private requestSignatures(peer: Peer, after: Uint8Array | undefined): Promise<Uint8Array[]> {
    return new Promise((resolve, reject) => {
      if (peer.closed) return reject(new PeerGone(`peer ${socketAddressText(peer.remote)} closed`));
      const ms = this.settings.synchronizationTimeoutMs;
      const timer = this.timers.setTimeout(() => {
        if (this.pending?.timer !== timer) return;
        this.pending = undefined;
        reject(new SyncTimeout(`Timeout (${ms} ms) waiting for Signatures from ${socketAddressText(peer.remote)}`));
      }, ms);
      this.pending = { peer, resolve, reject, timer };
      const locator = this.chain.locator(this.settings.maxRollback);
      peer.send(MessageCode.GetSignatures, encodeSignatures(after === undefined ? locator : [after, ...locator]));
    });
  }

  /**
   * Downloads the blocks of `ids` from the sync channel and the peers ahead of us at once
   * (block-download.ts), each batch handed to `onBatch` in chain order as it is complete.
   */
  private download(peer: Peer, ids: readonly Uint8Array[], onBatch: (blocks: Block[]) => void): Promise<number | 'missing'> {
    const download = new BlockDownload(
      {
        timers: this.timers,
        timeoutMs: this.settings.synchronizationTimeoutMs,
        batchSize: this.settings.extensionBatchSize,
        debug: (m) => this.deps.logger.debug(m),
        helpers: () => this.peersAhead(),
        retired: (d) => this.downloads.delete(d),
      },
      peer,
      ids,
      onBatch,
    );
    if (!download.ended) this.downloads.add(download);
    return download.result;
  }

  /** The peers whose fresh score is above ours: they hold blocks we lack (block-download.ts asks them too). */
  private peersAhead(): Peer[] {
    const ours = this.localScore();
    const now = this.deps.now();
    const ttl = BigInt(this.settings.scoreTtlMs);
    return [...this.scores.values()].filter((s) => s.score > ours && now - s.at <= ttl && !s.peer.closed).map((s) => s.peer);
  }
}
