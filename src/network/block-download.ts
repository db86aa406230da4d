/**
 * Downloading the blocks of one extension (the ids a sync channel's Signatures named) from
 * several peers at once (sync.ts). WE asks its one sync channel for a batch of
 * `extension-batch-size` blocks and waits for it before asking for the next; here the batches
 * are spread over the sync channel and the other peers whose fresh score is above ours, each
 * peer holding up to BATCHES_PER_PEER of them in flight, and every block is handed on in chain
 * order (a batch once it and every batch before it are complete), so its signatures go to the
 * verifier threads while the later batches are still on the wire.
 *
 * A block is a block of this extension only by its id, which is its signature: a copy whose
 * signature does not verify is a bad copy of that peer's, which is closed (as gossip closes a
 * peer that broadcast one), and its batches go to the other peers — the id itself stays good,
 * so a peer cannot get a block refused here by serving a broken copy of it. A helper peer
 * that lacks a block (MissingBlock) is not asked again for this extension; the sync channel
 * lacking one ends the download as `missing`, as before. Each request has the sync step's
 * hard timeout: the sync channel's ends the sync (SyncTimeout), a helper's closes that helper
 * and its batches go to the others. A peer that closes gives its batches back.
 *
 * A request outlives the download that made it — until its peer answered it, closed or timed
 * out — so its late blocks are taken here (dropped) instead of being read as broadcast blocks.
 */
import { bytesKey, encodeBase58 } from '../crypto/encoding.js';
import { InternalError } from '../errors/internal.js';
import type { Block } from '../protocol/blocks.js';
import { encodeGetBlocks } from './messages.js';
import { socketAddressText } from './peers.js';
import { MessageCode, type Peer, type Timers } from './types.js';

/** A sync step's hard timeout ran out; the peer is closed. */
export class SyncTimeout extends InternalError {}
/** The sync channel closed (or the network did). */
export class PeerGone extends InternalError {}
/** The sync channel sent a block whose signature does not verify; it is closed. */
export class BadBlock extends InternalError {}

/**
 * GetBlocks batches a peer holds in flight. One: the blocks in flight arrive and are decoded on
 * the event loop together (three peers, three batches), and a catch-up over a fast link is
 * paced by the apply, not the download — a second batch per peer made it no faster in the
 * bench (bench/catch-up.ts) and put twice the blocks on the event loop at once.
 */
export const BATCHES_PER_PEER = 1;

interface Batch {
  readonly ids: readonly Uint8Array[];
  readonly blocks: Map<string, Block>;
}

interface Request {
  readonly peer: Peer;
  readonly batch: Batch;
  /** Ids asked for and not answered yet. */
  readonly waiting: Set<string>;
  readonly timer: unknown;
}

export interface BlockDownloadDeps {
  readonly timers: Timers;
  readonly timeoutMs: number;
  readonly batchSize: number;
  readonly debug: (message: string) => void;
  /** The peers besides the sync channel that may serve the blocks (those whose fresh score is above ours), asked again at each hand-out. */
  readonly helpers: () => readonly Peer[];
  /** Called once no request of this download is in flight any more and it has ended. */
  readonly retired: (download: BlockDownload) => void;
}

export class BlockDownload {
  /** Resolves with the blocks received once all are handed on, or `missing` when the sync channel lacked one. */
  readonly result: Promise<number | 'missing'>;
  private readonly batches: Batch[] = [];
  /** Batches no request is in flight for, in chain order. */
  private readonly unassigned: Batch[];
  private readonly inFlight = new Map<Peer, Request[]>();
  /** Helpers that lacked a block of this extension. */
  private readonly lacking = new Set<Peer>();
  /** The first batch not handed on yet. */
  private next = 0;
  private received = 0;
  private done = false;
  private resolve!: (r: number | 'missing') => void;
  private reject!: (e: Error) => void;

  constructor(
    private readonly deps: BlockDownloadDeps,
    private readonly channel: Peer,
    ids: readonly Uint8Array[],
    private readonly onBatch: (blocks: Block[]) => void,
  ) {
    for (let i = 0; i < ids.length; i += deps.batchSize) this.batches.push({ ids: ids.slice(i, i + deps.batchSize), blocks: new Map() });
    this.unassigned = [...this.batches];
    this.result = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // Ended downloads are awaited by sync; one that fails while nobody awaits it yet is no error.
    this.result.catch(() => undefined);
    if (this.batches.length === 0) this.end(0);
    else if (channel.closed) this.fail(new PeerGone(`peer ${socketAddressText(channel.remote)} closed`));
    else this.handOut();
  }

  /** Whether it has ended (its result settled); requests of it may still be in flight. */
  get ended(): boolean {
    return this.done;
  }

  /** A Block message: true when it answers one of this download's requests to that peer (taken, or dropped when already here). */
  onBlock(peer: Peer, block: Block): boolean {
    const key = bytesKey(block.id);
    const request = this.inFlight.get(peer)?.find((r) => r.waiting.has(key));
    if (request === undefined) return false;
    request.waiting.delete(key);
    if (request.waiting.size === 0) this.finish(request);
    if (this.done) return true;
    if (!block.hasValidSignature()) {
      const reason = `Block ${block.idBase58} has an invalid signature`;
      if (peer === this.channel) this.fail(new BadBlock(reason));
      peer.close(reason);
      return true;
    }
    const batch = request.batch;
    if (!batch.blocks.has(key)) batch.blocks.set(key, block);
    if (batch.blocks.size === batch.ids.length) this.handOn();
    if (!this.done) this.handOut();
    return true;
  }

