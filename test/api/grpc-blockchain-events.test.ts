/**
 * BlockchainEventsService's events (api/grpc/blockchain-events.ts) over real chains
 * (test/chain/fork-fixture.ts: Blockchain + PoA rules + LMDB store): an indexer fed the
 * events as the official client decodes them ends with exactly the chain's blocks and
 * transactions — from genesis, from a block signature, across micro-blocks, key blocks,
 * /debug/rollback-style rollbacks, a micro-block fork and a switch to a better branch — and a
 * reader that stops reading holds the node to a few buffered events, not the chain's growth.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { BlockchainEvent } from '@wavesenterprise/js-contract-grpc-client/messagebroker/messagebroker_blockchain_event.js';
import { Transaction as TransactionMessage } from '@wavesenterprise/js-contract-grpc-client/managed/transaction.js';
import { applyExtension, applyKeyBlock } from '../../src/chain/fork.js';
import { decodeBase58, encodeBase58, equalBytes } from '../../src/crypto/encoding.js';
import type { Block } from '../../src/protocol/blocks.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { EventCursor, FinalBlocks, transactionPredicate, type EventsFilter, type StartFrom } from '../../src/api/grpc/blockchain-events.js';
import { EventIndexer, messageTxId } from '../../devkit/api/event-indexer.js';
import { alice, bob, ChainNode, Clock, minerA, minerB, minerC, p, transfer } from '../chain/fork-fixture.js';
import { WeError } from '../../src/errors/catalogue.js';

/** Any transaction as a Transfer message carrying its id: what the indexer reads. */
const encodeTransaction = (tx: Transaction): Uint8Array =>
  TransactionMessage.encode(TransactionMessage.fromPartial({ version: tx.version, transferTransaction: { id: tx.id } })).finish();

interface Reader {
  readonly events: Uint8Array[];
  readonly cursor: EventCursor;
  /** Resolves once the cursor has nothing more to write. */
  settle(): Promise<void>;
}

