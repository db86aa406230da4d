/**
 * The events of WE's BlockchainEventsService.SubscribeOn, one subscriber at a time
 * (reference grpc-public-api.md; WE's BlockchainEventsServiceImpl, BlockchainUpdaterImpl).
 *
 * A subscriber is a cursor on the chain: the blocks it has been given whole (`sent`), and of
 * the next block — the liquid block while it is built from micro-blocks — how many
 * transactions it has been given in MicroBlockAppended events. The cursor PULLS: it reads the
 * next event from the chain when its reader can take one, so
 * - history (AppendedBlockHistory, stored blocks from the start point on) and live events are
 *   one sequence with nothing between them: no gap, no duplicate;
 * - a slow reader costs the node only its cursor and what grpc-js buffers for it (its
 *   writable stream's high-water mark, a few events): it falls behind and catches up from the
 *   store, the chain never waits for it, and nothing grows while it does not read;
 * - chain events only wake cursors (one call each), so subscribers do not slow the chain.
 *
 * What a reader sees, as WE sends it:
 * - the liquid block's transactions as MicroBlockAppended while it is built (a reader that
 *   arrives or catches up mid-block gets every transaction so far in its first one), then, when
 *   the next key block makes it final, BlockAppended naming them by id. A block that was not
 *   built from micro-blocks (one a peer sent whole) comes as AppendedBlockHistory once final.
 *   A reader that fell behind while a block was being built gets the rest of its transactions
 *   in one MicroBlockAppended before the BlockAppended.
 * - A rollback that takes away blocks or transactions the reader was given: RollbackCompleted
 *   with the block the chain went back to and the ids of those transactions (WE names every
 *   discarded transaction; the ones the reader was never given mean nothing to it). The stream
 *   goes on from that block, as WE's does. A micro-block fork (a key block on an earlier
 *   micro-block of the liquid block) is such a rollback here.
 * - `current_event`: no history; nothing until the chain changes, then as above (WE's head
 *   event: a micro-block gives every transaction of the liquid block so far, a new key block
 *   gives the block it made final whole).
 *
 * Filters (WE's getTxPredicate): by transaction type, by contract id, each in or out, ANDed —
 * and, as in WE, only transactions that have a protobuf form (not a 105 paying a contract);
 * events keep their place with fewer (or no) transactions. A contract-id filter judges the
 * transactions of a contract — executable ones (103, 104, 107) and the 105 that executed one,
 * by the contract it ran; other transactions pass it either way (WE applies it to executable
 * transactions only, which blocks never hold outside a 105, and lets an out-filter drop every
 * other transaction).
 */
import type { ChainEvent } from '../../chain/blockchain.js';
import { blockDoesNotExist, genericError } from '../../errors/catalogue.js';
import type { Block, MicroBlock } from '../../protocol/blocks.js';
import { executedContractIdOf, isExecutableContract } from '../../protocol/transactions/contracts-executable.js';
import type { Transaction } from '../../protocol/transactions/schema.js';
import { bytesKey, encodeBase58 } from '../../crypto/encoding.js';
import { ExecutedContract } from '../../protocol/transactions/contracts-executed.js';
import { appendedBlockHistory, blockAppended, microBlockAppended, rollbackCompleted, type BlockEventHeader } from './event-messages.js';

/** What the events are read from: the node's chain. */
export interface EventChain {
  /** The height, the liquid block counted. */
  height(): number;
  /** A stored block, or the liquid block (as assembled so far) at the top height. */
  blockAt(height: number): Block | undefined;
  /** The height of a block by its id (a final id, or the liquid block's current one). */
  heightOfBlock(id: Uint8Array): number | undefined;
  /** The micro-blocks of the liquid block so far. */
  liquidMicroBlocks(): readonly MicroBlock[];
  /** Subscribes to changes; returns the unsubscribe. */
  on(listener: (event: ChainEvent) => void): () => void;
}

export type StartFrom = { readonly kind: 'genesis' } | { readonly kind: 'block'; readonly id: Uint8Array } | { readonly kind: 'current' };

