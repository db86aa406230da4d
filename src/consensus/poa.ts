/**
 * PoA consensus (WE 1.14): rounds, the miner queue, key-block and micro-block validation,
 * warnings and bans, the miner's schedule and the `/consensus/*` PoA answers.
 * The pieces live in ./poa/; this module is their public face.
 */
export { PoaRounds, type RoundTimestamps } from './poa/rounds.js';
export {
  banEndHeight,
  dropWarnings,
  hasWarnings,
  isBanned,
  warnOrBan,
  V2_MODE,
  type BanHistoryMode,
  type BanHistoryVersion,
  type BanRules,
  type MinerBan,
} from './poa/ban-history.js';
export { addressString, findQueueAnchor, minerQueueAt, MinerQueue, selectMiner, type ChainHeaders, type QueueAnchor } from './poa/queue.js';
export {
  blockDescription,
  calcBansLimit,
  MAX_TIME_DRIFT_MS,
  PoaConsensus,
  type FeatureActivation,
  type PoaParams,
  type PoaPostAction,
  type RoundInfo,
} from './poa/consensus.js';
export { microBlockWindow, periodicDelayMs, planKeyBlock, type ForgingInput, type ForgingPlan, type MicroBlockWindow } from './poa/miner.js';
export { bannedMiners, minersAtHeight, minersAtTimestamp, minersWarningsAndBans, requirePoa, type MinerWarningsAndBans } from './poa/rest.js';
