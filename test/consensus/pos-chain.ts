/**
 * A PoS chain for tests: the real Blockchain + PosRules + Store + ChainFeatures, with an
 * injected clock. Key blocks are forged as the PoS miner forges them (planPosKeyBlock for
 * the time and consensus data, Block.sign, appendKeyBlock); micro-blocks through
 * appendOwnMicroBlock.
 */
import assert from 'node:assert/strict';
import { Blockchain } from '../../src/chain/blockchain.js';
import { ChainFeatures, FEATURE } from '../../src/chain/features.js';
import { ScriptVerifier } from '../../src/chain/scripts/verifier.js';
import { DEFAULT_FEES, IMPLEMENTED_FEATURES, type ChainSettings, type FunctionalitySettings } from '../../src/chain/settings.js';
import { planPosKeyBlock } from '../../src/consensus/pos.js';
import { PosRules } from '../../src/consensus/rules.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import type { KeyPair } from '../../src/crypto/suite.js';
import { Block, signGenesisBlock, type ConsensusData, type GenesisSettings } from '../../src/protocol/blocks.js';
import { Protocol } from '../../src/protocol/protocol.js';
import type { RoleName } from '../../src/protocol/transactions/permissions.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { Store } from '../../src/state/store.js';
import { tempDir } from '../../devkit/tmp.js';

export const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const scripts = await ScriptVerifier.create(p);
export const WEST = 100_000_000n;
export const GENESIS_TS = 1_700_000_000_000n;
/** WE's node-example initial base target. */
export const INITIAL_BASE_TARGET = 153_722_867n;
/** 12 s: bounds 6 s and 18 s, so the ~5 s delays of the big forger lower the base target. */
export const AVERAGE_BLOCK_DELAY_MS = 12_000;

export interface Account {
  readonly keyPair: KeyPair;
  readonly address: Uint8Array;
  readonly b58: string;
}

export function account(seed: string): Account {
  const keyPair = p.crypto.keyPairFromSeedPhrase(seed);
  const address = p.addresses.fromPublicKey(keyPair.publicKey);
  return { keyPair, address: address.bytes, b58: address.toString() };
}

/** Holds most WEST, miner. */
export const forger = account('weft pos test forger');
/** 20 000 WEST, miner. */
export const second = account('weft pos test second');
/** 5 000 WEST: a miner below the 10 000 WEST generating minimum. */
export const poor = account('weft pos test poor');
/** 100 000 WEST, no role. */
export const outsider = account('weft pos test outsider');
const genesisSigner = account('weft pos test genesis signer');

const BALANCES: ReadonlyArray<[Account, bigint]> = [
  [forger, 1_000_000n * WEST],
  [second, 20_000n * WEST],
  [poor, 5_000n * WEST],
  [outsider, 100_000n * WEST],
];
export const INITIAL_BALANCE = BALANCES.reduce((s, [, a]) => s + a, 0n);

/** Every implemented feature pre-activated at 0, period 4 and threshold 3 unless overridden. */
export function functionality(o: Partial<FunctionalitySettings> = {}): FunctionalitySettings {
  return {
    featureCheckBlocksPeriod: 4,
    blocksForFeatureActivation: 3,
    preActivatedFeatures: new Map([...IMPLEMENTED_FEATURES.keys()].map((id) => [id, 0])),
    ...o,
  };
}

export function posChainSettings(f: FunctionalitySettings = functionality()): ChainSettings {
  const roles = (...r: RoleName[]): RoleName[] => r;
  const unsigned: GenesisSettings = {
    version: 1,
    blockTimestamp: GENESIS_TS,
    initialBalance: INITIAL_BALANCE,
    initialBaseTarget: INITIAL_BASE_TARGET,
    genesisPublicKey: genesisSigner.keyPair.publicKey,
    signature: null,
    transactions: BALANCES.map(([a, amount]) => ({ recipient: p.addresses.fromPublicKey(a.keyPair.publicKey), amount })),
    networkParticipants: [
      { publicKey: forger.keyPair.publicKey, roles: roles('miner', 'permissioner') },
      { publicKey: second.keyPair.publicKey, roles: roles('miner') },
      { publicKey: poor.keyPair.publicKey, roles: roles('miner') },
    ],
    senderRoleEnabled: false,
  };
  const genesis = { ...unsigned, signature: signGenesisBlock(p, unsigned, 'pos', genesisSigner.keyPair.privateKey).signature };
  return {
    crypto: 'waves',
    chainId: 'T',
    consensus: { type: 'pos', averageBlockDelayMs: AVERAGE_BLOCK_DELAY_MS, initialBaseTarget: INITIAL_BASE_TARGET },
    genesis,
    fees: DEFAULT_FEES,
    functionality: f,
    maxRollbackDepth: 200,
  };
}

