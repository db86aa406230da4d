/**
 * PoA consensus rules as WE 1.14 runs them (we-node consensus/PoALikeConsensus,
 * PoAConsensus, WarnFaultyMiners): key-block and micro-block validation, the expected
 * miner of a round, and the warnings and bans applied after each block.
 *
 * Everything is a pure function of its inputs: the state (a StateView of the chain up to
 * the parent), the chain's headers, the block and the clock reading passed in.
 *
 * Feature switches (heights as WE evaluates them for a block at height H = parent + 1):
 *   - 119 PoaOptimisationFix: at H, caps the skipped rounds checked for faulty miners
 *     when more rounds than miners were skipped; at H − 1, makes one block's punishments
 *     build on each other (a miner missing two rounds of one gap sees its first warning)
 *     and selects v1's modern ordering.
 *   - 130 MinerBanHistoryOptimisationFix: at H − 1, ban history v2 (see ban-history.ts).
 */
import { bytesKey, encodeBase58 } from '../../crypto/encoding.js';
import { FEATURE } from '../../chain/features.js';
import type { PoaLikeSettings } from '../../chain/settings.js';
import type { Block } from '../../protocol/blocks/block.js';
import { NG_BLOCK_VERSION, LEGACY_GENESIS_BLOCK_VERSION, MODERN_GENESIS_BLOCK_VERSION } from '../../protocol/blocks/block.js';
import { TxMicroBlock, type MicroBlock } from '../../protocol/blocks/micro-block.js';
import type { MinerBanEntry } from '../../state/model.js';
import { type MutableState, type StateView } from '../../state/view.js';
import { dropWarnings, hasWarnings, isBanned, warnOrBan, type BanHistoryMode, type BanRules } from './ban-history.js';
import { addressString, banHistoryReader, findQueueAnchor, MinerQueue, selectMiner, type ChainHeaders, type QueueAnchor } from './queue.js';
import { PoaRounds, type RoundTimestamps } from './rounds.js';
import { blockFromFuture, genericError, microBlockOutOfBounds, WeError } from '../../errors/catalogue.js';

/** Whether a feature is active at a height (the chain's feature activation). */
export type FeatureActivation = (featureId: number, height: number) => boolean;

/** WE's Consensus.MaxTimeDrift: a block may be at most this far ahead of the local clock. */
export const MAX_TIME_DRIFT_MS = 100n;

export interface PoaParams {
  /** PoA's or CFT's: CFT runs PoA's rounds, queue and bans. */
  readonly settings: PoaLikeSettings;
  /** Timestamp of the genesis block (WE takes it from the genesis settings). */
  readonly genesisTimestamp: bigint;
  readonly isFeatureActivated: FeatureActivation;
}

/** Who is expected to forge a round, and how many rounds were skipped to reach it. */
export interface RoundInfo {
  readonly expectedMiner: Uint8Array;
  readonly skippedRounds: number;
  /** Active miners at the block timestamp, in queue order. */
  readonly queue: MinerQueue;
}

/**
 * What a validated key block leaves to do once it is appended (WE's WarnFaultyMiners):
 * cancel the generator's warnings, warn or ban the miners of the skipped rounds.
 */
export interface PoaPostAction {
  /** Height of the new block (parent height + 1). */
  readonly height: number;
  readonly timestamp: bigint;
  /** Address bytes of the block's generator. */
  readonly generator: Uint8Array;
  /** Active miners at the block timestamp, in queue order. */
  readonly miners: readonly Uint8Array[];
  /** Expected miners of the skipped rounds, in round order (may repeat). */
  readonly faultyMiners: readonly Uint8Array[];
  readonly skippedRounds: number;
  /** The block's `overall-skipped-rounds`: the parent's plus skippedRounds. */
  readonly overallSkippedRounds: bigint;
}

/** A block as WE's Block.toString prints it (used in validation messages). */
export function blockDescription(block: Block): string {
  return (
    `Block(${block.idBase58} -> ${encodeBase58(block.reference)}, version=${block.version}, signer=${block.generatorAddress}, ` +
    `txs=${block.transactionCount}, features=Set(${block.featureVotes.join(', ')}), ts=${block.timestamp})`
  );
}

export class PoaConsensus {
  readonly settings: PoaLikeSettings;
  readonly rounds: PoaRounds;
  private readonly features: FeatureActivation;

