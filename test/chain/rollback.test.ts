/**
 * Rollback of the chain ( "rollback then re-append yields the same state hash").
 *
 * A chain on the real Blockchain + PoaRules + Store, with an injected clock advanced through
 * PoA rounds: this node's key blocks are forged as the miner forges them (planKeyBlock for
 * the slot, Block.sign, appendKeyBlock) and filled with micro-blocks through
 * appendOwnMicroBlock, with transfers and several other transaction types (issue, reissue,
 * burn, lease, lease cancel, alias, mass transfer, data, sponsorship, permission, atomic). A
 * second miner never forges, so its rounds are skipped and it collects warnings and bans.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Blockchain, type ChainEvent } from '../../src/chain/blockchain.js';
import { FEATURE, PreActivatedFeatures } from '../../src/chain/features.js';
import { ScriptVerifier } from '../../src/chain/scripts/verifier.js';
import { DEFAULT_FEES, IMPLEMENTED_FEATURES, type ChainSettings } from '../../src/chain/settings.js';
import { planKeyBlock } from '../../src/consensus/poa.js';
import { PoaRules, poaHeaders } from '../../src/consensus/rules.js';
import { encodeBase58, equalBytes } from '../../src/crypto/encoding.js';
import type { KeyPair } from '../../src/crypto/suite.js';
import { Block, signGenesisBlock, type GenesisSettings } from '../../src/protocol/blocks.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { Atomic, type AtomicData } from '../../src/protocol/transactions/atomic.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { Store } from '../../src/state/store.js';
import { expectWeError } from '../support/errors.js';
import { replayBlocks } from '../support/replay.js';
import { tempDir } from '../../devkit/tmp.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const scripts = await ScriptVerifier.create(p);
const WEST = 100_000_000n;
const GENESIS_TS = 1_700_000_000_000n;
const MAX_ROLLBACK_DEPTH = 8;
/** Heights the built chain reaches (the top one stays liquid). */
const TOP = 12;

interface Account {
  readonly keyPair: KeyPair;
  readonly address: Uint8Array;
  readonly b58: string;
}

function account(seed: string): Account {
  const keyPair = p.crypto.keyPairFromSeedPhrase(seed);
  const address = p.addresses.fromPublicKey(keyPair.publicKey);
  return { keyPair, address: address.bytes, b58: address.toString() };
}

const miner = account('weft rollback test miner');
const idleMiner = account('weft rollback test idle miner');
const alice = account('weft rollback test alice');
const bob = account('weft rollback test bob');
const genesisSigner = account('weft rollback test genesis signer');

function chainSettings(): ChainSettings {
  const balances: Array<[Account, bigint]> = [
    [miner, 1_000_000n * WEST],
    [alice, 10_000n * WEST],
    [bob, 1_000n * WEST],
  ];
  const unsigned: GenesisSettings = {
    version: 1,
    blockTimestamp: GENESIS_TS,
    initialBalance: balances.reduce((s, [, a]) => s + a, 0n),
    initialBaseTarget: 153_722_867n,
    genesisPublicKey: genesisSigner.keyPair.publicKey,
    signature: null,
    transactions: balances.map(([a, amount]) => ({ recipient: p.addresses.fromPublicKey(a.keyPair.publicKey), amount })),
    networkParticipants: [
      { publicKey: miner.keyPair.publicKey, roles: ['miner', 'issuer', 'permissioner'] },
      { publicKey: idleMiner.keyPair.publicKey, roles: ['miner'] },
    ],
    senderRoleEnabled: false,
  };
  const genesis = { ...unsigned, signature: signGenesisBlock(p, unsigned, 'poa', genesisSigner.keyPair.privateKey).signature };
  return {
    crypto: 'waves',
    chainId: 'T',
    consensus: { type: 'poa', roundDurationMs: 4000, syncDurationMs: 1000, banDurationBlocks: 4, warningsForBan: 2, maxBansPercentage: 50 },
    genesis,
    fees: DEFAULT_FEES,
    functionality: {
      featureCheckBlocksPeriod: 2,
      blocksForFeatureActivation: 1,
      preActivatedFeatures: new Map([...IMPLEMENTED_FEATURES.keys()].map((id) => [id, 0])),
    },
    maxRollbackDepth: MAX_ROLLBACK_DEPTH,
  };
}

const SETTINGS = chainSettings();
const TX_EXPIRE_MS = 90 * 60 * 1000;