export class PosTestChain {
  clock = GENESIS_TS;
  readonly chain: Blockchain;
  readonly rules: PosRules;
  readonly features: ChainFeatures;
  private tsCounter = 0n;

  private constructor(
    readonly settings: ChainSettings,
    readonly store: Store,
  ) {
    this.features = new ChainFeatures(settings.functionality, store);
    this.rules = PosRules.fromSettings(settings, this.features, store);
    this.chain = new Blockchain({
      store,
      protocol: p,
      settings,
      features: this.features,
      consensus: this.rules,
      txExpireTimeoutMs: 90 * 60 * 1000,
      now: () => this.clock,
      scripts,
    });
  }

  static create(f: FunctionalitySettings = functionality()): PosTestChain {
    const c = new PosTestChain(posChainSettings(f), Store.open(tempDir('weft-pos-'), p));
    c.chain.ensureGenesis();
    return c;
  }

  /**
   * The key block `who` forges next, as the miner does: the clock moves to when its delay
   * has passed (never backwards); `votes` are its feature votes. Not appended.
   */
  nextKeyBlock(who: Account = forger, votes: readonly number[] = []): Block {
    for (let guard = 0; guard < 3; guard++) {
      const plan = planPosKeyBlock(this.rules.pos, { state: this.chain.state(), chain: this.chain, now: this.clock, publicKey: who.keyPair.publicKey });
      if (plan.kind === 'idle') throw new Error(plan.reason);
      if (plan.kind === 'wait') {
        this.clock = plan.at;
        continue;
      }
      return this.sign(who, { timestamp: plan.timestamp, consensus: plan.consensus, votes });
    }
    throw new Error('the forger never became due');
  }

  /** Forges and appends the next key block of `who`. */
  forge(who: Account = forger, votes: readonly number[] = []): Block {
    const block = this.nextKeyBlock(who, votes);
    this.chain.appendKeyBlock(block);
    return block;
  }

  /** A key block on the tip with exactly these fields. */
  sign(who: Account, o: { timestamp: bigint; consensus: ConsensusData; votes?: readonly number[] }): Block {
    return Block.sign(
      p,
      {
        version: 3,
        timestamp: o.timestamp,
        reference: this.chain.lastBlock().id,
        consensus: o.consensus,
        transactions: [],
        featureVotes: [...(o.votes ?? [])],
        genesisData: null,
      },
      who.keyPair.privateKey,
    );
  }

  transfer(from: Account, to: Account, amount: bigint, fee = 1_000_000n): Transaction {
    this.tsCounter++;
    const body = {
      type: 4,
      version: 3,
      senderPublicKey: encodeBase58(from.keyPair.publicKey),
      recipient: to.b58,
      amount,
      fee,
      attachment: '',
      timestamp: this.clock - 1000n + this.tsCounter,
      proofs: [],
    };
    return p.sign(p.transactionFromJson(body, { forBroadcast: false }), from.keyPair.privateKey);
  }

  /** A micro-block of this forger's on the tip, 300 ms later; returns what was included and rejected. */
  microBlock(txs: Transaction[], who: Account = forger): { included: readonly Transaction[]; rejected: ReadonlyArray<{ tx: Transaction; error: Error }> } {
    this.clock += 300n;
    const height = this.chain.height();
    const build = this.chain.appendOwnMicroBlock(
      txs,
      { maxTransactions: 255, maxBlockBytes: 1 << 20 },
      who.keyPair.privateKey,
      this.chain.features.isActive(FEATURE.PARALLEL_LIQUID_BLOCK, height),
    );
    return { included: build.included, rejected: build.rejected };
  }

  /** A micro-block that must take every transaction. */
  microBlockAll(txs: Transaction[]): void {
    const r = this.microBlock(txs);
    assert.deepEqual(
      r.rejected.map((x) => x.error.message),
      [],
    );
  }
}
