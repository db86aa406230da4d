/**
 * What the pool's transactions would take from an address: WE's pessimistic UTX portfolio
 * (`/debug/portfolios/{address}?considerUnspent=true`). Each pooled transaction is applied
 * alone on the confirmed state, and only what it lowers counts — WEST and asset balances
 * decreased, WEST newly leased out; what it credits is not (a spend that needs a transfer
 * still in the pool is not backed by it, as in the pool's pending spendings).
 */
import { bytesKey, equalBytes } from '../crypto/encoding.js';
import { WeError } from '../errors/catalogue.js';
import { MutableState } from '../state/view.js';
import type { Blockchain } from './blockchain.js';
import type { UtxPool } from './utx.js';
import { applyTransaction } from './validation.js';

/** The pool's pending outflow of one address: WEST and asset amounts as negative deltas, lease-out as a positive one. */
export interface PoolOutflow {
  west: bigint;
  leaseOut: bigint;
  /** Per asset (by `bytesKey` of its id): the asset and what the pool takes of it (negative). */
  readonly assets: Map<string, { assetId: Uint8Array; amount: bigint }>;
}

export function poolOutflow(chain: Pick<Blockchain, 'state' | 'poolTxContext'>, pool: Pick<UtxPool, 'all'>, address: Uint8Array): PoolOutflow {
  const base = chain.state();
  const out: PoolOutflow = { west: 0n, leaseOut: 0n, assets: new Map() };
  const ctx = chain.poolTxContext();
  for (const tx of pool.all()) {
    const state = new MutableState(base);
    try {
      applyTransaction(state, tx, ctx, { verifySignature: false });
    } catch (e) {
      if (e instanceof WeError) continue; // no longer valid: the pool drops it at its next pass
      throw e;
    }
    const changes = state.changes();
    for (const b of changes.balances.values()) {
      if (!equalBytes(b.holder, address)) continue;
      const delta = b.value - base.balance(address, b.assetId);
      if (delta >= 0n) continue;
      if (b.assetId === null) out.west += delta;
      else {
        const key = bytesKey(b.assetId);
        const prior = out.assets.get(key);
        out.assets.set(key, { assetId: b.assetId, amount: (prior?.amount ?? 0n) + delta });
      }
    }
    for (const l of changes.leaseBalances.values()) {
      if (!equalBytes(l.address, address)) continue;
      const delta = l.value.out - base.leaseBalance(address).out;
      if (delta > 0n) out.leaseOut += delta;
    }
  }
  return out;
}