  constructor(params: PoaParams) {
    const s = params.settings;
    if (!Number.isInteger(s.maxBansPercentage) || s.maxBansPercentage < 0 || s.maxBansPercentage > 100) {
      throw genericError(`max-bans-percentage must be within 0…100, got ${s.maxBansPercentage}`, 'max-bans-percentage');
    }
    if (!Number.isInteger(s.banDurationBlocks) || s.banDurationBlocks < 0) {
      throw genericError(`ban-duration-blocks must not be negative, got ${s.banDurationBlocks}`, 'ban-duration-blocks');
    }
    if (!Number.isInteger(s.warningsForBan) || s.warningsForBan < 0) {
      throw genericError(`warnings-for-ban must not be negative, got ${s.warningsForBan}`, 'warnings-for-ban');
    }
    this.settings = s;
    this.rounds = new PoaRounds(params.genesisTimestamp, s);
    this.features = params.isFeatureActivated;
  }

  get banRules(): BanRules {
    return this.settings;
  }

  /** How ban histories are read and written when the state is at `stateHeight`. */
  banMode(stateHeight: number): BanHistoryMode {
    return {
      version: this.features(FEATURE.MINER_BAN_HISTORY_OPTIMISATION, stateHeight) ? 2 : 1,
      modernOrdering: this.features(FEATURE.POA_OPTIMISATION, stateHeight),
    };
  }

  /** Whether a miner with this history is banned at `height`. */
  isBanned(history: readonly MinerBanEntry[], height: number, stateHeight: number = height): boolean {
    return isBanned(history, height, this.settings, this.banMode(stateHeight).version);
  }

  // --- miner selection ---------------------------------------------------------

  /**
   * The miner expected to forge a block at `timestamp` on a parent at `parentHeight`,
   * `skippedRounds` rounds after the parent's round (computed from the parent's timestamp
   * when not given). `state` is the state after the parent.
   */
  roundInfo(state: StateView, chain: ChainHeaders, parentHeight: number, timestamp: bigint, skippedRounds?: number): RoundInfo {
    const skip = skippedRounds ?? this.rounds.skippedRounds(this.parentTimestamp(chain, parentHeight), timestamp);
    const queue = MinerQueue.at(state, timestamp);
    const anchor = findQueueAnchor(state, chain, queue, parentHeight);
    const banned = this.bannedAt(state, parentHeight);
    return { expectedMiner: selectMiner(queue, anchor, skip, banned), skippedRounds: skip, queue };
  }

  /** Address bytes of the miner expected at `timestamp` on a parent at `parentHeight`. */
  expectedMiner(state: StateView, chain: ChainHeaders, parentHeight: number, timestamp: bigint, skippedRounds?: number): Uint8Array {
    return this.roundInfo(state, chain, parentHeight, timestamp, skippedRounds).expectedMiner;
  }

  /** Ban check against the state after the parent, at the parent height. */
  private bannedAt(state: StateView, parentHeight: number): (address: Uint8Array) => boolean {
    const history = banHistoryReader(state);
    const version = this.banMode(parentHeight).version;
    return (address) => isBanned(history(address), parentHeight, this.settings, version);
  }

  private parentTimestamp(chain: ChainHeaders, parentHeight: number): bigint {
    const ts = chain.timestampAt(parentHeight);
    if (ts === undefined) throw genericError(`Couldn't retrieve block at height ${parentHeight} from blockchain`);
    return ts;
  }

  /**
   * The expected miners of the skipped rounds (WE's findSkippedMiners): none after
   * genesis or with max-bans-percentage 0; with feature 119 at the new height and more
   * skipped rounds than miners, only the first min(s, n·warningsForBan − ⌊n·(1 − pct/100)⌋).
   * Without 119 the list is cut after n rounds: it repeats with period n, and without
   * 119 a repeated miner changes nothing (each punishment starts from the stored history).
   */
  private faultyMiners(queue: MinerQueue, anchor: QueueAnchor, banned: (a: Uint8Array) => boolean, parentHeight: number, skipped: number): Uint8Array[] {
    const { maxBansPercentage, warningsForBan } = this.settings;
    if (parentHeight === 1 || maxBansPercentage === 0) return [];
    const n = queue.size;
    const fix = this.features(FEATURE.POA_OPTIMISATION, parentHeight + 1);
    let rounds = skipped;
    if (skipped > n && fix) {
      // Double arithmetic and truncation, as WE's (n * (1 - pct / 100.0)).toInt.
      const punishable = n * warningsForBan - Math.trunc(n * (1 - maxBansPercentage / 100.0));
      rounds = Math.min(skipped, punishable);
    }
    if (!fix) rounds = Math.min(rounds, n);
    const out: Uint8Array[] = [];
    for (let i = 0; i < rounds; i++) out.push(selectMiner(queue, anchor, i, banned));
    return out;
  }

  /**
   * The post action of a block on a parent at `parentHeight` (WE's calculatePostAction):
   * checks the block's generator is the expected miner. No timing checks — for blocks
   * this node forged or re-appends; peers' blocks go through validateKeyBlock.
   */
  postAction(state: StateView, chain: ChainHeaders, block: Block, parentHeight: number): PoaPostAction {
    try {
      return this.computePostAction(state, chain, block, parentHeight);
    } catch (e) {
      throw wrapInvalid(block, e);
    }
  }

