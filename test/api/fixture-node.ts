/**
 * The `/node` and `/debug` services of the small API fixture (fixture.ts), over its parts:
 * real logger levels (NodeLoggers on a silent pino), the real health checks over the
 * fixture's store and data directory, the fixture's blocks and state. The routes of these
 * groups are tested in full on a real node (node.test.ts, debug.test.ts over seeded-node.ts);
 * this only keeps the fixture a complete ApiServices.
 */
import pino from 'pino';
import type { DebugService, NodeControlService } from '../../src/api/services.js';
import { DEFAULT_FEES, FEE_NAMES } from '../../src/chain/settings.js';
import type { Block } from '../../src/protocol/blocks.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import type { Store } from '../../src/state/store.js';
import type { StateView } from '../../src/state/view.js';
import { NodeHealth } from '../../src/node/health.js';
import { NodeLoggers } from '../../src/node/logging.js';
import { AGENT_NAME, WEFT_VERSION } from '../../src/node/version.js';
import { genericError } from '../../src/errors/catalogue.js';

export interface FixtureNodeParts {
  readonly blocks: readonly Block[];
  readonly state: StateView;
  readonly store: Store;
  readonly dataDirectory: string;
  readonly now: () => bigint;
  readonly pool: () => readonly Transaction[];
}

export interface FixtureNodeServices {
  readonly node: NodeControlService;
  readonly debug: DebugService;
  /** How many times `/node/stop` was asked for. */
  readonly stops: () => number;
}

export function fixtureNodeServices(parts: FixtureNodeParts): FixtureNodeServices {
  const loggers = new NodeLoggers(pino({ level: 'silent' }), 'INFO');
  for (const name of ['api', 'chain', 'miner', 'node', 'pool']) loggers.get(name);
  const health = new NodeHealth({
    tip: () => ({ height: parts.blocks.length, timestamp: parts.blocks[parts.blocks.length - 1]!.timestamp }),
    readStore: () => void parts.store.height(),
    dataDirectory: parts.dataDirectory,
    blockIntervalMs: 5000,
    maxBlockSizeInBytes: 1 << 20,
    clock: parts.now,
    log: loggers.get('health'),
  });
  let stops = 0;
  const minimumFee = new Map<number, bigint>([...FEE_NAMES.keys()].map((t) => [t, DEFAULT_FEES.base.get(t) ?? 0n]));
  minimumFee.set(120, 0n);
  const node: NodeControlService = {
    agentName: AGENT_NAME,
    config: () => ({
      version: WEFT_VERSION,
      cryptoType: 'WAVES',
      chainId: 'T',
      consensus: 'POA',
      minimumFee,
      additionalFee: DEFAULT_FEES.additional,
      maxTransactionsInMicroBlock: 255,
      minMicroBlockAgeMs: 6000,
      microBlockIntervalMs: 5000,
      pkiMode: 'OFF',
      requiredOids: [],
      crlChecksEnabled: false,
      blockTiming: { roundDurationMs: 4000, syncDurationMs: 1000 },
    }),
    status: () => health.nodeStatus(),
    externalStatus: (service) => health.externalStatus(service),
    loggers: () => loggers.levels(),
    setLoggerLevel: (name, level) => loggers.setLevel(name, level),
    stop: () => {
      stops++;
    },
    systemTime: parts.now,
    anchoring: () => ({ enabled: false }),
  };
  const debug: DebugService = {
    validate: (tx) => {
      if (!tx.hasValidSenderSignature()) throw genericError(`Script doesn't exist and proof doesn't validate as signature for '${tx.idBase58}'`);
    },
    info: () => ({
      stateHeight: parts.blocks.length,
      extensionLoaderState: 'State(Idle)',
      historyReplierCacheSizes: { blocks: 0, microBlocks: 0 },
      minerState: 'disabled',
    }),
    minerInfo: () => [],
    historyInfo: () => ({
      lastBlockIds: parts.blocks
        .slice(0, -1)
        .map((b) => b.id)
        .reverse()
        .slice(0, 10),
      microBlockIds: [],
    }),
    configInfo: () => ({ node: {} }),
    portfolio: (address) => {
      const lease = parts.state.leaseBalance(address);
      return { balance: parts.state.balance(address, null), lease: { in: lease.in, out: lease.out }, assets: [...parts.store.assetBalances(address)] };
    },
    westDistribution: (height) => parts.store.westDistribution(height),
    contractAuthToken: () => Promise.resolve(undefined),
  };
  return { node, debug, stops: () => stops };
}
