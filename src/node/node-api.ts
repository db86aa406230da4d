/**
 * What the `/node`, `/utils/time`, `/anchoring` and `/debug` routes ask of a running node
 * (api/services.ts NodeControlService and DebugService), implemented over its parts: the
 * chain, pool, store, keystore, loggers and health checks.
 */
import type { DebugInfo, DebugService, NodeConfigInfo, NodeControlService, Portfolio, SyncProgress } from '../api/services.js';
import type { Blockchain } from '../chain/blockchain.js';
import { validateFee } from '../chain/fees.js';
import { FEE_NAMES } from '../chain/settings.js';
import type { UtxPool } from '../chain/utx.js';
import { applyTransaction } from '../chain/validation.js';
import { microBlockWindow, planKeyBlock } from '../consensus/poa.js';
import { planPosKeyBlock } from '../consensus/pos.js';
import { consensusRulesFor, PoaRules, poaHeaders } from '../consensus/rules.js';
import { equalBytes } from '../crypto/encoding.js';
import { WeError } from '../protocol/errors.js';
import type { Protocol } from '../protocol/protocol.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import type { Store } from '../state/store.js';
import { k, MutableState } from '../state/view.js';
import { anchoringConfigAnswer } from './anchoring-wiring.js';
import type { NodeConfig } from './config.js';
import { renderNodeConfig } from './config-render.js';
import type { NodeHealth } from './health.js';
import type { Keystore } from './keystore.js';
import type { NodeLoggers } from './logging.js';
import { AGENT_NAME, WEFT_VERSION } from './version.js';

/** WE's tempConstantFees: Atomic (120) is listed with a minimal fee of 0. */
const ATOMIC = 120;
/** WE's GeneratingBalanceProvider.BalanceDepth: the mining balance is the smallest effective balance over this many blocks. */
export const MINING_BALANCE_DEPTH = 1000;
/** How many block ids `/debug/historyInfo` lists. */
const HISTORY_BLOCK_IDS = 10;

/**
 * The liquid block as WE's NG state sees it: which height is liquid (a key block appended
 * since the node started, not rolled back) and the total signatures of its micro-blocks,
 * newest first. A node that restarts, or rolls back, has no liquid block until the next
 * key block or micro-block, as WE's in-memory NG state.
 */
export class LiquidBlockTracker {
  private liquidHeight: number | undefined;
  private micro: Uint8Array[] = [];

  constructor(chain: Blockchain) {
    chain.on((event) => {
      if (event.kind === 'block') {
        this.liquidHeight = event.height >= 2 ? event.height : undefined;
        this.micro = [];
      } else if (event.kind === 'micro-block') {
        if (this.liquidHeight !== event.height) {
          this.liquidHeight = event.height;
          this.micro = [];
        }
        this.micro.unshift(event.block.id);
      } else {
        this.liquidHeight = undefined;
        this.micro = [];
      }
    });
  }

  /** The liquid height, if the top block is liquid at `height`. */
  liquidAt(height: number): boolean {
    return this.liquidHeight === height;
  }

  microBlockIds(height: number): readonly Uint8Array[] {
    return this.liquidAt(height) ? [...this.micro] : [];
  }
}