  /** A MissingBlock: the peer stopped answering that request at this id. */
  onMissingBlock(peer: Peer, id: Uint8Array): void {
    const key = bytesKey(id);
    const request = this.inFlight.get(peer)?.find((r) => r.waiting.has(key));
    if (request === undefined) return;
    this.finish(request);
    if (this.done) return;
    this.deps.debug(`${socketAddressText(peer.remote)} is missing block ${encodeBase58(id)}`);
    if (peer === this.channel) {
      this.end('missing');
      return;
    }
    this.lacking.add(peer);
    this.giveBack(request.batch);
    this.handOut();
  }

  /** A peer closed: its requests end, their batches go to the others. */
  onClose(peer: Peer): void {
    const requests = this.inFlight.get(peer);
    for (const request of [...(requests ?? [])]) {
      this.finish(request);
      if (!this.done) this.giveBack(request.batch);
    }
    if (this.done) return;
    if (peer === this.channel) this.fail(new PeerGone(`peer ${socketAddressText(peer.remote)} closed`));
    else this.handOut();
  }

  /** Ends it (the network closing): every request's timer is cleared. */
  cancel(e: Error): void {
    for (const requests of [...this.inFlight.values()]) for (const request of [...requests]) this.finish(request);
    this.fail(e);
  }

  /** Sends batches no request is in flight for to the peers with room, one at a time round the peers. */
  private handOut(): void {
    const sources = [this.channel, ...this.deps.helpers().filter((p) => p !== this.channel && !this.lacking.has(p))].filter((p) => !p.closed);
    let gave = true;
    while (gave && this.unassigned.length > 0) {
      gave = false;
      for (const peer of sources) {
        const batch = this.unassigned[0];
        if (batch === undefined) break;
        if ((this.inFlight.get(peer)?.length ?? 0) >= BATCHES_PER_PEER) continue;
        this.unassigned.shift();
        this.request(peer, batch);
        gave = true;
      }
    }
  }

  private request(peer: Peer, batch: Batch): void {
    const ids = batch.ids.filter((id) => !batch.blocks.has(bytesKey(id)));
    const ms = this.deps.timeoutMs;
    const request: Request = {
      peer,
      batch,
      waiting: new Set(ids.map(bytesKey)),
      timer: this.deps.timers.setTimeout(
        () => this.timedOut(request, `Timeout (${ms} ms) waiting for ${ids.length} blocks from ${socketAddressText(peer.remote)}`),
        ms,
      ),
    };
    let requests = this.inFlight.get(peer);
    if (requests === undefined) this.inFlight.set(peer, (requests = []));
    requests.push(request);
    peer.send(MessageCode.GetBlocks, encodeGetBlocks(ids));
  }

  private timedOut(request: Request, message: string): void {
    if (!this.inFlight.get(request.peer)?.includes(request)) return;
    this.finish(request);
    if (request.peer === this.channel && !this.done) {
      this.fail(new SyncTimeout(message));
      return;
    }
    // A helper that does not answer in time is closed, as the sync channel would be; its batches go to the others.
    this.deps.debug(message);
    if (!this.done) this.giveBack(request.batch);
    request.peer.close(message);
    if (!this.done) this.handOut();
  }

  /** The request is over (answered, lacking, closed or timed out). */
  private finish(request: Request): void {
    this.deps.timers.clearTimeout(request.timer);
    const requests = this.inFlight.get(request.peer);
    if (requests !== undefined) {
      requests.splice(requests.indexOf(request), 1);
      if (requests.length === 0) this.inFlight.delete(request.peer);
    }
    if (this.done && this.inFlight.size === 0) this.deps.retired(this);
  }

  /** A batch whose request ended unanswered goes back, in chain order, unless another request already brought it whole. */
  private giveBack(batch: Batch): void {
    if (batch.blocks.size === batch.ids.length || this.unassigned.includes(batch)) return;
    if ([...this.inFlight.values()].some((rs) => rs.some((r) => r.batch === batch))) return;
    const at = this.unassigned.findIndex((b) => this.batches.indexOf(b) > this.batches.indexOf(batch));
    this.unassigned.splice(at === -1 ? this.unassigned.length : at, 0, batch);
  }

  /** Hands on the complete batches at the front, in chain order. */
  private handOn(): void {
    for (let batch = this.batches[this.next]; batch !== undefined && batch.blocks.size === batch.ids.length; batch = this.batches[++this.next]) {
      const blocks = batch.ids.map((id) => batch.blocks.get(bytesKey(id))!);
      this.received += blocks.length;
      this.onBatch(blocks);
      this.deps.debug(`Received ${this.received} of ${this.batches.reduce((n, b) => n + b.ids.length, 0)} blocks`);
    }
    if (this.next === this.batches.length) this.end(this.received);
  }

  private end(result: number | 'missing'): void {
    if (this.done) return;
    this.done = true;
    this.resolve(result);
    if (this.inFlight.size === 0) this.deps.retired(this);
  }

  private fail(e: Error): void {
    if (this.done) return;
    this.done = true;
    this.reject(e);
    if (this.inFlight.size === 0) this.deps.retired(this);
  }
}
