/**
 * What the `/consensus/*` PoA routes compute (we-node api/http/consensus/ConsensusApiRoute,
 * Blockchain.bannedMiners / warningsAndBans). The HTTP layer parses the path parameters
 * (WE's PositiveInt / PositiveLong) and serialises these objects.
 *
 * One difference from WE: WE answers `bannedMiners` from its persisted state and only
 * filters it by the current liquid block's ban changes, so a ban created by the liquid
 * block itself shows up only after the next key block; here the liquid block's changes are
 * part of the state, so such a ban shows at once.
 */
import type { ConsensusSettings } from '../../chain/settings.js';
import { ROLES } from '../../protocol/transactions/permissions.js';
import type { ChainStateReader, PermissionReader } from '../../state/view.js';
import { isBanned } from './ban-history.js';
import type { PoaConsensus } from './consensus.js';
import { addressString, minerQueueAt, type ChainHeaders } from './queue.js';
import { genericError, requestedHeightDoesntExist } from '../../errors/catalogue.js';

/** WE's answer to the PoA-only routes on a PoS node (CustomValidationError 199); a CFT node answers them as PoA does. */
export function requirePoa(settings: ConsensusSettings): void {
  if (settings.type === 'pos') throw genericError('Expected PoA consensus block data, but got PoS instead');
}

function requireHeight(chain: ChainHeaders, height: number): bigint {
  const ts = Number.isInteger(height) && height >= 1 ? chain.timestampAt(height) : undefined;
  if (ts === undefined) throw requestedHeightDoesntExist(height, chain.height());
  return ts;
}

/** `/consensus/miners/{timestamp}`: the active miner queue at a timestamp. */
export function minersAtTimestamp(state: PermissionReader, timestamp: bigint): { miners: string[]; timestamp: bigint } {
  return { miners: minerQueueAt(state, timestamp).map(addressString), timestamp };
}

/** `/consensus/minersAtHeight/{h}`: the queue at the timestamp of the block at h (no ban filtering). */
export function minersAtHeight(state: PermissionReader, chain: ChainHeaders, height: number): { miners: string[]; height: number } {
  const ts = requireHeight(chain, height);
  return { miners: minerQueueAt(state, ts).map(addressString), height };
}

/** `/consensus/bannedMiners/{h}`: every address that ever had `miner` whose ban covers h. */
export function bannedMiners(
  poa: PoaConsensus,
  state: ChainStateReader & PermissionReader,
  chain: ChainHeaders,
  height: number,
): { bannedMiners: string[]; height: number } {
  requireHeight(chain, height);
  const version = poa.banMode(state.height()).version;
  const banned = state
    .roleHolders(ROLES.miner)
    .filter((a) => isBanned(state.minerBanHistory(a), height, poa.settings, version))
    .map(addressString);
  return { bannedMiners: banned, height };
}

export interface MinerWarningsAndBans {
  readonly address: string;
  /** Newest first, as WE lists them. */
  readonly bans: Array<{ timestamp: bigint; beginHeight: number }>;
  readonly warnings: Array<{ timestamp: bigint }>;
}

/** `/consensus/minersWarningsAndBans` (WE's internal route). */
export function minersWarningsAndBans(state: ChainStateReader & PermissionReader): { warningsAndBans: MinerWarningsAndBans[] } {
  const out = state.roleHolders(ROLES.miner).map((address) => {
    const newestFirst = [...state.minerBanHistory(address)].reverse();
    return {
      address: addressString(address),
      bans: newestFirst.flatMap((e) => (e.kind === 'ban' ? [{ timestamp: e.timestamp, beginHeight: e.beginHeight }] : [])),
      warnings: newestFirst.flatMap((e) => (e.kind === 'warning' ? [{ timestamp: e.timestamp }] : [])),
    };
  });
  return { warningsAndBans: out };
}