/** One of WE's EventsFilter: a type or contract-id set, taken in or left out. */
export type EventsFilter =
  | { readonly out: boolean; readonly txTypes: readonly number[] }
  | { readonly out: boolean; readonly contractIds: readonly Uint8Array[] }
  | { readonly out: boolean };

/** Where events go: a writable stream of encoded BlockchainEvent messages. */
export interface EventSink {
  /** Writes one event; false when the reader's buffer is full (then `drained` resolves when it is not). */
  write(event: Uint8Array): boolean;
  drained(): Promise<void>;
}

/** How many final blocks the cursors of a service share (FinalBlocks): the few heights readers are at together. */
const SHARED_BLOCKS = 4;

/**
 * The final blocks the cursors of one service read, shared: readers that follow the chain
 * all want the block a key block has just made final at once, and readers from genesis
 * together walk the same heights. Read from the store separately, each would parse it and
 * work out every transaction's id and protobuf form again (those are kept per transaction
 * object); shared, a block costs that once. The block the liquid block became is taken as
 * it was built — its transactions the very objects the micro-block events were encoded from
 * — once the chain holds it final under the same id; other heights come from the store.
 * At most SHARED_BLOCKS blocks are kept (besides the liquid block the chain holds anyway);
 * a rollback drops the ones above the height it went back to.
 */
export class FinalBlocks {
  private readonly kept = new Map<number, Block>();
  /** The liquid block as assembled after its latest micro-block, and its height. */
  private liquid: { readonly height: number; readonly block: Block } | undefined;

  constructor(private readonly chain: EventChain) {
    chain.on((event) => {
      if (event.kind === 'rollback') {
        // The block rolled back to may itself change (a micro-block fork trims it): dropped too.
        for (const height of this.kept.keys()) if (height >= event.height) this.kept.delete(height);
        if (this.liquid !== undefined && this.liquid.height >= event.height) this.liquid = undefined;
      } else if (event.kind === 'micro-block') this.liquid = { height: event.height, block: event.block };
      else {
        const liquid = this.liquid;
        this.liquid = undefined;
        if (liquid !== undefined && liquid.height === event.height - 1 && this.chain.heightOfBlock(liquid.block.id) === liquid.height)
          this.keep(liquid.height, liquid.block);
      }
    });
  }

  /** The final block at `height` (below the chain's top). */
  blockAt(height: number): Block | undefined {
    const kept = this.kept.get(height);
    // Still the chain's block there (an index read): what a kept block is never outlives.
    if (kept !== undefined && this.chain.heightOfBlock(kept.id) === height) return kept;
    const block = this.chain.blockAt(height);
    if (block !== undefined && height < this.chain.height()) this.keep(height, block);
    return block;
  }

  private keep(height: number, block: Block): void {
    this.kept.delete(height);
    this.kept.set(height, block);
    // Maps iterate in insertion order: the first key is the least recently kept.
    while (this.kept.size > SHARED_BLOCKS) this.kept.delete(this.kept.keys().next().value!);
  }
}

export interface BlockchainEventsDeps {
  readonly chain: EventChain;
  /** The final blocks, shared by the service's cursors. */
  readonly finalBlocks: FinalBlocks;
  /** A transaction's protobuf form (protocol/proto/transactions.ts); undefined for one that has none. */
  encodeTransaction(tx: Transaction): Uint8Array | undefined;
  /** The 26-byte address of a block generator's public key. */
  addressOf(publicKey: Uint8Array): Uint8Array;
}

/** How long a cursor writes before it gives the event loop a turn. */
const SLICE_MS = 8;

/** The contract a contract transaction is about: an executable's, or the one a 105 executed; undefined for others. */
function contractOf(tx: Transaction): Uint8Array | undefined {
  if (isExecutableContract(tx)) return executedContractIdOf(tx);
  return ExecutedContract.is(tx) ? executedContractIdOf(tx.data.tx) : undefined;
}

