/**
 * Several in-process PoA (or CFT) chains over one genesis, for the fork and network tests: each a
 * real Blockchain + PoaRules + LMDB Store + UtxPool, all on one shared injected clock. A
 * node holds the keys of some of the miners and forges a key block when one of them has
 * the slot (planKeyBlock, Block.sign), then fills it with micro-blocks
 * (appendOwnMicroBlock), as the miner does.
 */
import { Blockchain } from '../../src/chain/blockchain.js';
import { FEATURE, PreActivatedFeatures } from '../../src/chain/features.js';
import { ScriptVerifier } from '../../src/chain/scripts/verifier.js';
import { DEFAULT_FEES, IMPLEMENTED_FEATURES, type ChainSettings, type UtxSettings } from '../../src/chain/settings.js';
import { UtxPool } from '../../src/chain/utx.js';
import { planKeyBlock } from '../../src/consensus/poa.js';
import { blockScore, CftRules, PoaRules, poaHeaders } from '../../src/consensus/rules.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import type { KeyPair } from '../../src/crypto/suite.js';
import { Block, signGenesisBlock, type GenesisSettings } from '../../src/protocol/blocks.js';
import { Protocol } from '../../src/protocol/protocol.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { Store } from '../../src/state/store.js';
import { tempDir } from '../../devkit/tmp.js';

export const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
export const scripts = await ScriptVerifier.create(p);
export const WEST = 100_000_000n;
export const GENESIS_TS = 1_700_000_000_000n;
/** PoA round: 4 s mining + 1 s sync. */
export const ROUND_MS = 5_000n;
export { blockScore };

export interface Account {
  readonly name: string;
  readonly keyPair: KeyPair;
  readonly address: Uint8Array;
  readonly b58: string;
}

function account(name: string): Account {
  const keyPair = p.crypto.keyPairFromSeedPhrase(`weft fork test ${name}`);
  const address = p.addresses.fromPublicKey(keyPair.publicKey);
  return { name, keyPair, address: address.bytes, b58: address.toString() };
}

export const minerA = account('miner a');
export const minerB = account('miner b');
export const minerC = account('miner c');
export const alice = account('alice');
export const bob = account('bob');
const genesisSigner = account('genesis signer');

/** Signed once: Waves signatures are randomised, and every node must share one genesis. */
const GENESIS = signedGenesis('poa');
const GENESIS_CFT = signedGenesis('cft');

function signedGenesis(consensus: 'poa' | 'cft'): GenesisSettings {
  const balances: Array<[Account, bigint]> = [
    [minerA, 1_000_000n * WEST],
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
      { publicKey: minerA.keyPair.publicKey, roles: ['miner', 'permissioner'] },
      { publicKey: minerB.keyPair.publicKey, roles: ['miner'] },
      { publicKey: minerC.keyPair.publicKey, roles: ['miner'] },
    ],
    senderRoleEnabled: false,
  };
  return { ...unsigned, signature: signGenesisBlock(p, unsigned, consensus, genesisSigner.keyPair.privateKey).signature };
}

/** CFT's finalization-timeout in these chains: a vote micro-block may come until 2 s after its round. */
export const FINALIZATION_TIMEOUT_MS = 2_000n;

export function chainSettings(maxRollbackDepth = 50, consensusType: 'poa' | 'cft' = 'poa'): ChainSettings {
  const poa = { roundDurationMs: 4000, syncDurationMs: 1000, banDurationBlocks: 4, warningsForBan: 2, maxBansPercentage: 0 };
  return {
    crypto: 'waves',
    chainId: 'T',
    consensus:
      consensusType === 'cft'
        ? { type: 'cft', ...poa, maxValidators: 10, finalizationTimeoutMs: Number(FINALIZATION_TIMEOUT_MS), fullVoteSetTimeoutMs: undefined }
        : { type: 'poa', ...poa },
    genesis: consensusType === 'cft' ? GENESIS_CFT : GENESIS,
    fees: DEFAULT_FEES,
    functionality: {
      featureCheckBlocksPeriod: 2,
      blocksForFeatureActivation: 1,
      preActivatedFeatures: new Map([...IMPLEMENTED_FEATURES.keys()].map((id) => [id, 0])),
    },
    maxRollbackDepth,
  };
}

export const UTX: UtxSettings = {
  memoryLimitBytes: 1 << 26,
  txExpireTimeoutMs: 90 * 60 * 1000,
  cleanupIntervalMs: 300_000,
  allowTransactionsFromSmartAccounts: true,
};

/** One clock for every node of a test. */
export class Clock {
  now = GENESIS_TS + 10n;
  readonly read = (): bigint => this.now;
  /** Moves to `offset` ms into the next PoA round. */
  nextRound(offset = 10n): void {
    const since = this.now - GENESIS_TS;
    this.now = GENESIS_TS + (since / ROUND_MS + 1n) * ROUND_MS + offset;
  }
}

let txCounter = 0n;

