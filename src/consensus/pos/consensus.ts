/**
 * PoS (FairPoS) consensus as WE 1.14 runs it (we-node consensus/PoSConsensus,
 * GeneratingBalanceProvider; the design comes from Waves' Fair PoS).
 *
 * For a block at height H = h + 1 on a parent at h, by generator G (public key pk):
 *   - generating balance of G = least effective balance (regular + lease in − lease out)
 *     over heights [max(1, h − 999), h]; at least 10 000 WEST to forge;
 *   - generation signature = fastHash(parent's generation signature ‖ pk[0‥32]);
 *   - hit = first 8 bytes, little-endian unsigned, of fastHash(S ‖ pk[0‥32]) with S the
 *     generation signature of the block at h − 100 when h > 100, else of the parent;
 *   - delay (ms) = ⌊5000 + 70000 · ln(1 − 5e17 · ln(hit / (2^64 − 1)) / bt / (balance · k))⌋,
 *     bt = the parent's base target, k = 0.2e15 / initial balance units (double arithmetic);
 *     the block is valid from parent timestamp + delay on;
 *   - base target = the parent's, moved by max(1, bt / 100) up when the average of the last
 *     three block intervals (ts − ts(h − 2)) / 3 / 1000 (integer seconds) is above 1.5·D, down
 *     when below 0.5·D (D = average-block-delay in seconds); unchanged without a block at h − 2;
 *   - block score = ⌊2^64 / base target⌋.
 *
 * Every function takes the chain's headers and the state it needs; nothing is cached.
 */
import type { ChainHeaders } from '../../chain/blockchain.js';
import { FEATURE } from '../../chain/features.js';
import type { PosSettings } from '../../chain/settings.js';
import { encodeBase58, equalBytes } from '../../crypto/encoding.js';
import type { Block } from '../../protocol/blocks/block.js';
import { NG_BLOCK_VERSION } from '../../protocol/blocks/block.js';
import { GENERATION_SIGNATURE_LENGTH, type ConsensusData, type PosConsensusData } from '../../protocol/blocks/consensus.js';
import type { Protocol } from '../../protocol/protocol.js';
import { ROLES } from '../../protocol/transactions/permissions.js';
import { addressHasRole } from '../../state/permissions.js';
import type { StateView } from '../../state/view.js';
import { blockDescription, MAX_TIME_DRIFT_MS, type FeatureActivation } from '../poa/consensus.js';
import { decimalQuotientToDouble } from '../score.js';
import { blockFromFuture, blockSignerNotMiner, genericError, WeError } from '../../errors/catalogue.js';

/** GeneratingBalanceProvider.MinimalEffectiveBalance: 10 000 WEST. */
export const MIN_GENERATING_BALANCE = 10_000n * 100_000_000n;
/** GeneratingBalanceProvider.BalanceDepth. */
export const GENERATING_BALANCE_DEPTH = 1000;
/** The hit is taken from the block this many heights below the parent (once the chain is that long). */
export const HIT_SOURCE_DEPTH = 100;
const HIT_SIZE = 8;
/** BigInt(1, 8 × 0xFF). */
const MAX_HIT = (1n << 64n) - 1n;
const TMIN = 5000;
const C1 = 70000;
const C2 = 5e17;
const LONG_MAX = (1n << 63n) - 1n;
const LONG_MIN = -(1n << 63n);
/** 2^63 as a double (Long.MaxValue rounds to it). */
const TWO_POW_63 = 2 ** 63;

/** Where a generating balance comes from: the store's effective-balance history. */
export interface GeneratingBalances {
  /** The least effective WEST balance in force at any height of [from, to]. */
  minEffectiveBalance(address: Uint8Array, from: number, to: number): bigint;
}

// ---------------------------------------------------------------------------
// The formulas

/** GeneratingBalanceProvider.balance: the least effective balance over [max(1, height − 999), height]. */
export function generatingBalance(balances: GeneratingBalances, address: Uint8Array, height: number): bigint {
  const to = Math.max(1, height);
  return balances.minEffectiveBalance(address, Math.max(1, to - GENERATING_BALANCE_DEPTH + 1), to);
}

/** PoSConsensus.generatorSignature: fastHash(signature[0‥32] ‖ publicKey[0‥32]). */
export function generationSignature(p: Protocol, parentGenerationSignature: Uint8Array, publicKey: Uint8Array): Uint8Array {
  const n = p.crypto.digestLength;
  const s = new Uint8Array(2 * n);
  s.set(parentGenerationSignature.subarray(0, n), 0);
  s.set(publicKey.subarray(0, n), n);
  return p.crypto.fastHash(s);
}

/** PoSConsensus.hit: the first 8 bytes of a generation signature as an unsigned little-endian integer. */
export function hitOf(signature: Uint8Array): bigint {
  let v = 0n;
  for (let i = HIT_SIZE - 1; i >= 0; i--) v = (v << 8n) | BigInt(signature[i] ?? 0);
  return v;
}