/** WE's getTxPredicate over the request's filters (see the module's note on contract ids). */
export function transactionPredicate(filters: readonly EventsFilter[]): (tx: Transaction) => boolean {
  const tests = filters.map((f): ((tx: Transaction) => boolean) => {
    let matches: (tx: Transaction) => boolean;
    if ('txTypes' in f) {
      const types = new Set(f.txTypes);
      matches = (tx) => types.has(tx.type);
    } else if ('contractIds' in f) {
      const ids = new Set(f.contractIds.map(bytesKey));
      matches = (tx) => {
        const contract = contractOf(tx);
        return contract === undefined ? !f.out : ids.has(bytesKey(contract));
      };
    } else matches = () => true;
    return f.out ? (tx) => !matches(tx) : matches;
  });
  return (tx) => tests.every((t) => t(tx));
}

/**
 * One subscriber's cursor. `start` (validates the start point, throws WE's errors), then
 * `run` until the reader goes (`close`).
 */
export class EventCursor {
  /** Blocks up to this height have been given whole. */
  private sent = 0;
  /** Transactions of block `sent + 1` given in MicroBlockAppended events. */
  private liquidSent = 0;
  /** Whether block `sent + 1` was followed live as a liquid block (it then ends with BlockAppended). */
  private liquidLive = false;
  /** Rollbacks the reader has not been told of yet: the first `given` of `removed` it was given. */
  private readonly rollbacks: Array<{ readonly returnTo: Uint8Array; readonly removed: readonly Transaction[]; readonly given: number }> = [];
  /** Waiting for the first chain change (`current_event`). */
  private armed = true;
  private closed = false;
  private wake: (() => void) | undefined;
  private readonly unsubscribe: () => void;
  /** The request's filters. */
  private readonly matches: (tx: Transaction) => boolean;
  /** The filters, and a protobuf form to send (WE's protoTxFilter: a transaction without one is in no event). */
  private readonly accept: (tx: Transaction) => boolean;

  constructor(
    private readonly deps: BlockchainEventsDeps,
    start: StartFrom,
    filters: readonly EventsFilter[],
    private readonly sink: EventSink,
  ) {
    const matches = transactionPredicate(filters);
    this.matches = matches;
    this.accept = (tx) => matches(tx) && deps.encodeTransaction(tx) !== undefined;
    const chain = deps.chain;
    const top = chain.height();
    if (start.kind === 'genesis') this.sent = 0;
    else if (start.kind === 'current') {
      this.sent = Math.max(0, top - 1);
      this.armed = false;
    } else {
      const height = chain.heightOfBlock(start.id);
      if (height === undefined) throw blockDoesNotExist(encodeBase58(start.id), 'last_block_signature');
      if (height < top || !this.liquidAt(top)) this.sent = height;
      else {
        // The liquid block as the reader saw it: it goes on with the transactions added since.
        this.sent = top - 1;
        this.liquidSent = chain.blockAt(top)!.transactions.length;
        this.liquidLive = true;
      }
    }
    this.unsubscribe = chain.on((event) => this.onChain(event));
  }

