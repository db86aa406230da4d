/**
 * PoS (FairPoS) consensus (WE 1.14): generating balance, generation signature, hit,
 * delay, base target, key-block validation and the miner's schedule. The pieces live in
 * ./pos/; this module is their public face.
 */
export {
  calculateBaseTarget,
  calculateDelay,
  GENERATING_BALANCE_DEPTH,
  GENESIS_GENERATION_SIGNATURE,
  generatingBalance,
  generationSignature,
  hitOf,
  HIT_SOURCE_DEPTH,
  MIN_GENERATING_BALANCE,
  normCoefficient,
  PosConsensus,
  posData,
  type BaseTargetInput,
  type GeneratingBalances,
  type PosParams,
} from './pos/consensus.js';
export { planPosKeyBlock, type PosForgingInput, type PosForgingPlan } from './pos/miner.js';
export { posBlockScore } from './score.js';