/** Java's (long) of a double: NaN → 0, saturating at the int64 bounds, else truncated. */
function doubleToLong(d: number): bigint {
  if (Number.isNaN(d)) return 0n;
  if (d >= TWO_POW_63) return LONG_MAX;
  if (d <= -TWO_POW_63) return LONG_MIN;
  return BigInt(Math.trunc(d));
}

/** k of the delay formula: 0.2 · 10^15 / initial balance units. */
export function normCoefficient(initialBalance: bigint): number {
  return (0.2 * 1e15) / Number(initialBalance);
}

/** PoSConsensus.calculateDelay (ms), with WE's double arithmetic. */
export function calculateDelay(hit: bigint, baseTarget: bigint, balance: bigint, k: number): bigint {
  const h = decimalQuotientToDouble(hit, MAX_HIT);
  const a = TMIN + C1 * Math.log(1 - (C2 * Math.log(h)) / Number(baseTarget) / (Number(balance) * k));
  return doubleToLong(a);
}

export interface BaseTargetInput {
  /** The parent's base target. */
  readonly parentBaseTarget: bigint;
  /** Timestamp of the block two below the parent (three below the new block), if there is one. */
  readonly greatGrandParentTimestamp: bigint | undefined;
  /** `average-block-delay` in whole seconds. */
  readonly averageBlockDelaySeconds: bigint;
  /** The new block's timestamp. */
  readonly timestamp: bigint;
  /** Feature 100 (ConsensusFix) active at the parent height: bounds 0.5·D and 1.5·D; before it Waves' 30·D/60 and 90·D/60. */
  readonly consensusFix: boolean;
}

/** PoSConsensus.calculateBaseTarget (int64 arithmetic as the JVM's). */
export function calculateBaseTarget(i: BaseTargetInput): bigint {
  if (i.greatGrandParentTimestamp === undefined) return i.parentBaseTarget;
  const d = Number(i.averageBlockDelaySeconds);
  const [min, max] = i.consensusFix ? [0.5 * d, 1.5 * d] : [Number(30n * i.averageBlockDelaySeconds) / 60, Number(90n * i.averageBlockDelaySeconds) / 60];
  const avg = Number(BigInt.asIntN(64, i.timestamp - i.greatGrandParentTimestamp) / 3n / 1000n);
  const bt = i.parentBaseTarget;
  const step = bt / 100n > 1n ? bt / 100n : 1n;
  if (avg > max) return BigInt.asIntN(64, bt + step);
  if (avg < min) return BigInt.asIntN(64, bt - step);
  return bt;
}

// ---------------------------------------------------------------------------
// The rules over a chain

export interface PosParams {
  readonly settings: PosSettings;
  /** The genesis `initial-balance` (units): scales the delay formula. */
  readonly initialBalance: bigint;
  readonly isFeatureActivated: FeatureActivation;
  readonly balances: GeneratingBalances;
}

/** The PoS data of a block's consensus, or WE's GenericError naming what it holds instead. */
export function posData(c: ConsensusData, field = 'consensusData'): PosConsensusData {
  if (c.type === 'pos') return c;
  throw genericError(`Expected PoS consensus block data, but got ${c.type === 'poa' ? 'PoA' : 'CFT'} instead`, field);
}

export class PosConsensus {
  readonly settings: PosSettings;
  private readonly k: number;
  private readonly features: FeatureActivation;
  private readonly balances: GeneratingBalances;

  constructor(params: PosParams) {
    if (!(params.settings.averageBlockDelayMs > 0))
      throw genericError(`average-block-delay must be positive, got ${params.settings.averageBlockDelayMs} ms`, 'average-block-delay');
    if (params.initialBalance <= 0n) throw genericError(`initial-balance must be positive for PoS, got ${params.initialBalance}`, 'initial-balance');
    this.settings = params.settings;
    this.k = normCoefficient(params.initialBalance);
    this.features = params.isFeatureActivated;
    this.balances = params.balances;
  }

  get averageBlockDelaySeconds(): bigint {
    return BigInt(Math.trunc(this.settings.averageBlockDelayMs / 1000));
  }

  /** GeneratingBalanceProvider.balance at `height`: least effective balance over [max(1, height − 999), height]. */
  generatingBalance(address: Uint8Array, height: number): bigint {
    return generatingBalance(this.balances, address, height);
  }

  /** The generation signature a forger's hit comes from, for a block on a parent at `parentHeight`. */
  hitSource(chain: ChainHeaders, parentHeight: number): Uint8Array {
    const source = parentHeight > HIT_SOURCE_DEPTH ? parentHeight - HIT_SOURCE_DEPTH : parentHeight;
    return posData(chain.headerAt(source).consensus).generationSignature;
  }

