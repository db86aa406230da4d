/** `node.miner`'s key table (WE's keys, application.conf defaults and Miner's bounds). */
import { boolKey, checkedKey, durationKey, intKey, keyTable, type KeyTable } from '../config/key-table.js';
import { fail } from '../config/values.js';
import { MAX_TRANSACTIONS_PER_MICRO_BLOCK } from '../protocol/blocks.js';
import { MIN_UTX_CHECK_DELAY_MS, MINER_DEFAULTS as d, type NodeMinerSettings } from './settings.js';

export const MINER_TABLE: KeyTable<NodeMinerSettings> = keyTable<NodeMinerSettings>({
  enabled: boolKey('enable', d.enabled),
  quorum: intKey('quorum', d.quorum, { min: 0 }),
  intervalAfterLastBlockThenGenerationIsAllowedMs: durationKey(
    'interval-after-last-block-then-generation-is-allowed',
    d.intervalAfterLastBlockThenGenerationIsAllowedMs,
  ),
  noQuorumMiningDelayMs: durationKey('no-quorum-mining-delay', d.noQuorumMiningDelayMs),
  microBlockIntervalMs: durationKey('micro-block-interval', d.microBlockIntervalMs),
  minimalBlockGenerationOffsetMs: durationKey('minimal-block-generation-offset', d.minimalBlockGenerationOffsetMs),
  maxBlockSizeInBytes: intKey('max-block-size-in-bytes', d.maxBlockSizeInBytes, { min: 1 }),
  maxTransactionsInMicroBlock: intKey('max-transactions-in-micro-block', d.maxTransactionsInMicroBlock, { min: 1, max: MAX_TRANSACTIONS_PER_MICRO_BLOCK }),
  minMicroBlockAgeMs: durationKey('min-micro-block-age', d.minMicroBlockAgeMs),
  pullingBufferSize: intKey('pulling-buffer-size', d.pullingBufferSize, { min: 1 }),
  utxCheckDelayMs: checkedKey(durationKey('utx-check-delay', d.utxCheckDelayMs), (ms, path) => {
    if (ms < MIN_UTX_CHECK_DELAY_MS) fail(path, `must be ≥ ${MIN_UTX_CHECK_DELAY_MS}ms, got ${ms}ms`);
  }),
});