  /** Writes events until `close`; rejects only if the chain lacks a block below its top (a store fault). */
  async run(): Promise<void> {
    let sliceStart = performance.now();
    while (!this.closed) {
      const event = this.armed ? this.next() : undefined;
      if (event === undefined) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        sliceStart = performance.now();
        continue;
      }
      if (!this.sink.write(event)) await this.sink.drained();
      if (performance.now() - sliceStart > SLICE_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    this.wake?.();
  }

  /** Whether the block at the top height is being built from micro-blocks (none of its transactions came with its key block). */
  private liquidAt(top: number): boolean {
    const micros = this.deps.chain.liquidMicroBlocks();
    if (micros.length === 0) return false;
    const tip = this.deps.chain.blockAt(top);
    let inMicros = 0;
    for (const m of micros) if (m.kind === 'tx') inMicros += m.transactions.length;
    return tip !== undefined && tip.transactions.length === inMicros;
  }

  private onChain(event: ChainEvent): void {
    if (event.kind === 'rollback') this.rolledBack(event.height, event.removed, event.removedBlockSizes);
    this.armed = true;
    this.wake?.();
  }

  /**
   * A rollback to `height`: the cursor goes back at once, and a RollbackCompleted naming what
   * the reader was given of the removed blocks waits for the reader (the chain's event costs
   * each cursor a few additions; the ids are filtered and encoded when the reader takes them).
   */
  private rolledBack(height: number, removed: readonly Transaction[], sizes: readonly number[]): void {
    if (height > this.sent) return;
    if (height === this.sent && this.liquidSent === 0) {
      this.liquidLive = false;
      return;
    }
    let given = this.liquidSent;
    for (let h = height + 1; h <= this.sent; h++) given += sizes[h - height - 1] ?? 0;
    this.sent = height;
    this.liquidSent = 0;
    this.liquidLive = false;
    this.rollbacks.push({ returnTo: this.deps.chain.blockAt(height)?.id ?? new Uint8Array(0), removed, given });
  }

  /** The next event the reader is owed, if any: rollbacks first, in the order they came. */
  private next(): Uint8Array | undefined {
    const rollback = this.rollbacks.shift();
    if (rollback !== undefined) {
      const ids: Uint8Array[] = [];
      for (let i = 0; i < rollback.given; i++) if (this.accept(rollback.removed[i]!)) ids.push(rollback.removed[i]!.id);
      return rollbackCompleted(rollback.returnTo, ids);
    }
    const chain = this.deps.chain;
    const top = chain.height();
    if (this.sent < top - 1) {
      const height = this.sent + 1;
      const block = this.deps.finalBlocks.blockAt(height);
      if (block === undefined) throw new Error(`no block at height ${height} below the top ${top}`);
      const txs = block.transactions;
      if (this.liquidSent > 0 && this.liquidSent < txs.length) {
        const rest = txs.slice(this.liquidSent);
        this.liquidSent = txs.length;
        return microBlockAppended(this.encoded(rest));
      }
      const live = this.liquidLive;
      this.sent = height;
      this.liquidSent = 0;
      this.liquidLive = false;
      const header = this.header(block, height);
      return live
        ? blockAppended(
            header,
            txs.filter(this.accept).map((tx) => tx.id),
          )
        : appendedBlockHistory(header, this.encoded(txs));
    }
    if (this.sent === top - 1 && this.liquidAt(top)) {
      this.liquidLive = true;
      const txs = chain.blockAt(top)!.transactions;
      if (txs.length > this.liquidSent) {
        const rest = txs.slice(this.liquidSent);
        this.liquidSent = txs.length;
        return microBlockAppended(this.encoded(rest));
      }
    }
    return undefined;
  }

  private encoded(txs: readonly Transaction[]): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (const tx of txs) {
      const encoded = this.matches(tx) ? this.deps.encodeTransaction(tx) : undefined;
      if (encoded !== undefined) out.push(encoded);
    }
    return out;
  }

  private header(block: Block, height: number): BlockEventHeader {
    return {
      signature: block.id,
      reference: block.reference,
      minerAddress: this.deps.addressOf(block.generator),
      height,
      version: block.version,
      timestamp: block.timestamp,
      fee: block.fee,
      size: block.size,
      features: block.featureVotes,
    };
  }
}

/** WE's request checks: a start point is required, and a block start needs its signature. */
export function startFromRequest(request: {
  readonly genesisBlock?: object | undefined;
  readonly blockSignature?: { readonly lastBlockSignature?: Uint8Array | undefined } | undefined;
  readonly currentEvent?: object | undefined;
}): StartFrom {
  if (request.genesisBlock !== undefined) return { kind: 'genesis' };
  if (request.currentEvent !== undefined) return { kind: 'current' };
  if (request.blockSignature !== undefined) {
    const id = request.blockSignature.lastBlockSignature;
    if (id === undefined) throw genericError("Missing required field 'last_block_signature'");
    return { kind: 'block', id };
  }
  throw genericError("Missing required field 'start_from'");
}
