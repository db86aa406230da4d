/**
 * The administrator's view inside the node (`/debug/*`): validation without the pool (the
 * chain admission's dry run), the loaders' state, the miner's next attempts, recent block
 * ids, the config, portfolios with what the pool would take, WEST distribution.
 */
import type { DebugInfo, DebugService, Portfolio, SyncProgress } from '../../api/services.js';
import type { Admission } from '../../chain/admission.js';
import type { Blockchain } from '../../chain/blockchain.js';
import { poolOutflow } from '../../chain/pool-outflow.js';
import type { UtxPool } from '../../chain/utx.js';
import { nextForgingAttempt } from '../../consensus/next-forging.js';
import { microBlockWindow } from '../../consensus/poa.js';
import { generatingBalance } from '../../consensus/pos.js';
import { PoaRules, type PosRules } from '../../consensus/rules.js';
import { bytesKey, equalBytes } from '../../crypto/encoding.js';
import type { Keystore } from '../../keystore/keystore.js';
import type { Protocol } from '../../protocol/protocol.js';
import type { Store } from '../../state/store.js';
import type { NodeConfig } from '../config.js';
import { renderNodeConfig } from '../config-render.js';
import type { LiquidBlockTracker } from './liquid-block.js';

/** How many block ids `/debug/historyInfo` lists. */
const HISTORY_BLOCK_IDS = 10;

/** The P2P loaders' figures (network/node-network.ts loaderStats); absent without a network. */
export type LoaderStats = Pick<DebugInfo, 'microBlockSynchronizerCacheSizes' | 'scoreObserverStats'>;

export interface DebugDeps {
  readonly config: NodeConfig;
  readonly protocol: Protocol;
  readonly store: Store;
  readonly chain: Blockchain;
  readonly pool: UtxPool;
  /** The chain's admission: its dry run answers `/debug/validate`. */
  readonly admission: Admission;
  readonly rules: PoaRules | PosRules;
  readonly keystore: Keystore;
  readonly ownerPublicKey: Uint8Array;
  /** Whether this node's miner runs. */
  readonly mining: () => boolean;
  readonly liquid: LiquidBlockTracker;
  /** Node time (ms). */
  readonly now: () => bigint;
  /** The catch-up from a peer while one runs. */
  readonly syncProgress: () => SyncProgress | undefined;
  /** The P2P loaders' figures; undefined when the node runs no network. */
  readonly loaderStats: () => LoaderStats | undefined;
  /** WE's createGrpcAuth token; absent when the node runs no contract engine. */
  readonly contractAuthToken?: (contractId: Uint8Array) => Promise<string>;
}

export function debugService(parts: DebugDeps): DebugService {
  const { chain, pool, store, config, rules } = parts;
  const poaRules = rules instanceof PoaRules ? rules : undefined;

  const minerState = (): string => {
    if (!parts.mining()) return 'disabled';
    const height = chain.height();
    if (poaRules === undefined || height < 2) return 'mining blocks';
    const keyBlock = chain.headerAt(height);
    return equalBytes(keyBlock.generator, parts.ownerPublicKey) && microBlockWindow(poaRules.poa, keyBlock.timestamp, parts.now()).allowed
      ? 'mining microblocks'
      : 'mining blocks';
  };

  return {
    validate: (tx) => parts.admission.validate(tx),

    info(): DebugInfo {
      // The block loader is idle unless a sync exchange with a peer runs; Weft keeps no
      // cache of served blocks, and the liquid block's micro-blocks are what peers can ask for.
      const syncing = parts.syncProgress()?.peer;
      return {
        stateHeight: chain.height(),
        extensionLoaderState: syncing === undefined ? 'State(Idle)' : `State(ExpectingBlocks(${syncing}))`,
        historyReplierCacheSizes: { blocks: 0, microBlocks: chain.liquidMicroBlocks().length },
        ...parts.loaderStats(),
        minerState: minerState(),
      };
    },

    minerInfo() {
      if (!parts.mining()) return [];
      const state = chain.state();
      const height = chain.height();
      const now = parts.now();
      const out: Array<{ address: string; miningBalance: bigint; timestamp: bigint }> = [];
      for (const text of parts.keystore.addresses()) {
        const address = parts.protocol.addresses.parseAddress(text).bytes;
        if (state.accountScript(address) !== null) continue;
        const timestamp = nextForgingAttempt(rules, { state, chain, now, address, publicKey: parts.keystore.publicKey(text) });
        if (timestamp === undefined) continue;
        out.push({ address: text, miningBalance: generatingBalance(store, address, height), timestamp });
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
      for (const { assetId, balance } of store.assetBalances(address)) assets.set(bytesKey(assetId), { assetId, balance });
      let balance = state.balance(address, null);
      let leaseOut = lease.out;
      if (considerUnspent) {
        const pending = poolOutflow(chain, pool, address);
        balance += pending.west;
        leaseOut += pending.leaseOut;
        for (const [key, { assetId, amount }] of pending.assets) assets.set(key, { assetId, balance: (assets.get(key)?.balance ?? 0n) + amount });
      }
      return { balance, lease: { in: lease.in, out: leaseOut }, assets: [...assets.values()] };
    },

    westDistribution: (height) => store.westDistribution(height),

    contractAuthToken: (contractId) => parts.contractAuthToken?.(contractId) ?? Promise.resolve(undefined),
  };
}
