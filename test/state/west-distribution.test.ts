/**
 * Store.westDistribution (WE's addressWestDistribution, `/debug/state` and `/debug/stateWE`):
 * the positive WEST balances of addresses after any height, against a model of the
 * committed heights — also after rollbacks, and ignoring asset balances and holders that
 * are not addresses (contract ids).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { Store } from '../../src/state/store.js';
import { MutableState } from '../../src/state/view.js';
import { tempDir } from '../../devkit/tmp.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const ADDRS = Array.from({ length: 4 }, (_, i) => p.addresses.fromPublicKey(p.crypto.keyPairFromSeedPhrase(`west distribution ${i}`).publicKey).bytes);
/** A contract-like holder (32 bytes): never listed. */
const CONTRACT = new Uint8Array(32).fill(9);
const ASSET = new Uint8Array(32).fill(7);

type Op = { who: number; asset: boolean; delta: number };
const opArb: fc.Arbitrary<Op> = fc.record({ who: fc.nat(4), asset: fc.boolean(), delta: fc.integer({ min: -50, max: 100 }) });

type Model = Map<string, bigint>;

function distribution(store: Store, height: number): Record<string, bigint> {
  const out: Record<string, bigint> = {};
  for (const { address, balance } of store.westDistribution(height)) out[encodeBase58(address)] = balance;
  return out;
}

function positive(model: Model): Record<string, bigint> {
  const out: Record<string, bigint> = {};
  const sorted = [...model.entries()].sort(([a], [b]) =>
    Buffer.compare(Buffer.from(p.addresses.parseAddress(a).bytes), Buffer.from(p.addresses.parseAddress(b).bytes)),
  );
  for (const [a, v] of sorted) if (v > 0n) out[a] = v;
  return out;
}

describe('Store.westDistribution', () => {
  it('matches the model at every height, in address byte order, before and after a rollback', () => {
    fc.assert(
      fc.property(fc.array(fc.array(opArb, { maxLength: 8 }), { minLength: 1, maxLength: 6 }), fc.nat(), (blocks, cut) => {
        const store = Store.open(tempDir('weft-westdist-'), p);
        const models: Model[] = [new Map()];
        blocks.forEach((ops, i) => {
          const model = new Map(models[i]);
          const s = new MutableState(store);
          for (const op of ops) {
            const holder = op.who === 4 ? CONTRACT : ADDRS[op.who]!;
            const assetId = op.asset ? ASSET : null;
            if (s.balance(holder, assetId) + BigInt(op.delta) < 0n) continue;
            s.addBalance(holder, assetId, BigInt(op.delta));
            if (op.who !== 4 && !op.asset) {
              const key = encodeBase58(holder);
              model.set(key, (model.get(key) ?? 0n) + BigInt(op.delta));
            }
          }
          store.commit({ height: i + 1, blockBytes: Uint8Array.from([i]), blockIds: [], changes: s.changes() });
          models.push(model);
        });
        const top = blocks.length;
        for (let h = 0; h <= top + 1; h++) {
          const got = distribution(store, h);
          const want = positive(models[Math.min(h, top)]!);
          assert.deepEqual(got, want, `height ${h}`);
          assert.deepEqual(Object.keys(got), Object.keys(want), `order at ${h}`);
        }
        const target = cut % (top + 1);
        store.rollbackTo(target);
        for (let h = 0; h <= top; h++)
          assert.deepEqual(distribution(store, h), positive(models[Math.min(h, target)]!), `height ${h} after rollback to ${target}`);
      }),
      { numRuns: 40 },
    );
  });
});
