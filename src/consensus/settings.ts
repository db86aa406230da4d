/**
 * `node.miner`: what the miner runs on beyond what chain/settings.ts names (WE's keys and
 * application.conf defaults; settings-keys.ts reads and renders them). Durations in ms.
 */
import type { MinerSettings } from '../chain/settings.js';

export interface NodeMinerSettings extends MinerSettings {
  readonly intervalAfterLastBlockThenGenerationIsAllowedMs: number;
  readonly noQuorumMiningDelayMs: number;
  readonly minimalBlockGenerationOffsetMs: number;
  readonly pullingBufferSize: number;
  readonly utxCheckDelayMs: number;
}

const SECOND = 1000;

/** WE's application.conf values. */
export const MINER_DEFAULTS: NodeMinerSettings = {
  enabled: true,
  quorum: 1,
  intervalAfterLastBlockThenGenerationIsAllowedMs: 24 * 3600 * SECOND,
  noQuorumMiningDelayMs: 5 * SECOND,
  microBlockIntervalMs: 5 * SECOND,
  minimalBlockGenerationOffsetMs: 200,
  maxBlockSizeInBytes: 1_048_576,
  maxTransactionsInMicroBlock: 255,
  minMicroBlockAgeMs: 6 * SECOND,
  pullingBufferSize: 100,
  utxCheckDelayMs: 1000,
};

/** WE's Miner.MinUtxCheckDelay. */
export const MIN_UTX_CHECK_DELAY_MS = 100;
