/**
 * What an indexer built on BlockchainEventsService keeps, and the checks WE's event order
 * promises it: blocks by height with their transaction ids, the liquid block's transactions
 * so far, each event applied as a reader would (BlockAppended must confirm exactly the
 * transactions the micro-block events gave; a rollback must name exactly what it takes away).
 * Tests feed it the official client's decoded events and compare it with the chain at the end.
 */
import assert from 'node:assert/strict';
import { BlockchainEvent } from '@wavesenterprise/js-contract-grpc-client/messagebroker/messagebroker_blockchain_event.js';
import type { Transaction as TransactionMessage } from '@wavesenterprise/js-contract-grpc-client/managed/transaction.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';

/** The id inside a decoded Transaction message, whichever its type. */
export function messageTxId(message: TransactionMessage): string {
  for (const [key, value] of Object.entries(message)) {
    if (key === 'version' || value === undefined) continue;
    return encodeBase58((value as { id: Uint8Array }).id);
  }
  throw new Error('a Transaction message with no transaction');
}

export class EventIndexer {
  /** Confirmed blocks: height → [signature, transaction ids]. */
  readonly blocks = new Map<number, { readonly signature: string; readonly txIds: readonly string[] }>();
  /** The liquid block's transactions given so far. */
  liquid: string[] = [];
  readonly kinds: string[] = [];

  /** `from`: the block a reader subscribed after (by signature), which it already holds; none from genesis. */
  constructor(from?: { readonly height: number; readonly signature: string; readonly txIds?: readonly string[] }) {
    if (from !== undefined) this.blocks.set(from.height, { signature: from.signature, txIds: from.txIds ?? [] });
  }

  /** Applies one event as the client decodes it. */
  apply(bytes: Uint8Array | BlockchainEvent): void {
    const event = bytes instanceof Uint8Array ? BlockchainEvent.decode(bytes) : bytes;
    if (event.appendedBlockHistory !== undefined) {
      const e = event.appendedBlockHistory;
      this.kinds.push('history');
      assert.equal(this.liquid.length, 0, 'a block given whole after micro-block events of it');
      this.confirm(e.height.toNumber(), encodeBase58(e.blockSignature), e.txs.map(messageTxId));
    } else if (event.microBlockAppended !== undefined) {
      this.kinds.push('micro');
      this.liquid.push(...event.microBlockAppended.txs.map(messageTxId));
    } else if (event.blockAppended !== undefined) {
      const e = event.blockAppended;
      this.kinds.push('block');
      const ids = e.txIds.map(encodeBase58);
      assert.deepEqual(ids, this.liquid, `BlockAppended ${e.height.toString()} names the transactions its micro-block events gave`);
      this.liquid = [];
      this.confirm(e.height.toNumber(), encodeBase58(e.blockSignature), ids);
    } else if (event.rollbackCompleted !== undefined) {
      const e = event.rollbackCompleted;
      this.kinds.push('rollback');
      const to = encodeBase58(e.returnToBlockSignature);
      const height = [...this.blocks].find(([, b]) => b.signature === to)?.[0];
      assert.ok(height !== undefined, `rollback to ${to}, a block this reader was given`);
      const removed: string[] = [];
      for (const [h, b] of [...this.blocks].sort(([x], [y]) => x - y)) {
        if (h <= height) continue;
        removed.push(...b.txIds);
        this.blocks.delete(h);
      }
      removed.push(...this.liquid);
      this.liquid = [];
      assert.deepEqual(e.rollbackTxIds.map(encodeBase58), removed, 'the rollback names what it takes away');
    } else throw new Error('an empty BlockchainEvent');
  }

  private confirm(height: number, signature: string, txIds: readonly string[]): void {
    assert.ok(!this.blocks.has(height), `block ${height} given twice`);
    assert.ok(height === 1 || this.blocks.has(height - 1), `block ${height} given before block ${height - 1}`);
    this.blocks.set(height, { signature, txIds });
  }

  /** The highest confirmed height. */
  get height(): number {
    return Math.max(0, ...this.blocks.keys());
  }
}