/** A chain over a store directory, with its own clock. */
class TestChain {
  clock = GENESIS_TS;
  private tsCounter = 0n;
  readonly chain: Blockchain;
  readonly rules: PoaRules;
  readonly events: ChainEvent[] = [];

  constructor(
    readonly dir: string,
    readonly store: Store,
  ) {
    const features = PreActivatedFeatures.fromSettings(SETTINGS.functionality);
    this.rules = PoaRules.fromSettings(SETTINGS, features);
    this.chain = new Blockchain({
      store,
      protocol: p,
      settings: SETTINGS,
      features,
      consensus: this.rules,
      txExpireTimeoutMs: TX_EXPIRE_MS,
      now: () => this.clock,
      scripts,
    });
    this.chain.on((e) => this.events.push(e));
  }

  static create(): TestChain {
    const dir = tempDir('weft-rollback-');
    const c = new TestChain(dir, Store.open(dir, p));
    c.chain.ensureGenesis();
    return c;
  }

  /** Closes the store and opens a new Blockchain over the same directory ("restart"), at the same clock. */
  async restart(): Promise<TestChain> {
    await this.store.close();
    const c = new TestChain(this.dir, Store.open(this.dir, p));
    c.clock = this.clock;
    c.chain.ensureGenesis();
    return c;
  }

  /** Signs a transaction from request JSON, stamped just before the clock. */
  tx(signer: Account, json: Record<string, unknown>): Transaction {
    this.tsCounter++;
    const author = json['type'] === 12 ? { authorPublicKey: encodeBase58(signer.keyPair.publicKey) } : {};
    const body = { senderPublicKey: encodeBase58(signer.keyPair.publicKey), timestamp: this.clock - 1000n + this.tsCounter, proofs: [], ...author, ...json };
    return p.sign(p.transactionFromJson(body, { forBroadcast: false }), signer.keyPair.privateKey);
  }

  transfer(from: Account, to: Account, amount: bigint, extra: Record<string, unknown> = {}): Transaction {
    return this.tx(from, { type: 4, version: 3, recipient: to.b58, amount, fee: 1_000_000n, attachment: '', ...extra });
  }

  atomic(sender: Account, inner: Transaction[]): Transaction {
    this.tsCounter++;
    const tx = p.transaction<AtomicData>(Atomic, 1, {
      senderPublicKey: sender.keyPair.publicKey,
      miner: null,
      transactions: inner,
      timestamp: this.clock - 1000n + this.tsCounter,
    });
    return p.sign(tx, sender.keyPair.privateKey);
  }

  /** Forges this node's next key block as the miner does: waits (moves the clock) for its slot, signs, appends. */
  forgeKeyBlock(): Block {
    for (let guard = 0; guard < 100; guard++) {
      const plan = planKeyBlock(this.rules.poa, { state: this.chain.state(), chain: poaHeaders(this.chain), now: this.clock, self: miner.address });
      if (plan.kind === 'forge') {
        const block = Block.sign(
          p,
          {
            version: 3,
            timestamp: plan.timestamp,
            reference: this.chain.lastBlock().id,
            consensus: { type: 'poa', overallSkippedRounds: plan.overallSkippedRounds },
            transactions: [],
            featureVotes: [],
            genesisData: null,
          },
          miner.keyPair.privateKey,
        );
        this.chain.appendKeyBlock(block);
        return block;
      }
      this.clock = plan.kind === 'wait' ? plan.at : plan.retryAt;
    }
    throw new Error('no slot for the miner');
  }

  /** One micro-block of `txs` (all must fit), 300 ms later; returns the new liquid block. */
  microBlock(txs: Transaction[]): Block {
    this.clock += 300n;
    const height = this.chain.height();
    const build = this.chain.appendOwnMicroBlock(
      txs,
      { maxTransactions: 255, maxBlockBytes: 1 << 20 },
      miner.keyPair.privateKey,
      this.chain.features.isActive(FEATURE.PARALLEL_LIQUID_BLOCK, height),
    );
    assert.deepEqual(
      build.rejected.map((r) => r.error.message),
      [],
      'every transaction fits',
    );
    assert.equal(build.included.length, txs.length);
    return this.chain.lastBlock();
  }
}

interface Built {
  readonly c: TestChain;
  /** State hash with the block at each height complete (before the next key block). */
  readonly hashAt: Map<number, string>;
  /** The final block at each height. */
  readonly blockAt: Map<number, Block>;
  /** Ids each height's liquid block had: the key block id, then each micro-block's total signature. */
  readonly liquidIds: Map<number, Uint8Array[]>;
  /** Transactions as sent (atomic containers unmined), by height. */
  readonly sent: Map<number, Transaction[]>;
}