export interface NodeApiParts {
  readonly config: NodeConfig;
  readonly protocol: Protocol;
  readonly store: Store;
  readonly chain: Blockchain;
  readonly pool: UtxPool;
  readonly keystore: Keystore;
  readonly ownerPublicKey: Uint8Array;
  /** Whether this node's miner runs. */
  readonly mining: () => boolean;
  readonly loggers: NodeLoggers;
  readonly health: NodeHealth;
  readonly liquid: LiquidBlockTracker;
  /** Node time (ms). */
  readonly now: () => bigint;
  /** The machine's clock (ms). */
  readonly systemClock: () => bigint;
  /** Stops the node after the current answers (and exits the process when run from the CLI). */
  readonly requestStop: () => void;
  /** The catch-up from a peer while one runs; undefined when idle or without a network. */
  readonly syncProgress: () => SyncProgress | undefined;
}

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
    consensus: c.type === 'poa' ? 'POA' : 'POS',
    minimumFee,
    additionalFee,
    maxTransactionsInMicroBlock: config.miner.maxTransactionsInMicroBlock,
    minMicroBlockAgeMs: config.miner.minMicroBlockAgeMs,
    microBlockIntervalMs: config.miner.microBlockIntervalMs,
    pkiMode: config.api.pkiMode ?? 'OFF',
    requiredOids: [],
    crlChecksEnabled: false,
    blockTiming: c.type === 'poa' ? { roundDurationMs: c.roundDurationMs, syncDurationMs: c.syncDurationMs } : { averageBlockDelayMs: c.averageBlockDelayMs },
  };
}

export function nodeControlService(parts: NodeApiParts): NodeControlService {
  const info = nodeConfigInfo(parts.config);
  const log = parts.loggers.get('node');
  return {
    agentName: AGENT_NAME,
    config: () => info,
    status: async () => {
      const status = await parts.health.nodeStatus();
      const synchronization = parts.syncProgress();
      return synchronization === undefined ? status : { ...status, synchronization };
    },
    externalStatus: (service) => parts.health.externalStatus(service),
    loggers: () => parts.loggers.levels(),
    setLoggerLevel: (logger, level) => {
      parts.loggers.setLevel(logger, level);
      log.info({ logger, level }, 'logger level changed');
    },
    stop: () => {
      log.info({}, 'Request to stop application');
      parts.requestStop();
    },
    systemTime: parts.systemClock,
    anchoring: () => anchoringConfigAnswer(parts.config),
  };
}

