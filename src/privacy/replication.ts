/**
 * What the three parts of replication share (inventories.ts, replier.ts,
 * synchronizer.ts): the node's parts they run on, the bytes ↔ Base58 forms of an item's
 * name, and "the policy's peers" — connected, non-watcher peers whose node owner is one of
 * the policy's recipients. Only those ever hear of or receive an item.
 */
import { encodeBase58, equalBytes } from '../crypto/encoding.js';
import { decodeBase58 } from '../crypto/encoding.js';
import type { KeyPair } from '../crypto/suite.js';
import type { Protocol } from '../protocol/protocol.js';
import type { StateView } from '../state/view.js';
import type { PolicyItemKey } from './item.js';
import type { PolicyItemId } from './messages.js';
import type { PrivacyPeer, PrivacyPeers } from './peers.js';
import type { PrivacyLog } from './service.js';
import type { PrivacySettings } from './settings.js';
import type { PrivacyState } from './state.js';
import type { PolicyStorage } from './storage/storage.js';

export interface ReplicationParts {
  readonly protocol: Protocol;
  readonly settings: PrivacySettings;
  readonly storage: PolicyStorage;
  readonly state: PrivacyState;
  readonly chain: {
    /** Current state, the liquid block included. */
    state(): StateView;
    isFeatureActive(feature: number): boolean;
  };
  /** The node owner's keys (inventories are signed with them). */
  readonly owner: KeyPair;
  readonly peers: PrivacyPeers;
  /** Node time, ms. */
  now(): bigint;
  readonly log: PrivacyLog;
  /** Told of every item replicated whole (the node's metrics); none by default. */
  readonly observer?: ReplicationObserver;
}

/**
 * What replication tells of the items it moves, each once it is moved whole: an item
 * fetched from a peer and stored here, or sent to a peer (a small item's answer, a large
 * item's stream to its end), with the bytes of its data.
 */
export interface ReplicationObserver {
  received(bytes: number): void;
  served(bytes: number): void;
}

/** `source` as it is read, adding the bytes of its chunks to `counted.bytes`. */
export async function* countingBytes(source: AsyncIterable<Uint8Array>, counted: { bytes: number }): AsyncGenerator<Uint8Array> {
  for await (const chunk of source) {
    counted.bytes += chunk.length;
    yield chunk;
  }
}

export const keyOfId = (id: PolicyItemId): PolicyItemKey => ({ policyId: encodeBase58(id.policyId), hash: encodeBase58(id.dataHash) });
export const idOfKey = (key: PolicyItemKey): PolicyItemId => ({ policyId: decodeBase58(key.policyId), dataHash: decodeBase58(key.hash) });
export const itemText = (key: PolicyItemKey): string => `${key.policyId}/${key.hash}`;

/** The policy's recipients now (none for an unknown policy). */
export function recipientsOf(parts: Pick<ReplicationParts, 'chain'>, policyId: Uint8Array): readonly Uint8Array[] {
  return parts.chain.state().policy(policyId)?.recipients ?? [];
}

export const isAmong = (address: Uint8Array, list: readonly Uint8Array[]): boolean => list.some((a) => equalBytes(a, address));

/** Connected, non-watcher peers whose node owner is among `recipients`. */
export function policyPeers(peers: PrivacyPeers, recipients: readonly Uint8Array[]): PrivacyPeer[] {
  return peers.connected().filter((p) => !p.watcher && isAmong(p.ownerAddress, recipients));
}