  /** The smallest delay after the parent (ms) at which `publicKey` may forge on a parent at `parentHeight` (getValidBlockDelay). */
  validBlockDelay(chain: ChainHeaders, parentHeight: number, publicKey: Uint8Array, parentBaseTarget: bigint, balance: bigint): bigint {
    const p = chain.headerAt(parentHeight).protocol;
    const hit = hitOf(generationSignature(p, this.hitSource(chain, parentHeight), publicKey));
    return calculateDelay(hit, parentBaseTarget, balance, this.k);
  }

  /** The base target a block stamped `timestamp` on a parent at `parentHeight` must declare. */
  baseTarget(chain: ChainHeaders, parentHeight: number, timestamp: bigint): bigint {
    const parent = posData(chain.headerAt(parentHeight).consensus);
    return calculateBaseTarget({
      parentBaseTarget: parent.baseTarget,
      greatGrandParentTimestamp: parentHeight - 2 >= 1 ? chain.timestampAt(parentHeight - 2) : undefined,
      averageBlockDelaySeconds: this.averageBlockDelaySeconds,
      timestamp,
      consensusFix: this.features(FEATURE.CONSENSUS_FIX, parentHeight),
    });
  }

  /** The consensus data of a block `publicKey` forges at `timestamp` on the parent at `parentHeight` (PoSConsensus.consensusData). */
  consensusData(chain: ChainHeaders, parentHeight: number, publicKey: Uint8Array, timestamp: bigint): PosConsensusData {
    const parent = chain.headerAt(parentHeight);
    return {
      type: 'pos',
      baseTarget: this.baseTarget(chain, parentHeight, timestamp),
      generationSignature: generationSignature(parent.protocol, posData(parent.consensus).generationSignature, publicKey),
    };
  }

  /**
   * Validates a key block on the chain's tip with `now` the node's clock. `state` is the
   * state after the parent. Throws WeErrors (199) as WE words them, in WE's order:
   * the generator holds `miner` and is not banned at the block timestamp (BlockAppender);
   * generating balance ≥ 10 000 WEST; version 3; not from the future; the declared base
   * target; the generation signature; the delay since the parent.
   */
  validateKeyBlock(state: StateView, chain: ChainHeaders, block: Block, now: bigint): void {
    const parentHeight = chain.height();
    const address = state.protocol.addresses.fromPublicKey(block.generator);
    if (!addressHasRole(state, address.bytes, ROLES.miner, block.timestamp) || addressHasRole(state, address.bytes, ROLES.banned, block.timestamp)) {
      throw blockSignerNotMiner(address.toString());
    }
    try {
      const balance = this.generatingBalance(address.bytes, parentHeight);
      if (balance < MIN_GENERATING_BALANCE) throw genericError(`generator's effective balance ${balance} is less that required for generation`, 'generator');
      if (block.version !== NG_BLOCK_VERSION) throw genericError(`Expected block version ${NG_BLOCK_VERSION} for any block, except Genesis`, 'version');
      if (block.timestamp - now >= MAX_TIME_DRIFT_MS) throw blockFromFuture(block.timestamp, now);
      const parent = chain.headerAt(parentHeight);
      const declared = posData(block.consensus);
      const parentData = posData(parent.consensus);
      const expectedBaseTarget = this.baseTarget(chain, parentHeight, block.timestamp);
      if (declared.baseTarget !== expectedBaseTarget) {
        throw genericError(`declared baseTarget ${declared.baseTarget} does not match calculated baseTarget ${expectedBaseTarget}`, 'consensusData');
      }
      const expectedSignature = generationSignature(block.protocol, parentData.generationSignature, block.generator);
      if (!equalBytes(expectedSignature, declared.generationSignature)) {
        throw genericError(
          `Generation signatures does not match: Expected = ${encodeBase58(expectedSignature)}; Found = ${encodeBase58(declared.generationSignature)}`,
          'consensusData',
        );
      }
      const delay = this.validBlockDelay(chain, parentHeight, block.generator, parentData.baseTarget, balance);
      // JVM long addition: an overflowing delay wraps, as in WE.
      const minValidTimestamp = BigInt.asIntN(64, delay + parent.timestamp);
      if (!(minValidTimestamp <= block.timestamp)) {
        throw genericError(`Block timestamp ${block.timestamp} less than min valid timestamp ${minValidTimestamp}`, 'timestamp');
      }
    } catch (e) {
      if (e instanceof WeError && e.kind === 'GenericError') throw genericError(`Block ${blockDescription(block)} is invalid: ${e.message}`, e.field);
      throw e;
    }
  }
}

/** The generation signature of genesis (32 zero bytes): what the first forger hashes. */
export const GENESIS_GENERATION_SIGNATURE = new Uint8Array(GENERATION_SIGNATURE_LENGTH);
