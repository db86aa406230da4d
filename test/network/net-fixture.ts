/**
 * Nodes for the sync and gossip tests: a forged PoA chain (test/chain/fork-fixture.ts)
 * with its chain protocol (ChainMessages: sync and gossip) on the in-process transport double.
 */
import { Admission } from '../../src/chain/admission.js';
import { peerChainOf, peerPoolOf, type PeerPool } from '../../src/chain/peer-chain.js';
import type { ChainSettings } from '../../src/chain/settings.js';
import type { UtxPool } from '../../src/chain/utx.js';
import type { NetworkDeps, SyncSettings } from '../../src/network/chain-deps.js';
import { ChainMessages } from '../../src/network/chain-messages.js';
import { equalBytes } from '../../src/crypto/encoding.js';
import { ChainNode, chainSettings, minerA, p, type Account, type Clock } from '../chain/fork-fixture.js';
import type { Endpoint, Wire } from './peer-double.js';

export interface NetNode {
  readonly node: ChainNode;
  readonly net: ChainMessages;
  readonly ep: Endpoint;
  readonly logs: string[];
}

/**
 * `extra.pool`: the pool the network admits into, made on the node's chain (the node's own
 * pool otherwise), through the chain's admission with `extra.certificatePolicy` for peers'
 * transactions; `extra.peerPool`: the network's view of it, as the test wants to watch it.
 */
export function netNode(
  wire: Wire,
  name: string,
  clock: Clock,
  miners: readonly Account[],
  settings: Partial<SyncSettings> = {},
  extra: Pick<NetworkDeps, 'certificatePolicy' | 'random' | 'microBlockLog' | 'timers' | 'forms'> & {
    readonly pool?: (node: ChainNode) => UtxPool;
    readonly peerPool?: (pool: PeerPool) => PeerPool;
    /** The chain's settings (PoA by default). */
    readonly chain?: ChainSettings;
  } = {},
): NetNode {
  const node = ChainNode.create(name, clock, miners, extra.chain ?? chainSettings());
  const logs: string[] = [];
  const log = (level: string) => (m: string) => void logs.push(`${level} ${m}`);
  const { pool, peerPool, chain: _chain, ...rest } = extra;
  const policy = extra.certificatePolicy;
  const admission = new Admission({
    chain: node.chain,
    pool: pool?.(node) ?? node.pool,
    now: clock.read,
    ...(policy === undefined
      ? {}
      : { certificates: { clientChain: () => Promise.reject(new Error('no client broadcasts on the network fixture')), peerProblem: policy } }),
  });
  const net = new ChainMessages({
    chain: peerChainOf(node.chain),
    pool: peerPool?.(peerPoolOf(admission)) ?? peerPoolOf(admission),
    protocol: p,
    now: clock.read,
    logger: { debug: log('debug'), info: log('info'), warn: log('warn') },
    settings,
    ...(miners[0] === undefined ? {} : { ownerKeys: miners[0].keyPair }),
    ...rest,
  });
  return { node, net, ep: wire.endpoint(name, net), logs };
}

/** Forges key blocks until minerA (a miner node's owner on this fixture) forged the last one. */
export function forgeOwnKeyBlock(clock: Clock, node: ChainNode): void {
  do {
    clock.nextRound();
    node.forge();
  } while (!equalBytes(node.chain.lastBlock().generator, minerA.keyPair.publicKey));
}