export class ChainNode {
  readonly chain: Blockchain;
  readonly pool: UtxPool;
  readonly rules: PoaRules;

  private constructor(
    readonly name: string,
    readonly clock: Clock,
    readonly store: Store,
    readonly miners: readonly Account[],
    settings: ChainSettings,
  ) {
    const features = PreActivatedFeatures.fromSettings(settings.functionality);
    this.rules = settings.consensus.type === 'cft' ? CftRules.fromSettings(settings, features) : PoaRules.fromSettings(settings, features);
    this.chain = new Blockchain({
      store,
      protocol: p,
      settings,
      features,
      consensus: this.rules,
      txExpireTimeoutMs: UTX.txExpireTimeoutMs,
      now: clock.read,
      scripts,
    });
    this.pool = new UtxPool({ chain: this.chain, settings: UTX, now: clock.read });
  }

  /** `dir`: the data directory of its store (a new temporary one unless given). */
  static create(
    name: string,
    clock: Clock,
    miners: readonly Account[],
    settings: ChainSettings = chainSettings(),
    dir = tempDir(`weft-fork-${name}-`),
  ): ChainNode {
    const node = new ChainNode(name, clock, Store.open(dir, p), miners, settings);
    node.chain.ensureGenesis();
    return node;
  }

  /** Forges a key block now if one of this node's miners has the slot. */
  tryForge(): Block | undefined {
    const now = this.clock.now;
    for (const miner of this.miners) {
      const plan = planKeyBlock(this.rules.poa, { state: this.chain.state(), chain: poaHeaders(this.chain), now, self: miner.address });
      if (plan.kind !== 'forge') continue;
      const block = Block.sign(
        p,
        {
          version: 3,
          timestamp: plan.timestamp,
          reference: this.chain.lastBlock().id,
          consensus:
            this.rules instanceof CftRules
              ? { type: 'cft', overallSkippedRounds: plan.overallSkippedRounds, votes: [] }
              : { type: 'poa', overallSkippedRounds: plan.overallSkippedRounds },
          transactions: [],
          featureVotes: [],
          genesisData: null,
        },
        miner.keyPair.privateKey,
      );
      this.chain.appendKeyBlock(block);
      return block;
    }
    return undefined;
  }

  /** Moves the clock round by round until this node forges. */
  forge(): Block {
    for (let i = 0; i < 20; i++) {
      const block = this.tryForge();
      if (block !== undefined) return block;
      this.clock.nextRound();
    }
    throw new Error(`${this.name} found no slot`);
  }

  /** Moves the clock round by round until this node forges; the blocks `other` forges meanwhile are followed. */
  forgeFollowing(other: ChainNode): Block {
    for (;;) {
      this.clock.nextRound();
      const key = this.tryForge();
      if (key !== undefined) return key;
      if (other.tryForge() !== undefined) this.follow(other);
    }
  }

  /** A micro-block of `txs` 100 ms later, signed by the key block's generator; returns it. */
  micro(txs: readonly Transaction[]): ReturnType<Blockchain['appendOwnMicroBlock']> {
    this.clock.now += 100n;
    const height = this.chain.height();
    const generator = this.chain.headerAt(height).generator;
    const miner = this.miners.find((m) => encodeBase58(m.keyPair.publicKey) === encodeBase58(generator));
    if (miner === undefined) throw new Error(`${this.name} did not forge the liquid block`);
    const build = this.chain.appendOwnMicroBlock(
      txs,
      { maxTransactions: 255, maxBlockBytes: 1 << 20 },
      miner.keyPair.privateKey,
      this.chain.features.isActive(FEATURE.PARALLEL_LIQUID_BLOCK, height),
    );
    if (build.rejected.length > 0 || build.microBlock === undefined)
      throw new Error(`micro-block rejected: ${build.rejected.map((r) => r.error.message).join('; ')}`);
    return build;
  }

  /** Copies the blocks above our height from another node, whole. */
  follow(other: ChainNode): void {
    for (let h = this.chain.height() + 1; h <= other.chain.height(); h++) this.chain.appendBlock(other.chain.blockAt(h)!);
  }

  stateHash(): string {
    return this.store.stateHash();
  }

  ids(): string[] {
    const out: string[] = [];
    for (let h = 1; h <= this.chain.height(); h++) out.push(encodeBase58(this.chain.blockIdAt(h)!));
    return out;
  }
}

/** A signed transfer stamped just before the clock. */
export function transfer(clock: Clock, from: Account, to: Account, amount: bigint): Transaction {
  txCounter++;
  const body = {
    type: 4,
    version: 3,
    senderPublicKey: encodeBase58(from.keyPair.publicKey),
    recipient: to.b58,
    amount,
    fee: 1_000_000n,
    attachment: '',
    timestamp: clock.now - 1000n + txCounter,
    proofs: [],
  };
  return p.sign(p.transactionFromJson(body, { forBroadcast: false }), from.keyPair.privateKey);
}