  private computePostAction(state: StateView, chain: ChainHeaders, block: Block, parentHeight: number): PoaPostAction {
    const parentTs = this.parentTimestamp(chain, parentHeight);
    const timestamp = block.timestamp;
    const queue = MinerQueue.at(state, timestamp);
    const skipped = this.rounds.skippedRounds(parentTs, timestamp);
    const banned = this.bannedAt(state, parentHeight);
    // WE resolves the skipped miners first (only when there are any), then the block's own.
    let faulty: Uint8Array[] = [];
    let anchor: QueueAnchor | undefined;
    if (parentHeight !== 1 && this.settings.maxBansPercentage !== 0 && skipped > 0) {
      anchor = findQueueAnchor(state, chain, queue, parentHeight);
      faulty = this.faultyMiners(queue, anchor, banned, parentHeight, skipped);
    }
    anchor ??= findQueueAnchor(state, chain, queue, parentHeight);
    const expected = selectMiner(queue, anchor, skipped, banned);
    const generator = state.protocol.addresses.fromPublicKey(block.generator).bytes;
    const height = parentHeight + 1;
    if (bytesKey(generator) !== bytesKey(expected)) {
      throw genericError(`Block signer ${addressString(generator)} isn't a valid miner for height ${height}; Expected ${addressString(expected)}`, 'generator');
    }
    const parentOverall = chain.overallSkippedRoundsAt(parentHeight);
    if (parentOverall === undefined) throw genericError(`Couldn't retrieve block at height ${parentHeight} from blockchain`);
    return {
      height,
      timestamp,
      generator,
      miners: queue.miners,
      faultyMiners: faulty,
      skippedRounds: skipped,
      overallSkippedRounds: parentOverall + BigInt(skipped),
    };
  }

  // --- validation ------------------------------------------------------------------

  /**
   * Validates a key block on a parent at `parentHeight` against the PoA rules, with `now`
   * the node's clock; returns what to apply once it is appended. Every failure is a
   * WeError (199). `state` must be the state after the parent.
   *
   * WE's checks, in WE's order and with its messages: version 3; timestamp < now + 100 ms;
   * a different round from the parent's; after the parent's round end; within
   * [roundStart, syncStart) of its round; generator = the expected miner. Beyond WE, the
   * block's `overall-skipped-rounds` must be the parent's plus the skipped rounds (WE
   * trusts the miner here; its own miners always write that value).
   */
  validateKeyBlock(state: StateView, chain: ChainHeaders, block: Block, parentHeight: number, now: bigint): PoaPostAction {
    if (parentHeight === 0) {
      if (block.version !== LEGACY_GENESIS_BLOCK_VERSION && block.version !== MODERN_GENESIS_BLOCK_VERSION) throw wrongVersion(block);
    } else if (block.version !== NG_BLOCK_VERSION) {
      throw wrongVersion(block);
    }
    const ts = block.timestamp;
    if (ts - now >= MAX_TIME_DRIFT_MS) throw blockFromFuture(ts, now);
    try {
      const parentTs = chain.timestampAt(parentHeight);
      if (parentTs === undefined) throw genericError(`History does not contain parent of '${blockDescription(block)}'`, 'reference');
      const parentRound = this.rounds.timestamps(parentTs);
      const round = this.rounds.timestamps(ts);
      if (parentRound.roundStart === round.roundStart) throw genericError('Block is in the same round as its referenced block', 'timestamp');
      const timing = timingProblem(ts, parentRound, round);
      if (timing !== undefined) throw genericError(`Block's ${block.idBase58} timestamp is ${timing}`, 'timestamp');
      const action = this.computePostAction(state, chain, block, parentHeight);
      const data = block.consensus;
      // WE's PoALikeConsensus reads the skipped rounds of either PoA or CFT data, as the chain's consensus type has it.
      const expected = this.settings.type === 'cft' ? 'cft' : 'poa';
      if (data.type !== expected) {
        throw genericError(`Expected ${consensusName(expected)} consensus block data, but got ${consensusName(data.type)} instead`, 'consensusData');
      }
      if (data.overallSkippedRounds !== action.overallSkippedRounds) {
        throw genericError(
          `Block's overall-skipped-rounds is ${data.overallSkippedRounds}, expected ${action.overallSkippedRounds} ` +
            `(parent's ${action.overallSkippedRounds - BigInt(action.skippedRounds)} + ${action.skippedRounds} skipped)`,
          'consensusData',
        );
      }
      return action;
    } catch (e) {
      throw wrapInvalid(block, e);
    }
  }