/** Genesis, then key blocks 2..TOP with micro-blocks; the block at TOP stays liquid. */
function buildChain(): Built {
  const c = TestChain.create();
  const hashAt = new Map<number, string>([[1, c.store.stateHash()]]);
  const blockAt = new Map<number, Block>([[1, c.chain.lastBlock()]]);
  const liquidIds = new Map<number, Uint8Array[]>();
  const sent = new Map<number, Transaction[]>();
  let assetId = '';
  let leaseId = '';
  const batches = (height: number): Transaction[][] => {
    switch (height) {
      case 2: {
        const issue = c.tx(miner, {
          type: 3,
          version: 2,
          name: 'Weft',
          description: 'rollback test asset',
          quantity: 1_000_000n,
          decimals: 2,
          reissuable: true,
          fee: WEST,
        });
        assetId = issue.idBase58;
        return [[issue, c.transfer(miner, alice, 500n * WEST)], [c.transfer(alice, bob, 7n * WEST)]];
      }
      case 3: {
        const lease = c.tx(alice, { type: 8, version: 2, recipient: bob.b58, amount: 100n * WEST, fee: 1_000_000n });
        leaseId = lease.idBase58;
        return [
          [c.tx(miner, { type: 5, version: 2, assetId, quantity: 5_000n, reissuable: true, fee: WEST }), c.transfer(miner, alice, 2_000n, { assetId })],
          [lease, c.tx(alice, { type: 10, version: 2, alias: 'rollback-alice', fee: WEST })],
        ];
      }
      case 4:
        return [
          [
            c.tx(alice, { type: 6, version: 2, assetId, amount: 500n, fee: 5_000_000n }),
            c.tx(miner, { type: 14, version: 1, assetId, isEnabled: true, fee: WEST }),
          ],
          [
            c.tx(alice, {
              type: 12,
              version: 1,
              data: [
                { key: 'k', type: 'string', value: 'v1' },
                { key: 'n', type: 'integer', value: 1 },
              ],
              fee: 5_000_000n,
            }),
          ],
          [
            c.tx(miner, {
              type: 11,
              version: 2,
              transfers: [
                { recipient: alice.b58, amount: 1n },
                { recipient: bob.b58, amount: 2n },
                { recipient: 'alias:T:rollback-alice', amount: 3n },
              ],
              fee: 7_000_000n,
              attachment: '',
            }),
          ],
        ];
      case 5:
        return [
          [
            c.tx(alice, { type: 9, version: 2, chainId: p.chainId, leaseId, fee: 1_000_000n }),
            c.tx(miner, { type: 102, version: 1, target: bob.b58, opType: 'add', role: 'issuer', fee: 1_000_000n }),
          ],
          [c.atomic(alice, [c.transfer(alice, bob, 3n * WEST, { atomicBadge: {} }), c.transfer(alice, miner, 4n * WEST, { atomicBadge: {} })])],
        ];
      case 7:
        return [[c.tx(alice, { type: 12, version: 1, data: [{ key: 'k', type: 'string', value: 'v2' }], fee: 5_000_000n })]];
      case 9:
        return [[c.tx(miner, { type: 102, version: 1, target: bob.b58, opType: 'remove', role: 'issuer', fee: 1_000_000n })]];
      case 11:
        return [
          [c.atomic(bob, [c.transfer(bob, alice, 5n * WEST, { atomicBadge: {} }), c.transfer(bob, miner, 6n * WEST, { atomicBadge: {} })])],
          [c.transfer(alice, bob, 11n), c.transfer(bob, alice, 12n)],
        ];
      default:
        return [
          [c.transfer(height % 2 === 0 ? alice : bob, height % 2 === 0 ? bob : alice, BigInt(height) * 1000n)],
          [c.transfer(miner, alice, BigInt(height))],
        ];
    }
  };
  for (let height = 2; height <= TOP; height++) {
    const key = c.forgeKeyBlock();
    assert.equal(c.chain.height(), height);
    const ids = [key.id];
    const all: Transaction[] = [];
    for (const batch of batches(height)) {
      ids.push(c.microBlock(batch).id);
      all.push(...batch);
    }
    liquidIds.set(height, ids);
    sent.set(height, all);
    hashAt.set(height, c.store.stateHash());
    blockAt.set(height, c.chain.lastBlock());
  }
  return { c, hashAt, blockAt, liquidIds, sent };
}

