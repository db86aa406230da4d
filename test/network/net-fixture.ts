/**
 * Nodes for the sync and gossip tests: a forged PoA chain (test/chain/fork-fixture.ts)
 * with its Gossip (and ChainSync) on the in-process transport double.
 */
import { Gossip } from '../../src/network/gossip.js';
import type { SyncSettings } from '../../src/network/sync.js';
import { blockScore, ChainNode, chainSettings, p, type Account, type Clock } from '../chain/fork-fixture.js';
import type { Endpoint, Wire } from './peer-double.js';

export interface NetNode {
  readonly node: ChainNode;
  readonly gossip: Gossip;
  readonly ep: Endpoint;
  readonly logs: string[];
}

export function netNode(wire: Wire, name: string, clock: Clock, miners: readonly Account[], settings: Partial<SyncSettings> = {}): NetNode {
  const node = ChainNode.create(name, clock, miners, chainSettings());
  const logs: string[] = [];
  const log = (level: string) => (m: string) => void logs.push(`${level} ${m}`);
  const gossip = new Gossip({
    chain: node.chain,
    pool: node.pool,
    protocol: p,
    now: clock.read,
    logger: { debug: log('debug'), info: log('info'), warn: log('warn') },
    settings,
    blockScore,
    ...(miners[0] === undefined ? {} : { ownerKeys: miners[0].keyPair }),
  });
  return { node, gossip, ep: wire.endpoint(name, gossip), logs };
}