export function debugService(parts: NodeApiParts): DebugService {
  const { chain, pool, store, config } = parts;
  const rules = consensusRulesFor(config.chain, chain.features, store);
  const poaRules = rules instanceof PoaRules ? rules : undefined;

  const minerState = (): string => {
    if (!parts.mining()) return 'disabled';
    const height = chain.height();
    if (poaRules === undefined || height < 2) return 'mining blocks';
    const keyBlock = chain.headerAt(height);
    return equalBytes(keyBlock.generator, parts.ownerPublicKey) && microBlockWindow(poaRules.poa, keyBlock.timestamp, parts.now()).allowed ? 'mining microblocks' : 'mining blocks';
  };

  /** What the pool's transactions would take from an address: WE's pessimistic UTX portfolio. */
  const pendingOutflow = (address: Uint8Array): { west: bigint; leaseOut: bigint; assets: Map<string, { assetId: Uint8Array; amount: bigint }> } => {
    const base = chain.state();
    const out = { west: 0n, leaseOut: 0n, assets: new Map<string, { assetId: Uint8Array; amount: bigint }>() };
    const ctx = chain.poolTxContext();
    for (const tx of pool.all()) {
      const state = new MutableState(base);
      try {
        applyTransaction(state, tx, ctx, { verifySignature: false });
      } catch (e) {
        if (e instanceof WeError) continue; // no longer valid: the pool drops it at its next pass
        throw e;
      }
      const changes = state.changes();
      for (const b of changes.balances.values()) {
        if (!equalBytes(b.holder, address)) continue;
        const delta = b.value - base.balance(address, b.assetId);
        if (delta >= 0n) continue;
        if (b.assetId === null) out.west += delta;
        else {
          const key = k(b.assetId);
          const prior = out.assets.get(key);
          out.assets.set(key, { assetId: b.assetId, amount: (prior?.amount ?? 0n) + delta });
        }
      }
      for (const l of changes.leaseBalances.values()) {
        if (!equalBytes(l.address, address)) continue;
        const delta = l.value.out - base.leaseBalance(address).out;
        if (delta > 0n) out.leaseOut += delta;
      }
    }
    return out;
  };

  return {
    validate(tx: Transaction): void {
      validateFee(tx, chain.state(), { settings: chain.settings, features: chain.features, height: chain.height() });
      applyTransaction(new MutableState(chain.state()), tx, chain.poolTxContext(), { verifySignature: true });
    },

    info(): DebugInfo {
      // The block loader is idle unless a sync exchange with a peer runs; Weft keeps no
      // cache of served blocks, and the liquid block's micro-blocks are what peers can ask for.
      const syncing = parts.syncProgress()?.peer;
      return {
        stateHeight: chain.height(),
        extensionLoaderState: syncing === undefined ? 'State(Idle)' : `State(ExpectingBlocks(${syncing}))`,
        historyReplierCacheSizes: { blocks: 0, microBlocks: chain.liquidMicroBlocks().length },
        microBlockSynchronizerCacheSizes: { microBlockOwners: 0, inventories: 0, successfullyReceived: 0 },
        scoreObserverStats: {},
        minerState: minerState(),
      };
    },

    minerInfo() {
      if (!parts.mining()) return [];
      const state = chain.state();
      const height = chain.height();
      const now = parts.now();
      const out: Array<{ address: string; miningBalance: bigint; timestamp: bigint }> = [];
      /** When the miner next tries to forge for an account: PoA its next slot (every account has one, as in WE); PoS when its delay runs out (none when it cannot forge). */
      const nextAttempt = (address: Uint8Array, text: string): bigint | undefined => {
        if (poaRules !== undefined) {
          const plan = planKeyBlock(poaRules.poa, { state, chain: poaHeaders(chain), now, self: address });
          return plan.kind === 'forge' ? plan.timestamp : plan.kind === 'wait' ? plan.at : plan.retryAt;
        }
        if (!('pos' in rules)) return undefined;
        const plan = planPosKeyBlock(rules.pos, { state, chain, now, publicKey: parts.keystore.publicKey(text) });
        return plan.kind === 'forge' ? now : plan.kind === 'wait' ? plan.at : undefined;
      };
      for (const text of parts.keystore.addresses()) {
        const address = parts.protocol.addresses.parseAddress(text).bytes;
        if (state.accountScript(address) !== null) continue;
        const timestamp = nextAttempt(address, text);
        if (timestamp === undefined) continue;
        const miningBalance = store.minEffectiveBalance(address, Math.min(height, Math.max(1, height - MINING_BALANCE_DEPTH + 1)), height);
        out.push({ address: text, miningBalance, timestamp });
      }
      return out;
    },

    historyInfo() {
      const height = chain.height();
      const top = parts.liquid.liquidAt(height) ? height - 1 : height;
      const lastBlockIds: Uint8Array[] = [];
      for (let h = top; h >= 1 && lastBlockIds.length < HISTORY_BLOCK_IDS; h--) {
        const block = chain.blockAt(h);
        if (block !== undefined) lastBlockIds.push(block.id);
      }
      return { lastBlockIds, microBlockIds: parts.liquid.microBlockIds(height) };
    },

    configInfo: () => renderNodeConfig(config),

    portfolio(address: Uint8Array, considerUnspent: boolean): Portfolio {
      const state = chain.state();
      const lease = state.leaseBalance(address);
      const assets = new Map<string, { assetId: Uint8Array; balance: bigint }>();
      for (const { assetId, balance } of store.assetBalances(address)) assets.set(k(assetId), { assetId, balance });
      let balance = state.balance(address, null);
      let leaseOut = lease.out;
      if (considerUnspent) {
        const pending = pendingOutflow(address);
        balance += pending.west;
        leaseOut += pending.leaseOut;
        for (const [key, { assetId, amount }] of pending.assets) assets.set(key, { assetId, balance: (assets.get(key)?.balance ?? 0n) + amount });
      }
      return { balance, lease: { in: lease.in, out: leaseOut }, assets: [...assets.values()] };
    },

    westDistribution: (height) => store.westDistribution(height),

    // No contract engine (WE's docker-engine) runs in this node.
    contractAuthToken: () => undefined,
  };
}
