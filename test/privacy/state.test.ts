/**
 * The node's privacy state (descriptors, pending and lost sets) across restarts, and what
 * the chain's events put into it (policy-updates.ts): 114s of policies the node owner is a
 * recipient of (inside atomic containers too), 113s adding the owner, rollbacks.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import type { KeyPair } from '../../src/crypto/suite.js';
import { Protocol } from '../../src/protocol/protocol.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { Atomic } from '../../src/protocol/transactions/atomic.js';
import { PolicyUpdates } from '../../src/privacy/policy-updates.js';
import { PrivacyState, type PendingItem } from '../../src/privacy/state.js';
import { Store } from '../../src/state/store.js';
import { MutableState } from '../../src/state/view.js';
import { tempDir } from '../../devkit/tmp.js';
import { until } from '../../devkit/wait.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const key = (): { policyId: string; hash: string } => ({ policyId: encodeBase58(randomBytes(32)), hash: encodeBase58(randomBytes(32)) });

describe('privacy state', () => {
  it('keeps descriptors, pending and lost items across a restart, and tells listeners of new pending items only', async () => {
    const dir = join(tempDir(), 'state');
    const state = PrivacyState.open(dir);
    const [a, b, c] = [key(), key(), key()];
    const heard: PendingItem[][] = [];
    const stop = state.onPending((items) => heard.push([...items]));
    assert.equal(await state.addToPending([a, b]), 2);
    assert.equal(await state.addToPending([a, c]), 1, 'a is pending already');
    assert.deepEqual(heard, [[a, b], [c]]);
    stop();
    await state.pendingToLost(b);
    await state.putDescriptor(c, 'large');
    assert.deepEqual(await state.removeFromPendingAndLost(a), { wasPending: true, wasLost: false });
    await state.close();
    const again = PrivacyState.open(dir);
    assert.deepEqual(again.pending(), [c]);
    assert.deepEqual(again.lost(), [b]);
    assert.equal(again.isLost(b), true);
    assert.equal(again.descriptor(c), 'large');
    assert.equal(again.descriptor(a), undefined);
    assert.deepEqual(await again.removeFromPendingAndLost(b), { wasPending: false, wasLost: true });
    await again.close();
  });
});

describe('what the chain tells confidential data', () => {
  const owner = p.crypto.keyPairFromSeedPhrase('policy updates owner');
  const stranger = p.crypto.keyPairFromSeedPhrase('policy updates stranger');
  const address = (k: KeyPair): string => p.addresses.fromPublicKey(k.publicKey).toString();
  const sign = (signer: KeyPair, json: Record<string, unknown>): Transaction =>
    p.sign(
      p.transactionFromJson({ senderPublicKey: encodeBase58(signer.publicKey), timestamp: 1_700_000_000_000, proofs: [], ...json }, { forBroadcast: false }),
      signer.privateKey,
    );

  function setup() {
    const state = new MutableState(Store.open(tempDir(), p));
    const mine = randomBytes(32);
    const theirs = randomBytes(32);
    state.putPolicy(mine, { owners: [p.addresses.fromPublicKey(owner.publicKey).bytes], recipients: [p.addresses.fromPublicKey(owner.publicKey).bytes] });
    state.putPolicy(theirs, {
      owners: [p.addresses.fromPublicKey(stranger.publicKey).bytes],
      recipients: [p.addresses.fromPublicKey(stranger.publicKey).bytes],
    });
    const privacy = PrivacyState.open(join(tempDir(), 'state'));
    const updates = new PolicyUpdates(
      p.addresses.fromPublicKey(owner.publicKey),
      () => state,
      privacy,
      (e) => assert.fail(String(e)),
    );
    const dataHash = (policyId: Uint8Array, extra: Record<string, unknown> = {}) =>
      sign(owner, { type: 114, version: 3, policyId: encodeBase58(policyId), dataHash: encodeBase58(randomBytes(32)), fee: 5_000_000n, ...extra });
    return { state, mine, theirs, privacy, updates, dataHash };
  }

  it('queues the items of 114s of policies the owner receives, with their timestamps, atomic ones included', () => {
    const { mine, theirs, updates, dataHash } = setup();
    const ours = dataHash(mine);
    const inAtomic = [dataHash(mine, { atomicBadge: {} }), dataHash(theirs, { atomicBadge: {} })];
    const atomic = p.sign(
      p.transaction(Atomic, 1, { senderPublicKey: owner.publicKey, miner: null, transactions: inAtomic, timestamp: 1_700_000_000_001n }),
      owner.privateKey,
    );
    const items = updates.itemsToFetch([ours, dataHash(theirs), atomic]);
    assert.deepEqual(
      items,
      [ours, inAtomic[0]!].map((tx) => ({
        policyId: encodeBase58(mine),
        hash: encodeBase58((tx.data as { dataHash: Uint8Array }).dataHash),
        txTimestamp: tx.timestamp,
      })),
    );
  });

  it('queues every anchored item of a policy when a 113 adds the owner as a recipient', async () => {
    const { state, theirs, updates, privacy } = setup();
    const hashes = [randomBytes(32), randomBytes(32)];
    for (const h of hashes) state.addPolicyDataHash(theirs, h, randomBytes(32));
    const add = sign(stranger, {
      type: 113,
      version: 3,
      policyId: encodeBase58(theirs),
      opType: 'add',
      recipients: [address(owner)],
      owners: [],
      fee: 50_000_000n,
    });
    const removeSomeoneElse = sign(stranger, {
      type: 113,
      version: 3,
      policyId: encodeBase58(theirs),
      opType: 'remove',
      recipients: [address(owner)],
      owners: [],
      fee: 50_000_000n,
    });
    assert.deepEqual(updates.itemsToFetch([removeSomeoneElse]), []);
    updates.handle({ kind: 'micro-block', transactions: [add] });
    await until('the items to be queued', () => (privacy.pending().length === 2 ? true : undefined));
    assert.deepEqual(
      privacy
        .pending()
        .map((k) => k.hash)
        .sort(),
      hashes.map((h) => encodeBase58(h)).sort(),
    );
  });

  it('tells rollback listeners of rolled-back 114s and takes them out of the pending and lost sets', async () => {
    const { mine, updates, privacy, dataHash } = setup();
    const tx = dataHash(mine);
    updates.handle({ kind: 'block', block: { transactions: [tx] } });
    const item = { policyId: encodeBase58(mine), hash: encodeBase58((tx.data as { dataHash: Uint8Array }).dataHash) };
    await until('the item to be queued', () => (privacy.isPending(item) ? true : undefined));
    const heard: unknown[] = [];
    updates.onRollback((items) => heard.push(...items));
    const events: unknown[] = [];
    privacy.onItemEvent((e) => events.push(e));
    updates.handle({ kind: 'rollback', removed: [tx] });
    assert.deepEqual(heard, [item]);
    assert.deepEqual(events, [{ kind: 'invalidated', key: item }], 'item listeners hear of the invalidation');
    await until('the item to leave the pending set', () => (privacy.isPending(item) ? undefined : true));
  });

  it('tells item listeners of each item recorded as acquired (its descriptor written first) until they stop listening', async () => {
    const state = PrivacyState.open(join(tempDir(), 'state'));
    const [a, b] = [key(), key()];
    const events: Array<{ kind: string; key: unknown; descriptor: unknown }> = [];
    const stop = state.onItemEvent((e) => events.push({ kind: e.kind, key: e.key, descriptor: state.descriptor(e.key) }));
    // A listener that throws is dropped, and stops nothing.
    state.onItemEvent(() => {
      throw new Error('a broken stream');
    });
    await state.recordAcquired(a, 'large');
    stop();
    await state.recordAcquired(b, 'default');
    assert.deepEqual(events, [{ kind: 'acquired', key: a, descriptor: 'large' }]);
    assert.equal(state.descriptor(b), 'default');
    await state.close();
  });
});
