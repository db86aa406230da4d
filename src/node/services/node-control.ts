/**
 * The node itself as `/node/*`, `/utils/time` and `/anchoring/config` see it: its settings
 * (`/node/config`), health, loggers, version and stopping.
 */
import type { NodeConfigInfo, NodeControlService, SyncProgress } from '../../api/services.js';
import { anchoringConfigAnswer } from '../anchoring-wiring.js';
import { FEE_NAMES } from '../../chain/settings.js';
import type { NodeConfig } from '../config.js';
import type { NodeHealth } from '../health.js';
import type { NodeLoggers } from '../logging.js';
import { AGENT_NAME, WEFT_VERSION } from '../version.js';
import type { TipFinality } from '../../consensus/cft.js';

/** WE's tempConstantFees: Atomic (120) is listed with a minimal fee of 0. */
const ATOMIC = 120;

/** `/node/config`: WE's NodeConfigResponse facts of this node. */
export function nodeConfigInfo(config: NodeConfig): NodeConfigInfo {
  const fees = config.chain.fees;
  const minimumFee = new Map<number, bigint>();
  for (const type of [...FEE_NAMES.keys()].sort((a, b) => a - b)) minimumFee.set(type, fees.enabled ? (fees.base.get(type) ?? 0n) : 0n);
  minimumFee.set(ATOMIC, 0n);
  const additionalFee = new Map<number, bigint>();
  for (const type of [11, 12]) additionalFee.set(type, fees.enabled ? (fees.additional.get(type) ?? 0n) : 0n);
  const c = config.chain.consensus;
  return {
    version: WEFT_VERSION,
    cryptoType: config.chain.crypto === 'gost' ? 'GOST' : 'WAVES',
    chainId: config.chain.chainId,
    consensus: c.type.toUpperCase(),
    minimumFee,
    additionalFee,
    maxTransactionsInMicroBlock: config.miner.maxTransactionsInMicroBlock,
    minMicroBlockAgeMs: config.miner.minMicroBlockAgeMs,
    microBlockIntervalMs: config.miner.microBlockIntervalMs,
    // WAVES networks run PKI OFF (config load refuses TEST/ON there); a GOST network reports its PKI settings.
    pkiMode: config.pki?.mode ?? config.api.pkiMode ?? 'OFF',
    requiredOids: [...(config.pki?.requiredOids ?? [])],
    crlChecksEnabled: config.pki?.crlChecksEnabled ?? false,
    blockTiming: c.type === 'pos' ? { averageBlockDelayMs: c.averageBlockDelayMs } : { roundDurationMs: c.roundDurationMs, syncDurationMs: c.syncDurationMs },
  };
}

export interface NodeControlDeps {
  readonly config: NodeConfig;
  readonly loggers: NodeLoggers;
  readonly health: NodeHealth;
  /** The machine's clock (ms). */
  readonly systemClock: () => bigint;
  /** Stops the node after the current answers (and exits the process when run from the CLI). */
  readonly requestStop: () => void;
  /** The catch-up from a peer while one runs; undefined when idle or without a network. */
  readonly syncProgress: () => SyncProgress | undefined;
  /** CFT: the tip's finality, shown in `/node/status` (absent on PoA and PoS networks). */
  readonly finality?: () => TipFinality;
}

export function nodeControlService(deps: NodeControlDeps): NodeControlService {
  const info = nodeConfigInfo(deps.config);
  const log = deps.loggers.get('node');
  return {
    agentName: AGENT_NAME,
    config: () => info,
    status: async () => {
      const status = { ...(await deps.health.nodeStatus()), ...deps.finality?.() };
      const synchronization = deps.syncProgress();
      return synchronization === undefined ? status : { ...status, synchronization };
    },
    externalStatus: (service) => deps.health.externalStatus(service),
    loggers: () => deps.loggers.levels(),
    setLoggerLevel: (logger, level) => {
      deps.loggers.setLevel(logger, level);
      log.info({ logger, level }, 'logger level changed');
    },
    stop: () => {
      log.info({}, 'Request to stop application');
      deps.requestStop();
    },
    systemTime: deps.systemClock,
    anchoring: () => anchoringConfigAnswer(deps.config),
  };
}