  /**
   * A micro-block on a key block with timestamp `keyBlockTimestamp`: a tx micro-block must
   * be strictly inside (roundStart, syncStart) of the key block's round; vote micro-blocks
   * (CFT) are not bounded.
   */
  validateMicroBlock(keyBlockTimestamp: bigint, micro: MicroBlock): void {
    if (micro instanceof TxMicroBlock) this.checkMicroBlockTimestamp(keyBlockTimestamp, micro.timestamp);
  }

  /** WE's checkTxMicroblockTimestampBounds. */
  checkMicroBlockTimestamp(keyBlockTimestamp: bigint, microTimestamp: bigint): void {
    const { roundStart, syncStart } = this.rounds.timestamps(keyBlockTimestamp);
    if (!(microTimestamp > roundStart)) throw microBlockOutOfBounds(microTimestamp, roundStart, 'start');
    if (!(microTimestamp < syncStart)) throw microBlockOutOfBounds(microTimestamp, syncStart, 'end');
  }

  // --- warnings and bans -----------------------------------------------------------

  /**
   * Applies a block's post action to the state (WE's WarnFaultyMiners.apply). `state` is
   * the state the block was appended on (the parent's state, plus the block's own
   * changes, which never touch ban histories). Writes through putMinerBanHistory, so a
   * rollback of the height undoes it.
   *
   * 1. The generator's warnings are cancelled (v2: the trailing run; v1: all).
   * 2. bansLimit = ⌊active miners · max-bans-percentage / 100⌋; the faulty miners are
   *    taken in order while fewer than bansLimit active miners are banned at H: each gets
   *    a Warning, or a Ban from H when it reaches warnings-for-ban.
   */
  applyWarningsAndBans(state: MutableState, action: PoaPostAction): void {
    const stateHeight = action.height - 1;
    const mode = this.banMode(stateHeight);
    const withHistoryFix = this.features(FEATURE.POA_OPTIMISATION, stateHeight);
    const H = action.height;
    const stored = banHistoryReader(state);
    const diff = new Map<string, { address: Uint8Array; entries: MinerBanEntry[] }>();

    const own = stored(action.generator);
    if (hasWarnings(own, mode.version)) {
      diff.set(bytesKey(action.generator), { address: action.generator, entries: dropWarnings(own, mode.version) });
    }

    const active = action.miners.length;
    const bansLimit = calcBansLimit(active, this.settings.maxBansPercentage);
    let banned = action.miners.filter((a) => isBanned(stored(a), H, this.settings, mode.version)).length;
    for (const faulty of action.faultyMiners) {
      if (!(banned < bansLimit)) break;
      const key = bytesKey(faulty);
      const before = withHistoryFix ? (diff.get(key)?.entries ?? stored(faulty)) : stored(faulty);
      const after = warnOrBan(before, H, action.timestamp, this.settings, mode);
      diff.set(key, { address: faulty, entries: after });
      if (isBanned(after, H, this.settings, mode.version)) banned++;
    }
    for (const { address, entries } of diff.values()) state.putMinerBanHistory(address, entries);
  }
}

const consensusName = (type: 'poa' | 'pos' | 'cft'): string => (type === 'poa' ? 'PoA' : type === 'pos' ? 'PoS' : 'CFT');

/** WE's calcBansLimit. */
export function calcBansLimit(activeMiners: number, maxBansPercentage: number): number {
  return maxBansPercentage === 0 ? 0 : Math.trunc((activeMiners * maxBansPercentage) / 100);
}

function wrongVersion(block: Block): WeError {
  return invalidBlock(block, genericError(`Expected block version ${NG_BLOCK_VERSION} for any block, except Genesis`, 'version'));
}

/** The first of WE's timestamp checks a key block fails, as WE words it. */
function timingProblem(ts: bigint, parent: RoundTimestamps, own: RoundTimestamps): string | undefined {
  if (!(ts > parent.roundEnd)) return `not after parent's round end (${ts} <= ${parent.roundEnd})`;
  if (!(ts >= own.roundStart)) return `before current round start (${ts} < ${own.roundStart})`;
  // WE prints the round start here.
  if (!(ts < own.roundEnd)) return `after current round end (${ts} >= ${own.roundStart})`;
  if (!(ts < own.syncStart)) return `after sync start (${ts} >= ${own.syncStart})`;
  return undefined;
}

/** WE wraps every GenericError of block validation as "Block <block> is invalid: <reason>". */
function wrapInvalid(block: Block, e: unknown): unknown {
  return e instanceof WeError && e.kind === 'GenericError' ? invalidBlock(block, e) : e;
}

function invalidBlock(block: Block, e: WeError): WeError {
  return genericError(`Block ${blockDescription(block)} is invalid: ${e.message}`, e.field);
}