const open: EventCursor[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

/** One FinalBlocks per node, as the service shares one among its streams: readers of a node see the same kept blocks across its rollbacks and forks. */
const finalBlocksOf = new WeakMap<ChainNode, FinalBlocks>();
function finalBlocks(node: ChainNode): FinalBlocks {
  let blocks = finalBlocksOf.get(node);
  if (blocks === undefined) finalBlocksOf.set(node, (blocks = new FinalBlocks(node.chain)));
  return blocks;
}

function subscribe(node: ChainNode, start: StartFrom, filters: readonly EventsFilter[] = [], capacity = Infinity): Reader & { drain(): void } {
  const events: Uint8Array[] = [];
  let drain: (() => void) | undefined;
  let buffered = 0;
  const cursor = new EventCursor(
    { chain: node.chain, finalBlocks: finalBlocks(node), encodeTransaction, addressOf: (key) => p.addresses.fromPublicKey(key).bytes },
    start,
    filters,
    {
      write: (event) => {
        events.push(event);
        buffered++;
        return buffered < capacity;
      },
      drained: () => new Promise<void>((resolve) => (drain = resolve)),
    },
  );
  open.push(cursor);
  void cursor.run();
  return {
    events,
    cursor,
    settle: async () => {
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    },
    drain: () => {
      buffered = 0;
      drain?.();
    },
  };
}

/** The chain's confirmed blocks (below the liquid top) and the liquid block's transactions. */
function chainView(node: ChainNode): { blocks: Map<number, { signature: string; txIds: string[] }>; liquid: string[] } {
  const blocks = new Map<number, { signature: string; txIds: string[] }>();
  const top = node.chain.height();
  for (let h = 1; h < top; h++) {
    const block = node.chain.blockAt(h)!;
    blocks.set(h, { signature: encodeBase58(block.id), txIds: block.transactions.map((t) => t.idBase58) });
  }
  return { blocks, liquid: node.chain.blockAt(top)!.transactions.map((t) => t.idBase58) };
}

function assertIndexed(indexer: EventIndexer, node: ChainNode, liquidFollowed = true): void {
  const view = chainView(node);
  assert.deepEqual(new Map([...indexer.blocks].sort(([a], [b]) => a - b)), view.blocks, 'the indexer holds exactly the chain’s confirmed blocks');
  if (liquidFollowed) assert.deepEqual(indexer.liquid, view.liquid, 'and the liquid block’s transactions so far');
}

/** A miner node that forges `blocks` key blocks, each filled with `perBlock` micro-blocks of one transfer. */
function minedChain(blocks: number, perBlock = 2): { clock: Clock; node: ChainNode } {
  const clock = new Clock();
  const node = ChainNode.create('a', clock, [minerA, minerB, minerC]);
  for (let i = 0; i < blocks; i++) mineBlock(clock, node, perBlock);
  return { clock, node };
}

let amount = 1n;
function mineBlock(clock: Clock, node: ChainNode, perBlock: number): Block {
  clock.nextRound();
  const block = node.forge();
  for (let j = 0; j < perBlock; j++) node.micro([transfer(clock, alice, bob, amount++)]);
  return block;
}

function feed(indexer: EventIndexer, reader: Reader, from = 0): number {
  for (const e of reader.events.slice(from)) indexer.apply(e);
  return reader.events.length;
}

describe('BlockchainEventsService events', () => {
  it('from genesis: stored blocks as history, then the liquid block live; each transaction once', async () => {
    const { clock, node } = minedChain(4);
    const reader = subscribe(node, { kind: 'genesis' });
    await reader.settle();
    const indexer = new EventIndexer();
    let seen = feed(indexer, reader);
    assertIndexed(indexer, node);
    assert.deepEqual(indexer.kinds.slice(0, 4), ['history', 'history', 'history', 'history']);
    assert.equal(indexer.kinds.at(-1), 'micro', 'the liquid block’s transactions so far in one MicroBlockAppended');
    for (let i = 0; i < 3; i++) {
      clock.nextRound();
      node.forge();
      for (let j = 0; j < 2; j++) {
        await reader.settle();
        node.micro([transfer(clock, alice, bob, amount++)]);
      }
      await reader.settle();
      seen = feed(indexer, reader, seen);
      assertIndexed(indexer, node);
    }
    // Each block followed live: its micro-blocks one by one, then BlockAppended once the next key block makes it final.
    assert.deepEqual(indexer.kinds.slice(5), ['block', 'micro', 'micro', 'block', 'micro', 'micro', 'block', 'micro', 'micro']);
  });

  it('a reader that reconnects from the last block it saw gets every later event once', async () => {
    const { clock, node } = minedChain(3);
    const first = subscribe(node, { kind: 'genesis' });
    await first.settle();
    const indexer = new EventIndexer();
    feed(indexer, first);
    first.cursor.close();
    // Gone for a while: blocks are made final, the liquid block grows.
    mineBlock(clock, node, 2);
    mineBlock(clock, node, 1);
    const last = indexer.blocks.get(indexer.height)!;
    const again = new EventIndexer({ height: indexer.height, signature: last.signature, txIds: last.txIds });
    const second = subscribe(node, { kind: 'block', id: decodeBase58(last.signature) });
    await second.settle();
    feed(again, second);
    for (const [h, b] of indexer.blocks) if (h < indexer.height) again.blocks.set(h, b);
    assertIndexed(again, node);
  });

  it('an unknown block signature is refused with 301', () => {
    const { node } = minedChain(1);
    assert.throws(
      () => subscribe(node, { kind: 'block', id: new Uint8Array(64).fill(7) }),
      (e: unknown) => e instanceof WeError && e.code === 301,
    );
  });

  it('a rollback names the transactions the reader was given and the stream goes on from the block it returned to', async () => {
    const { clock, node } = minedChain(5);
    const reader = subscribe(node, { kind: 'genesis' });
    await reader.settle();
    const indexer = new EventIndexer();
    let seen = feed(indexer, reader);
    node.chain.rollbackTo(3, { origin: 'api', returnToPool: false });
    await reader.settle();
    seen = feed(indexer, reader, seen);
    assert.equal(indexer.kinds.at(-1), 'rollback');
    assert.equal(indexer.height, 3, 'the reader keeps blocks 1–3, which the chain keeps');
    for (let i = 0; i < 2; i++) mineBlock(clock, node, 2);
    await reader.settle();
    feed(indexer, reader, seen);
    assertIndexed(indexer, node);
  });

  it('a key block on an earlier micro-block and a switch to a better branch: the indexer ends on the new chain', async () => {
    const clock = new Clock();
    const a = ChainNode.create('a', clock, [minerA]);
    const bc = ChainNode.create('bc', clock, [minerB, minerC]);
    while (a.chain.height() < 3) {
      clock.nextRound();
      const forger = [a, bc].find((n) => n.tryForge() !== undefined);
      if (forger === undefined) continue;
      forger.micro([transfer(clock, alice, bob, amount++)]);
      (forger === a ? bc : a).follow(forger);
    }
    const reader = subscribe(a, { kind: 'genesis' });
    const indexer = new EventIndexer();
    let seen = 0;
    // A forges and builds its liquid block; BC holds only its first micro-blocks and forges on them.
    a.forgeFollowing(bc);
    bc.follow(a);
    const m1 = a.micro([transfer(clock, alice, bob, amount++)]).microBlock!;
    a.micro([transfer(clock, alice, bob, amount++)]);
    await reader.settle();
    seen = feed(indexer, reader, seen);
    bc.chain.appendMicroBlock(m1);
    let next: Block | undefined;
    while (next === undefined) {
      clock.nextRound();
      next = bc.tryForge();
    }
    assert.ok(equalBytes(next.reference, m1.totalLiquidBlockSig));
    assert.equal(applyKeyBlock(a.chain, next).kind, 'switched');
    await reader.settle();
    seen = feed(indexer, reader, seen);
    assert.ok(indexer.kinds.includes('rollback'), 'the cut micro-block’s transaction is named in a RollbackCompleted');
    // Now BC makes a longer branch alone; A switches to it.
    for (let i = 0; i < 4; i++) {
      clock.nextRound();
      if (bc.tryForge() !== undefined) bc.micro([transfer(clock, bob, alice, amount++)]);
    }
    const common = a.chain.height() - 1;
    const branch: Block[] = [];
    for (let h = common + 1; h <= bc.chain.height(); h++) branch.push(bc.chain.blockAt(h)!);
    const result = applyExtension(a.chain, branch);
    assert.equal(result.kind, 'applied');
    await reader.settle();
    feed(indexer, reader, seen);
    assertIndexed(indexer, a, false);
    assert.deepEqual(a.ids(), bc.ids());
  });

  it('current_event: nothing until the chain changes, then the liquid block so far in one event', async () => {
    const { clock, node } = minedChain(2);
    const reader = subscribe(node, { kind: 'current' });
    await reader.settle();
    assert.equal(reader.events.length, 0);
    node.micro([transfer(clock, alice, bob, amount++)]);
    await reader.settle();
    assert.equal(reader.events.length, 1);
    const first = BlockchainEvent.decode(reader.events[0]!);
    assert.deepEqual(
      first.microBlockAppended!.txs.map(messageTxId),
      node.chain.lastBlock().transactions.map((t) => t.idBase58),
    );
    mineBlock(clock, node, 1);
    await reader.settle();
    assert.ok(BlockchainEvent.decode(reader.events[1]!).blockAppended !== undefined, 'the block followed live ends with BlockAppended');
  });

  it('filters: by type and by contract id, in and out; events keep their place', async () => {
    const { node } = minedChain(2);
    const all = subscribe(node, { kind: 'genesis' });
    const onlyTransfers = subscribe(node, { kind: 'genesis' }, [{ out: false, txTypes: [4] }]);
    const noTransfers = subscribe(node, { kind: 'genesis' }, [{ out: true, txTypes: [4] }]);
    await all.settle();
    assert.equal(onlyTransfers.events.length, all.events.length);
    assert.equal(noTransfers.events.length, all.events.length);
    const txsOf = (events: Uint8Array[]): number =>
      events.map((e) => BlockchainEvent.decode(e)).reduce((n, e) => n + (e.appendedBlockHistory?.txs.length ?? e.microBlockAppended?.txs.length ?? 0), 0);
    const genesisTxs = node.chain.blockAt(1)!.transactions.length;
    assert.equal(txsOf(noTransfers.events), genesisTxs, 'only the genesis transactions are not transfers');
    assert.equal(txsOf(onlyTransfers.events) + genesisTxs, txsOf(all.events));
    const transferTx = node.chain.lastBlock().transactions[0]!;
    // A contract-id filter judges contract transactions only: a transfer passes it in and out.
    assert.equal(transactionPredicate([{ out: false, contractIds: [new Uint8Array(32)] }])(transferTx), true);
    assert.equal(transactionPredicate([{ out: true, contractIds: [new Uint8Array(32)] }])(transferTx), true);
  });

  it('a reader that stops reading holds a few events, not the chain: the chain goes on, the cursor waits', async () => {
    const { clock, node } = minedChain(30, 1);
    const reader = subscribe(node, { kind: 'genesis' }, [], 4);
    await reader.settle();
    assert.equal(reader.events.length, 4, 'it writes until the buffer is full, then waits');
    for (let i = 0; i < 5; i++) mineBlock(clock, node, 1);
    await reader.settle();
    assert.equal(reader.events.length, 4, 'chain changes do not make it write past a full buffer');
    const indexer = new EventIndexer();
    let seen = 0;
    for (let i = 0; i < 100 && indexer.height < node.chain.height() - 1; i++) {
      reader.drain();
      await reader.settle();
      seen = feed(indexer, reader, seen);
    }
    assertIndexed(indexer, node);
  });
});
