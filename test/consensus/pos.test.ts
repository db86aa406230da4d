/**
 * PoS (FairPoS): the formulas against values computed independently (Python's hashlib
 * Blake2b, decimal division to 34 digits, libm log), a chain forged and validated with an
 * injected clock, every key-block validation failure as WE words it, and the miner loop
 * under PoS on mocked timers.
 */
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { blake2b } from '@noble/hashes/blake2.js';
import { Admission } from '../../src/chain/admission.js';
import { UtxPool } from '../../src/chain/utx.js';
import { Miner } from '../../src/consensus/miner.js';
import {
  calculateBaseTarget,
  calculateDelay,
  generationSignature,
  hitOf,
  MIN_GENERATING_BALANCE,
  normCoefficient,
  planPosKeyBlock,
  posBlockScore,
} from '../../src/consensus/pos.js';
import { blockScore } from '../../src/consensus/rules.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import type { Block } from '../../src/protocol/blocks.js';
import { expectWeError } from '../support/errors.js';
import {
  AVERAGE_BLOCK_DELAY_MS,
  forger,
  GENESIS_TS,
  INITIAL_BALANCE,
  INITIAL_BASE_TARGET,
  outsider,
  p,
  PosTestChain,
  poor,
  second,
  WEST,
} from './pos-chain.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const fromHex = (h: string): Uint8Array => new Uint8Array(Buffer.from(h, 'hex'));
const SEVENS = new Uint8Array(32).fill(7);
const PK = Uint8Array.from({ length: 32 }, (_, i) => i);
const LONG_MAX = (1n << 63n) - 1n;

/** The expected generation signature, computed with another Blake2b implementation. */
const expectedGenSig = (parent: Uint8Array, publicKey: Uint8Array): Uint8Array =>
  blake2b(Uint8Array.from([...parent.subarray(0, 32), ...publicKey.subarray(0, 32)]), { dkLen: 32 });

describe('PoS formulas', () => {
  it('generation signature and hit', () => {
    const gs = generationSignature(p, SEVENS, PK);
    assert.equal(hex(gs), 'd4704fbc8dd01d30c9e79f631a3263500d45b66a8b94d72df7cbe9b6c673629a');
    assert.equal(hex(gs), hex(expectedGenSig(SEVENS, PK)));
    assert.equal(hitOf(gs), 3467156595313438932n);
    assert.equal(hitOf(generationSignature(p, new Uint8Array(32), PK)), 4868819986847824503n);
    // Little-endian, unsigned.
    assert.equal(hitOf(fromHex('ff00000000000000')), 255n);
    assert.equal(hitOf(fromHex('ffffffffffffffff')), (1n << 64n) - 1n);
  });

  it('delay: values computed with Python (decimal hit ratio, libm log, truncation)', () => {
    const hit = 3467156595313438932n;
    assert.equal(calculateDelay(hit, 153_722_867n, 100_000_000_000_000n, normCoefficient(1_625_000_000_000_000n)), 5030n);
    assert.equal(calculateDelay(hit, 100n, 5_000_000_000_000_000n, normCoefficient(1_625_000_000_000_000n)), 192582n);
    assert.equal(calculateDelay(hit, 153_722_867n, 1_000_000_000_000n, normCoefficient(10_000_000_000_000_000n)), 21832n);
    assert.equal(normCoefficient(1_625_000_000_000_000n), 0.12307692307692308);
    // hit 0: ln 0 = −∞ → an infinite delay saturates at Long.MaxValue as the JVM's (long) cast does.
    assert.equal(calculateDelay(0n, 153_722_867n, WEST, 1), LONG_MAX);
    // The largest hit: ln 1 = 0 → the minimum delay.
    assert.equal(calculateDelay((1n << 64n) - 1n, 153_722_867n, WEST, 1), 5000n);
  });

  it('base target: ±max(1, bt/100) outside [0.5·D, 1.5·D] of the 3-interval average (integer seconds)', () => {
    const bt = (prev: bigint, span: bigint | undefined, d = 60n, fix = true): bigint =>
      calculateBaseTarget({
        parentBaseTarget: prev,
        greatGrandParentTimestamp: span === undefined ? undefined : 1_000_000n,
        averageBlockDelaySeconds: d,
        timestamp: 1_000_000n + (span ?? 0n),
        consensusFix: fix,
      });
    assert.equal(bt(100n, undefined), 100n, 'no block three back: unchanged');
    assert.equal(bt(100n, 300_000n), 101n, 'avg 100 s > 90 s');
    assert.equal(bt(100n, 60_000n), 99n, 'avg 20 s < 30 s');
    assert.equal(bt(100n, 180_000n), 100n);
    assert.equal(bt(1000n, 300_000n), 1010n);
    assert.equal(bt(1000n, 60_000n), 990n);
    assert.equal(bt(50n, 60_000n), 49n, 'a step of at least 1');
    assert.equal(bt(100n, 272_999n), 100n, '90.999 s truncates to 90: not above');
    assert.equal(bt(100n, 273_000n), 101n, '91 s');
    assert.equal(bt(100n, 92_999n), 100n, '30.999 s truncates to 30: not below');
    assert.equal(bt(100n, 89_999n), 99n, '29.999 s truncates to 29');
    for (const d of [7n, 10n, 60n]) {
      for (const span of [10_000n, 20_000n, 40_000n, 300_000n])
        assert.equal(bt(1234n, span, d, false), bt(1234n, span, d, true), `legacy bounds equal the fixed ones for D=${d}`);
    }
  });

  it('block score ⌊2^64 / base target⌋', () => {
    assert.equal(posBlockScore(153_722_867n), 120000000219n);
    assert.equal(posBlockScore(1n), 1n << 64n);
  });
});

