/**
 * A small PoA chain for the consensus tests: a real Store on a temp dir seeded through
 * MutableState + commit, an in-memory list of block headers, and signed v3 key blocks.
 * Appending validates the block with the PoA rules and commits its warnings and bans.
 */
import type { PoaSettings } from '../../src/chain/settings.js';
import { PoaConsensus, type ChainHeaders, type FeatureActivation, type PoaPostAction } from '../../src/consensus/poa.js';
import type { KeyPair } from '../../src/crypto/suite.js';
import { Block } from '../../src/protocol/blocks/block.js';
import type { ConsensusData } from '../../src/protocol/blocks/consensus.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { ROLES } from '../../src/protocol/transactions/permissions.js';
import type { PermissionOp } from '../../src/state/model.js';
import { Store } from '../../src/state/store.js';
import { MutableState } from '../../src/state/view.js';
import { tempDir } from '../../devkit/tmp.js';

export const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });

export const G = 1_700_000_000_000n;
/** 17 s + 3 s, as WE's example config. */
export const R = 20_000n;
export const ROUND = 17_000n;

export const SETTINGS: PoaSettings = {
  type: 'poa',
  roundDurationMs: 17_000,
  syncDurationMs: 3_000,
  banDurationBlocks: 5,
  warningsForBan: 3,
  maxBansPercentage: 50,
};

export const ALL_FEATURES: FeatureActivation = () => true;

export interface Miner {
  readonly name: string;
  readonly keys: KeyPair;
  /** Address bytes. */
  readonly address: Uint8Array;
  readonly id: string;
}

export function account(name: string): Miner {
  const keys = p.crypto.keyPairFromSeedPhrase(`poa consensus test ${name}`);
  const address = p.addresses.fromPublicKey(keys.publicKey);
  return { name, keys, address: address.bytes, id: address.toString() };
}

/** Start of round `n` (round 0 holds genesis). */
export const roundStart = (n: number): bigint => G + BigInt(n) * R;

interface Header {
  readonly generator: Uint8Array;
  readonly timestamp: bigint;
  readonly overallSkippedRounds: bigint;
  readonly id: Uint8Array;
}

export class TestChain implements ChainHeaders {
  readonly headers: Header[] = [];
  height(): number {
    return this.headers.length;
  }
  generatorAt(height: number): Uint8Array | undefined {
    return this.headers[height - 1]?.generator;
  }
  timestampAt(height: number): bigint | undefined {
    return this.headers[height - 1]?.timestamp;
  }
  overallSkippedRoundsAt(height: number): bigint | undefined {
    return this.headers[height - 1]?.overallSkippedRounds;
  }
  tip(): Header {
    return this.headers[this.headers.length - 1]!;
  }
}

export const grant = (timestamp: bigint, dueTimestamp: bigint | null = null): PermissionOp => ({ opType: 'add', role: ROLES.miner, timestamp, dueTimestamp });
export const revoke = (timestamp: bigint): PermissionOp => ({ opType: 'remove', role: ROLES.miner, timestamp, dueTimestamp: null });

export interface HarnessOptions {
  /** Miners, with the timestamp of their grant; by default granted before G in list order (the first listed is first in the queue). */
  readonly miners: ReadonlyArray<Miner | { miner: Miner; granted: bigint }>;
  readonly settings?: Partial<PoaSettings>;
  readonly features?: FeatureActivation;
  /** Signer of the genesis block (default: a key that is not a miner). */
  readonly genesisGenerator?: Miner;
}

export class Harness {
  readonly chain = new TestChain();
  readonly posts: PoaPostAction[] = [];

  private constructor(
    readonly store: Store,
    readonly poa: PoaConsensus,
  ) {}

  static create(options: HarnessOptions): Harness {
    const settings: PoaSettings = { ...SETTINGS, ...options.settings };
    const poa = new PoaConsensus({ settings, genesisTimestamp: G, isFeatureActivated: options.features ?? ALL_FEATURES });
    const h = new Harness(Store.open(tempDir('weft-poa-'), p), poa);
    const s = new MutableState(h.store);
    const n = options.miners.length;
    options.miners.forEach((m, i) => {
      // Default grants in list order: the first listed miner is first in the queue.
      if ('miner' in m) s.addPermissionOp(m.miner.address, grant(m.granted));
      else s.addPermissionOp(m.address, grant(G - BigInt(n - i)));
    });
    const generator = options.genesisGenerator ?? account('genesis');
    const genesisId = new Uint8Array(64).fill(1);
    h.store.commit({ height: 1, blockBytes: new Uint8Array([1]), blockIds: [{ id: genesisId, transactionCount: 0 }], changes: s.changes() });
    h.chain.headers.push({ generator: generator.keys.publicKey, timestamp: G, overallSkippedRounds: 0n, id: genesisId });
    return h;
  }

  /** A v3 key block on the tip; overall-skipped-rounds computed from the tip unless given. */
  forge(miner: Miner, timestamp: bigint, options: { overallSkippedRounds?: bigint; version?: number; consensus?: ConsensusData } = {}): Block {
    const tip = this.chain.tip();
    const skipped = this.poa.rounds.skippedRounds(tip.timestamp, timestamp);
    const consensus = options.consensus ?? {
      type: 'poa',
      overallSkippedRounds: options.overallSkippedRounds ?? tip.overallSkippedRounds + BigInt(Math.max(0, skipped)),
    };
    return Block.sign(
      p,
      { version: options.version ?? 3, timestamp, reference: tip.id, consensus, transactions: [], featureVotes: [], genesisData: null },
      miner.keys.privateKey,
    );
  }

  /** Validates a block on the tip (clock = its timestamp unless given), applies warnings and bans, commits. */
  append(block: Block, now: bigint = block.timestamp, extra?: (s: MutableState) => void): PoaPostAction {
    const parentHeight = this.chain.height();
    const post = this.poa.validateKeyBlock(this.store, this.chain, block, parentHeight, now);
    const s = new MutableState(this.store);
    this.poa.applyWarningsAndBans(s, post);
    extra?.(s);
    this.store.commit({
      height: parentHeight + 1,
      blockBytes: block.bytes,
      blockIds: [{ id: block.id, transactionCount: 0 }],
      headerBytes: block.bytes,
      changes: s.changes(),
    });
    this.chain.headers.push({ generator: block.generator, timestamp: block.timestamp, overallSkippedRounds: post.overallSkippedRounds, id: block.id });
    this.posts.push(post);
    return post;
  }

  /** Forges and appends a block by `miner` at `offset` ms into round `n`. */
  mine(miner: Miner, n: number, offset = 1_000n): PoaPostAction {
    return this.append(this.forge(miner, roundStart(n) + offset));
  }

  /** Commits state changes as a new height without a block of ours (e.g. permission ops). */
  commitChanges(f: (s: MutableState) => void): void {
    const s = new MutableState(this.store);
    f(s);
    this.store.commit({
      height: this.store.height(),
      blockBytes: this.store.blockBytes(this.store.height()) ?? new Uint8Array([0]),
      blockIds: [],
      changes: s.changes(),
    });
  }

  /** Address of the miner expected for a block at `timestamp` on the tip. */
  expectedAt(timestamp: bigint): Uint8Array {
    return this.poa.expectedMiner(this.store, this.chain, this.chain.height(), timestamp);
  }

  history(m: Miner): ReturnType<Store['minerBanHistory']> {
    return this.store.minerBanHistory(m.address);
  }
}