const removedBlocks = (b: Built, from: number): Block[] => Array.from({ length: TOP - from }, (_, i) => b.blockAt.get(from + 1 + i)!);
const sameBytes = (a: readonly Transaction[], b: readonly Transaction[]): void =>
  assert.deepEqual(
    a.map((t) => encodeBase58(t.bytes)),
    b.map((t) => encodeBase58(t.bytes)),
  );

describe('chain rollback', () => {
  it('builds the chain through the miner path: skipped rounds of the idle miner, every type applied', () => {
    const { c, blockAt } = buildChain();
    assert.equal(c.chain.height(), TOP);
    const skipped = blockAt.get(TOP)!.consensus;
    assert.ok(skipped.type === 'poa' && skipped.overallSkippedRounds > 0n, 'the idle miner skipped rounds');
    assert.ok(c.store.minerBanHistory(idleMiner.address).length > 0, 'the idle miner was warned or banned');
    assert.equal(c.store.dataEntry(alice.address, 'k')?.value, 'v2');
    assert.equal(c.store.aliasOwner('rollback-alice')?.length, 26);
  });

  it('rolls back to several heights restoring their exact state; re-appending the removed blocks whole gives the same state hash', () => {
    const b = buildChain();
    const { c, hashAt, blockAt } = b;
    const top = hashAt.get(TOP)!;
    for (const target of [TOP - 1, TOP - 4, 5, c.chain.minRollbackHeight(), TOP]) {
      c.chain.rollbackTo(target);
      assert.equal(c.chain.height(), target);
      assert.ok(equalBytes(c.chain.lastBlock().id, blockAt.get(target)!.id), `the block at ${target} is the tip`);
      assert.equal(c.store.stateHash(), hashAt.get(target), `the state at ${target} after the rollback`);
      for (const block of removedBlocks(b, target)) c.chain.appendBlock(block);
      assert.equal(c.chain.height(), TOP);
      assert.ok(equalBytes(c.chain.lastBlock().id, blockAt.get(TOP)!.id));
      assert.equal(c.store.stateHash(), top, `re-appended from ${target}`);
    }
  });

  it('equals, after any rollback and re-append, a fresh replay of the same blocks', async () => {
    const b = buildChain();
    const { c, hashAt } = b;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: c.chain.minRollbackHeight(), max: TOP }), async (target) => {
        c.chain.rollbackTo(target);
        assert.equal(c.store.stateHash(), hashAt.get(target));
        for (const block of removedBlocks(b, target)) c.chain.appendBlock(block);
        const replayed = replayBlocks([...b.blockAt.values()], {
          protocol: p,
          scripts,
          settings: SETTINGS,
          txExpireTimeoutMs: TX_EXPIRE_MS,
          now: () => c.clock,
        });
        try {
          assert.equal(replayed.store.stateHash(), c.store.stateHash());
        } finally {
          await replayed.close();
        }
      }),
      { numRuns: 10 },
    );
  });

  it('refuses a rollback below max-rollback-depth or out of range with a WeError, changing nothing', () => {
    const { c, hashAt } = buildChain();
    const min = c.chain.minRollbackHeight();
    assert.equal(min, TOP - MAX_ROLLBACK_DEPTH);
    expectWeError(
      () => c.chain.rollbackTo(min - 1),
      199,
      `Rollback is possible only to the block at height ${min} or above (max-rollback-depth ${MAX_ROLLBACK_DEPTH})`,
      'rollbackTo',
    );
    for (const bad of [0, -1, TOP + 1, 2.5, Number.NaN]) {
      expectWeError(() => c.chain.rollbackTo(bad), 199, `Rollback height ${bad} is out of range: the chain is at height ${TOP}`, 'rollbackTo');
    }
    assert.equal(c.chain.height(), TOP);
    assert.equal(c.store.stateHash(), hashAt.get(TOP));
  });

  it('returns the removed transactions oldest first, atomic containers unmined as their clients sent them', () => {
    const b = buildChain();
    const { c, sent } = b;
    const target = 4;
    const minedAtomic = b.blockAt.get(5)!.transactions.find((t) => t.type === 120)!;
    assert.ok((minedAtomic.data as AtomicData).miner !== null, 'the block holds the atomic mined');
    c.events.length = 0;
    const removed = c.chain.rollbackTo(target);
    const expected = Array.from({ length: TOP - target }, (_, i) => sent.get(target + 1 + i)!).flat();
    sameBytes(removed, expected);
    assert.ok(removed.filter((t) => t.type === 120).every((t) => (t.data as AtomicData).miner === null));
    assert.equal(c.events.length, 1);
    const event = c.events[0]!;
    assert.ok(event.kind === 'rollback' && event.height === target);
    sameBytes(event.removed, expected);
    for (const tx of expected) assert.equal(c.store.transactionHeight(tx.id), undefined, `${tx.idBase58} is no longer confirmed`);
    // What was returned can be mined again, as the pool would: into this node's next blocks.
    c.clock += 60_000n;
    c.forgeKeyBlock();
    c.microBlock(removed.filter((t) => t.type !== 9 && t.type !== 102));
    for (const tx of removed.filter((t) => t.type === 4)) assert.equal(c.store.transactionHeight(tx.id), target + 1);
  });

  it('resolves a liquid block by its intermediate ids until the rollback removes it', () => {
    const { c, liquidIds, blockAt } = buildChain();
    for (const height of [TOP - 1, TOP]) {
      const ids = liquidIds.get(height)!;
      assert.ok(ids.length >= 3);
      ids.forEach((id, i) => {
        const found = c.chain.blockById(id);
        assert.ok(found !== undefined, `id ${i} of height ${height} resolves`);
        assert.equal(found.height, height);
        assert.ok(equalBytes(found.block.id, id));
        assert.ok(found.block.hasValidSignature(), 'the liquid block as assembled then, under its own total signature');
        assert.ok(equalBytes(found.block.reference, blockAt.get(height - 1)!.id));
        const full = blockAt.get(height)!;
        assert.ok(
          found.block.transactions.every((t, j) => equalBytes(t.id, full.transactions[j]!.id)),
          'a prefix of the final block',
        );
      });
    }
    assert.equal(c.chain.blockById(liquidIds.get(TOP)![0]!)!.block.transactions.length, 0, 'the key block id gives the key block');
    c.chain.rollbackTo(TOP - 1);
    const gone = liquidIds.get(TOP)!;
    for (const id of gone) {
      assert.equal(c.chain.blockById(id), undefined, `${encodeBase58(id).slice(0, 8)} no longer resolves`);
      assert.equal(c.store.blockIdInfo(id), undefined, `${encodeBase58(id).slice(0, 8)} is gone from the store`);
    }
    for (const id of liquidIds.get(TOP - 1)!) assert.equal(c.chain.blockById(id)?.height, TOP - 1);
    assert.equal(c.chain.childOf(blockAt.get(TOP - 1)!.id), undefined, 'no child of the new tip');
    // Another block at the height again (a fork): the removed ids still resolve to nothing.
    c.clock += 60_000n;
    const fork = c.forgeKeyBlock();
    const forkLiquid = c.microBlock([c.transfer(bob, alice, 1n), c.transfer(alice, bob, 2n)]);
    assert.equal(c.chain.height(), TOP);
    for (const id of gone) assert.equal(c.chain.blockById(id), undefined, `${encodeBase58(id).slice(0, 8)} does not resolve into the fork`);
    assert.equal(c.chain.blockById(fork.id)?.block.transactions.length, 0);
    assert.equal(c.chain.blockById(forkLiquid.id)?.block.transactions.length, 2);
  });

  it('after a restart over the same store sees the same tip, liquid block and state, and keeps mining on them', async () => {
    const b = buildChain();
    const before = b.c.chain.lastBlock();
    const c = await b.c.restart();
    assert.equal(c.chain.height(), TOP);
    assert.ok(equalBytes(c.chain.lastBlock().bytes, before.bytes), 'the liquid block with every micro-block');
    assert.ok(equalBytes(c.chain.headerAt(TOP).id, b.liquidIds.get(TOP)![0]!), 'its key block');
    assert.equal(c.store.stateHash(), b.hashAt.get(TOP));
    for (const id of b.liquidIds.get(TOP)!) assert.equal(c.chain.blockById(id)?.height, TOP);
    // The restarted chain extends its liquid block within the round, then forges the next key block.
    const liquid = c.microBlock([c.transfer(alice, bob, 99n)]);
    assert.ok(equalBytes(liquid.reference, b.blockAt.get(TOP - 1)!.id));
    assert.equal(liquid.transactions.length, before.transactions.length + 1);
    c.forgeKeyBlock();
    assert.equal(c.chain.height(), TOP + 1);
    // And rolls back as before the restart.
    c.chain.rollbackTo(TOP - 2);
    assert.equal(c.store.stateHash(), b.hashAt.get(TOP - 2));
  });
});