/** The delay a forger must wait on the tip of `c`, from an independently computed hit. */
function independentDelay(c: PosTestChain, parentHeight: number, who: { keyPair: { publicKey: Uint8Array } }, balance: bigint): bigint {
  const source = parentHeight > 100 ? parentHeight - 100 : parentHeight;
  const sourceData = c.chain.headerAt(source).consensus;
  const parentData = c.chain.headerAt(parentHeight).consensus;
  assert.equal(sourceData.type, 'pos');
  assert.equal(parentData.type, 'pos');
  if (sourceData.type !== 'pos' || parentData.type !== 'pos') throw new Error('PoS data expected');
  const hit = hitOf(expectedGenSig(sourceData.generationSignature, who.keyPair.publicKey));
  return calculateDelay(hit, parentData.baseTarget, balance, normCoefficient(INITIAL_BALANCE));
}

function posOf(block: Block): { baseTarget: bigint; generationSignature: Uint8Array } {
  if (block.consensus.type !== 'pos') throw new Error('PoS data expected');
  return block.consensus;
}

describe('a PoS chain', () => {
  it('forges key blocks that validate: generation signature, delay, base target, chain score', () => {
    const c = PosTestChain.create();
    const genesis = c.chain.lastBlock();
    assert.deepEqual(genesis.consensus, { type: 'pos', baseTarget: INITIAL_BASE_TARGET, generationSignature: new Uint8Array(32) });
    const balance = c.rules.pos.generatingBalance(forger.address, 1);
    assert.equal(balance, 1_000_000n * WEST);
    const moves: bigint[] = [];
    for (let i = 0; i < 12; i++) {
      const parentHeight = c.chain.height();
      const parent = c.chain.headerAt(parentHeight);
      // The first blocks as soon as due (~5 s apart), the rest 25 s late.
      const late = i >= 6;
      if (late) c.clock = parent.timestamp + 25_000n;
      const block = c.forge();
      assert.equal(c.chain.height(), parentHeight + 1);
      const data = posOf(block);
      assert.equal(hex(data.generationSignature), hex(expectedGenSig(posOf(parent).generationSignature, forger.keyPair.publicKey)));
      const delay = independentDelay(c, parentHeight, forger, balance);
      assert.ok(block.timestamp > parent.timestamp + delay, 'forged once its delay has passed (strictly)');
      if (!late) assert.ok(block.timestamp <= parent.timestamp + delay + 1n, 'and not later');
      // Base target by hand: the average of the last three intervals in whole seconds against [6 s, 18 s].
      const prev = posOf(parent).baseTarget;
      let expected = prev;
      if (parentHeight >= 3) {
        const avg = (block.timestamp - c.chain.timestampAt(parentHeight - 2)) / 3n / 1000n;
        const step = prev / 100n > 1n ? prev / 100n : 1n;
        if (avg > 18n) expected = prev + step;
        else if (avg < 6n) expected = prev - step;
      }
      assert.equal(data.baseTarget, expected, `base target at height ${parentHeight + 1}`);
      moves.push(data.baseTarget - prev);
    }
    assert.ok(moves.some((m) => m < 0n) && moves.some((m) => m > 0n), `the base target went down with fast blocks and up with slow ones: ${moves.join(' ')}`);
    let score = 0n;
    for (let h = 1; h <= c.chain.height(); h++) score += (1n << 64n) / posOf(c.chain.headerAt(h)).baseTarget;
    assert.equal(c.store.chainScore(), score);
    assert.equal(blockScore(c.chain.lastBlock()), posBlockScore(posOf(c.chain.lastBlock()).baseTarget));
  });

  it('NG: micro-blocks extend a PoS key block at any time; the next key block references the liquid block', () => {
    const c = PosTestChain.create();
    c.forge();
    c.microBlockAll([c.transfer(forger, outsider, 5n * WEST)]);
    c.clock += 30_000n;
    c.microBlockAll([c.transfer(forger, outsider, 6n * WEST)]);
    const liquid = c.chain.lastBlock();
    assert.equal(liquid.transactions.length, 2);
    const next = c.forge();
    assert.deepEqual(next.reference, liquid.id);
    assert.equal(c.chain.blockAt(2)?.transactions.length, 2);
    assert.equal(c.store.balance(outsider.address, null), 100_011n * WEST);
  });

  it('takes the hit from the block 100 below the parent once the parent is above 100', () => {
    const c = PosTestChain.create();
    while (c.chain.height() < 102) c.forge();
    const gs = (h: number): string => hex(posOf(c.chain.headerAt(h)).generationSignature);
    assert.equal(hex(c.rules.pos.hitSource(c.chain, 100)), gs(100), 'parent at 100: its own');
    assert.equal(hex(c.rules.pos.hitSource(c.chain, 101)), gs(1), 'parent at 101: block 1');
    assert.equal(hex(c.rules.pos.hitSource(c.chain, 102)), gs(2));
    const parent = c.chain.headerAt(102);
    const block = c.forge();
    assert.ok(block.timestamp > parent.timestamp + independentDelay(c, 102, forger, 1_000_000n * WEST));
  });

  it('a second forger with less balance waits longer and validates too', () => {
    const c = PosTestChain.create();
    c.forge();
    const parentHeight = c.chain.height();
    const parent = c.chain.headerAt(parentHeight);
    const block = c.forge(second);
    assert.ok(block.timestamp > parent.timestamp + independentDelay(c, parentHeight, second, 20_000n * WEST));
    assert.equal(c.chain.lastBlock().generatorAddress, second.b58);
  });

  describe('key-block validation failures (199, as WE words them)', () => {
    const setup = (): { c: PosTestChain; good: Block; parent: Block } => {
      const c = PosTestChain.create();
      c.forge();
      c.forge();
      c.forge();
      const parent = c.chain.headerAt(c.chain.height());
      const good = c.nextKeyBlock();
      return { c, good, parent };
    };
    const invalid = (b: Block): string =>
      `Block Block(${b.idBase58} -> ${encodeBase58(b.reference)}, version=3, signer=${b.generatorAddress}, txs=0, features=Set(), ts=${b.timestamp}) is invalid: `;

    it('a base target other than the computed one', () => {
      const { c, good } = setup();
      const data = posOf(good);
      const bad = c.sign(forger, {
        timestamp: good.timestamp,
        consensus: { type: 'pos', baseTarget: data.baseTarget + 1n, generationSignature: data.generationSignature },
      });
      expectWeError(
        () => c.chain.appendKeyBlock(bad),
        199,
        `${invalid(bad)}declared baseTarget ${data.baseTarget + 1n} does not match calculated baseTarget ${data.baseTarget}`,
        'consensusData',
      );
      c.chain.appendKeyBlock(good);
    });

    it('a wrong generation signature', () => {
      const { c, good } = setup();
      const data = posOf(good);
      const wrong = new Uint8Array(32).fill(9);
      const bad = c.sign(forger, { timestamp: good.timestamp, consensus: { type: 'pos', baseTarget: data.baseTarget, generationSignature: wrong } });
      expectWeError(
        () => c.chain.appendKeyBlock(bad),
        199,
        `${invalid(bad)}Generation signatures does not match: Expected = ${encodeBase58(data.generationSignature)}; Found = ${encodeBase58(wrong)}`,
      );
    });

    it('a timestamp before parent + delay', () => {
      const { c, parent } = setup();
      const delay = independentDelay(c, c.chain.height(), forger, 1_000_000n * WEST);
      const ts = parent.timestamp + delay - 1n;
      const consensus = c.rules.pos.consensusData(c.chain, c.chain.height(), forger.keyPair.publicKey, ts);
      const bad = c.sign(forger, { timestamp: ts, consensus });
      expectWeError(() => c.chain.appendKeyBlock(bad), 199, `${invalid(bad)}Block timestamp ${ts} less than min valid timestamp ${ts + 1n}`, 'timestamp');
      // Exactly parent + delay is valid.
      const ok = c.sign(forger, { timestamp: ts + 1n, consensus: c.rules.pos.consensusData(c.chain, c.chain.height(), forger.keyPair.publicKey, ts + 1n) });
      c.chain.appendKeyBlock(ok);
    });

    it('a block from the future', () => {
      const { c } = setup();
      const ts = c.clock + 100n;
      const bad = c.sign(forger, { timestamp: ts, consensus: c.rules.pos.consensusData(c.chain, c.chain.height(), forger.keyPair.publicKey, ts) });
      expectWeError(() => c.chain.appendKeyBlock(bad), 199, `BlockFromFuture(rejected block timestamp is '${ts}', but current timestamp is '${c.clock}')`);
    });

    it('a generator without the miner role', () => {
      const { c, good } = setup();
      const bad = c.sign(outsider, {
        timestamp: good.timestamp,
        consensus: c.rules.pos.consensusData(c.chain, c.chain.height(), outsider.keyPair.publicKey, good.timestamp),
      });
      expectWeError(() => c.chain.appendKeyBlock(bad), 199, `Block signer '${outsider.b58}' does not have miner permission`, 'generator');
    });

    it('a miner below 10 000 WEST of generating balance', () => {
      const { c, good } = setup();
      const bad = c.sign(poor, {
        timestamp: good.timestamp,
        consensus: c.rules.pos.consensusData(c.chain, c.chain.height(), poor.keyPair.publicKey, good.timestamp),
      });
      expectWeError(
        () => c.chain.appendKeyBlock(bad),
        199,
        `${invalid(bad)}generator's effective balance ${5_000n * WEST} is less that required for generation`,
      );
    });

    it('PoA consensus data on a PoS chain', () => {
      const { c, good } = setup();
      const bad = c.sign(forger, { timestamp: good.timestamp, consensus: { type: 'poa', overallSkippedRounds: 0n } });
      expectWeError(() => c.chain.appendKeyBlock(bad), 199, `${invalid(bad)}Expected PoS consensus block data, but got PoA instead`);
    });
  });

  it('the forging plan says why an account cannot forge', () => {
    const c = PosTestChain.create();
    c.forge();
    const plan = (who: { keyPair: { publicKey: Uint8Array } }, maxTipAgeMs?: number) =>
      planPosKeyBlock(c.rules.pos, {
        state: c.chain.state(),
        chain: c.chain,
        now: c.clock,
        publicKey: who.keyPair.publicKey,
        ...(maxTipAgeMs === undefined ? {} : { maxTipAgeMs }),
      });
    assert.deepEqual(plan(poor), {
      kind: 'idle',
      reason: `Generating balance '${5_000n * WEST}' of '${poor.b58}' is lower than required '${MIN_GENERATING_BALANCE}' for generation`,
    });
    assert.deepEqual(plan(outsider), { kind: 'idle', reason: `Current account '${outsider.b58}' is not miner` });
    const waiting = plan(forger);
    assert.equal(waiting.kind, 'wait');
    c.clock += 10n * 24n * 3600n * 1000n;
    assert.deepEqual(plan(forger, 24 * 3600 * 1000), {
      kind: 'idle',
      reason: `Block chain is too old (last block timestamp is '${c.chain.timestampAt(2)}' generated '${c.clock - c.chain.timestampAt(2)} milliseconds' ago)`,
    });
  });
});

