/**
 * Confidential data as the replication engine (src/replication) moves it: the node's parts
 * privacy replication runs on, and the scheme — an item is named by its policy id and data
 * hash (Base58); its group is the policy's recipients (inventories are taken from its
 * recipients and owners; only registered participants are served); the wire is WE's
 * messages 30, 31, 39, 40 and 44 (messages.ts) and, for large items once feature 180 is
 * active, the item stream (large-items.ts); the store is the node's policy storage, which
 * checks an item's SHA-256 as it saves it, with the item's descriptor in the privacy state.
 */
import { encodeBase58 } from '../crypto/encoding.js';
import { decodeBase58 } from '../crypto/encoding.js';
import type { KeyPair } from '../crypto/suite.js';
import { WeError } from '../errors/catalogue.js';
import { FEATURE } from '../protocol/features.js';
import type { Protocol } from '../protocol/protocol.js';
import { isAmong } from '../replication/inventories.js';
import type { ReplicationObserver, ReplicationScheme, StreamedItems } from '../replication/scheme.js';
import type { StateView } from '../state/view.js';
import type { PolicyItemKey, PolicyItemMeta, PrivacyDataType } from './item.js';
import {
  decodeInventory,
  decodeItemRequest,
  decodePrivateDataResponse,
  decodeStrictPayload,
  encodeInventory,
  encodeItemRequest,
  encodePrivateDataResponse,
  encodeStrictPayload,
  inventoryBodyBytes,
  MAX_PRIVATE_DATA_RESPONSE,
  PrivacyMessageCode,
  privateDataResponseLength,
  signInventory,
  type PolicyItemId,
} from './messages.js';
import type { PrivacyPeer, PrivacyPeers } from './peers.js';
import type { PrivacyLog } from './service.js';
import type { PrivacySettings } from './settings.js';
import { itemKind, type PrivacyState } from './state.js';
import type { IncomingData, PolicyStorage } from './storage/storage.js';

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

/**
 * Stores an item a holder sent under `meta` (which must name `key`), the storage checking
 * its hash; its data bytes, or undefined when it was stored meanwhile (another holder, an
 * upload: what matters is that it is here).
 */
export async function saveFetched(
  parts: Pick<ReplicationParts, 'storage'>,
  key: PolicyItemKey,
  meta: PolicyItemMeta,
  type: PrivacyDataType,
  data: IncomingData,
): Promise<number | undefined> {
  if (meta.policyId !== key.policyId || meta.hash !== key.hash) throw new Error(`the peer sent item ${meta.policyId}/${meta.hash} for ${itemText(key)}`);
  const counted = { bytes: data instanceof Uint8Array ? data.length : 0 };
  try {
    await parts.storage.save(meta, type, data instanceof Uint8Array ? data : countingBytes(data, counted));
  } catch (e) {
    if (!(e instanceof WeError && e.code === 608)) throw e;
    return undefined;
  }
  return counted.bytes;
}

/** The policy and its members for the engine. */
function policyOf(
  parts: ReplicationParts,
  key: PolicyItemKey,
): { readonly recipients: readonly Uint8Array[]; readonly owners: readonly Uint8Array[] } | undefined {
  return parts.chain.state().policy(decodeBase58(key.policyId));
}

/** Confidential data's scheme for the engine; `streams` carries large items. */
export function privacyScheme(
  parts: ReplicationParts,
  streams: StreamedItems<PolicyItemKey, PrivacyDataType, PrivacyPeer>,
): ReplicationScheme<PolicyItemKey, PrivacyDataType, undefined, PrivacyPeer> {
  const { protocol: p } = parts;
  return {
    words: { family: 'privacy', strictItem: 'small privacy item', group: "the policy's recipients", answer: 'PrivateDataResponse' },
    text: itemText,
    members: (key) => policyOf(parts, key)?.recipients ?? [],
    mayHold: (address, key) => {
      const policy = policyOf(parts, key);
      return policy !== undefined && (isAmong(address, policy.recipients) || isAmong(address, policy.owners));
    },
    registered: (address) => parts.chain.state().participant(address) !== undefined,
    requests: {
      data: PrivacyMessageCode.PrivateDataRequest,
      inventory: PrivacyMessageCode.PrivacyInventoryRequest,
      encode: (key) => encodeItemRequest(idOfKey(key)),
      decode: (code, payload) => keyOfId(decodeItemRequest(code as 30 | 40, payload)),
    },
    inventories: {
      codes: [PrivacyMessageCode.PrivacyInventoryV1, PrivacyMessageCode.PrivacyInventoryV2],
      // V2 (44) with the item's type once feature 180 is active; before, V1 (39), and large items cannot be announced.
      sign: (key, type, signer) => {
        const v2 = parts.chain.isFeatureActive(FEATURE.PRIVACY_LARGE_OBJECTS);
        if (!v2 && type === 'large') return 'a large item cannot be announced before feature 180 (PrivacyLargeObjectSupport) is active';
        const inv = signInventory(p, signer, idOfKey(key), type, v2 ? 2 : 1);
        return {
          code: v2 ? PrivacyMessageCode.PrivacyInventoryV2 : PrivacyMessageCode.PrivacyInventoryV1,
          payload: encodeInventory(inv),
          signedBytes: inventoryBodyBytes(p, inv),
        };
      },
      decode: (code, payload) => {
        const inv = decodeInventory(p, code as 39 | 44, payload);
        return {
          key: keyOfId(inv),
          kind: inv.dataType,
          senderPublicKey: inv.senderPublicKey,
          signedBytes: inventoryBodyBytes(p, inv),
          signature: inv.signature,
        };
      },
    },
    answers: {
      code: PrivacyMessageCode.PrivateDataResponse,
      maxLength: MAX_PRIVATE_DATA_RESPONSE,
      noData: (key) => encodePrivateDataResponse({ ...idOfKey(key), kind: 'no-data' }),
      length: (_, contentLength, sealing) => privateDataResponseLength(contentLength, sealing),
      encode: (key, _, content) =>
        encodePrivateDataResponse(
          content instanceof Uint8Array ? { ...idOfKey(key), kind: 'data', payload: content } : { ...idOfKey(key), kind: 'encrypted', ...content },
        ),
      decode: (payload, wrappedKeyLength) => {
        const r = decodePrivateDataResponse(payload, wrappedKeyLength);
        const key = keyOfId(r);
        if (r.kind === 'no-data') return { key, found: false };
        return { key, found: true, head: undefined, content: r.kind === 'data' ? r.payload : { wrappedKey: r.wrappedKey, encrypted: r.encrypted } };
      },
    },
    store: {
      exists: (key) => parts.storage.exists(key),
      kindOf: async (key) => (await itemKind(parts.state, parts.storage, key)) ?? 'default',
      // WE's strict payload: the data with its metadata.
      readStrict: async (key) => {
        const meta = await parts.storage.meta(key);
        const data = meta === undefined ? undefined : await parts.storage.readData(key);
        if (meta === undefined || data === undefined) return undefined;
        return { head: undefined, content: encodeStrictPayload(meta, data), dataBytes: data.length };
      },
      saveStrict: async (key, _, content) => {
        const { data, meta } = decodeStrictPayload(content);
        return saveFetched(parts, key, meta, 'default', data);
      },
      fetched: (key, type) => parts.state.recordAcquired(key, type),
    },
    streams,
    announceFetched: (_, txTimestamp) =>
      txTimestamp !== undefined && parts.now() - txTimestamp < BigInt(parts.settings.synchronizer.inventoryTimestampThresholdMs),
  };
}