describe('the miner loop under PoS (mocked timers)', () => {
  it('forges key blocks when due and puts pool transactions into micro-blocks', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const c = PosTestChain.create();
      const pool = new UtxPool({
        chain: c.chain,
        settings: { memoryLimitBytes: 1 << 24, txExpireTimeoutMs: 90 * 60 * 1000, cleanupIntervalMs: 60_000, allowTransactionsFromSmartAccounts: true },
        now: () => c.clock,
      });
      const quiet = { info() {}, warn() {}, error() {}, debug() {} };
      const miner = new Miner({
        chain: c.chain,
        pool,
        rules: c.rules,
        settings: {
          enabled: true,
          microBlockIntervalMs: 1000,
          maxTransactionsInMicroBlock: 255,
          maxBlockSizeInBytes: 1 << 20,
          minMicroBlockAgeMs: 6000,
          quorum: 1,
        },
        keyPair: forger.keyPair,
        now: () => c.clock,
        log: quiet,
      });
      const advance = (ms: number): void => {
        for (let i = 0; i < ms / 50; i++) {
          c.clock += 50n;
          mock.timers.tick(50);
        }
      };
      miner.start();
      advance(20_000);
      const h = c.chain.height();
      assert.ok(h >= 3, `key blocks forged (height ${h})`);
      await new Admission({ chain: c.chain, pool, now: () => c.clock }).admit(c.transfer(forger, outsider, 7n * WEST), { origin: 'api' });
      miner.wake();
      advance(3000);
      miner.stop();
      assert.equal(pool.size().size, 0, 'the transfer left the pool');
      assert.equal(c.store.balance(outsider.address, null), 100_007n * WEST);
      for (let height = 2; height <= c.chain.height(); height++) {
        const block = c.chain.headerAt(height);
        assert.equal(block.generatorAddress, forger.b58);
        assert.ok(block.timestamp > GENESIS_TS && block.timestamp < c.clock + 1n);
      }
      assert.ok(AVERAGE_BLOCK_DELAY_MS > 0);
    } finally {
      mock.timers.reset();
    }
  });
});
