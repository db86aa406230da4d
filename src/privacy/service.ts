/**
 * The confidential-data use cases behind `/privacy/*` (WE's PrivacyApiService): reading a
 * policy's members, hashes and items, and sending data — storing it and signing the
 * PolicyDataHash (114) that anchors its hash on chain.
 *
 * Sending, in WE's order: the request's checks (requests.ts) → for sendData and
 * sendDataV2, data too large for the one P2P message that carries a small item to the
 * other nodes is 607 (Weft's) → the hash must not be anchored yet (615) → the 114 of the
 * request's version, signed by the sender's keystore key at the node's time → its fee →
 * whether the storage holds the item already → with `broadcast=true`, the 114 validated
 * against the state by the chain's admission (policy exists 612, sender among the
 * recipients, balance…) and the request's certificates admitted; with `broadcast=false` (Weft's: WE checks nothing here) its
 * policy rules alone (612, sender among the recipients) → the data stored, its SHA-256
 * checked while it streams (a mismatch stores nothing and ends here: no 114 goes
 * out) → the item's descriptor → with `broadcast=true`, the 114 into the pool and out to
 * peers, then the item announced to the policy's peers. An item already stored is not
 * stored again (a retry after a failed broadcast works); its data is read and dropped.
 *
 * `sendLargeData` streams: the HTTP part is read at most `privacy.service.request-buffer-size`
 * bytes ahead of the storage (the socket is paused beyond), so memory stays bounded
 * whatever the size.
 *
 * Reading an item: the policy must exist (612), the hash must decode (199); the item's kind
 * comes from its descriptor or, failing that, the storage (unknown to both → 646); asking
 * for a large item with getData, or a small one with getLargeData, is 647. An item the
 * node should have but whose data is missing is 617 — and, when the node owner is a
 * recipient of the policy and the hash is anchored, the item is queued for download (the
 * pending set of the privacy state, state.ts, which the synchronizer works through).
 */
import { finished, type Readable } from 'node:stream';
import type { Address } from '../crypto/address.js';
import { base64DecodedLength, decodeBase64, encodeBase58, equalBytes } from '../crypto/encoding.js';
import { transportEncryptionFor } from '../crypto/transport-encryption.js';
import type { KeyPair } from '../crypto/suite.js';
import type { Protocol } from '../protocol/protocol.js';
import type { PolicyDataHashTransaction } from '../protocol/transactions/privacy.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import { checkPolicyDataHash } from '../state/appliers/privacy.js';
import type { StateView } from '../state/view.js';
import { FEATURE } from '../protocol/features.js';
import { encodeItemMeta, type PolicyItemKey, type PolicyItemMeta, type PrivacyDataType } from './item.js';
import { maxStrictItemData, type PolicyItemId, type StrictSealing } from './messages.js';
import { checkSendDataRequest, readDataHash, readPolicyId, type SendDataRequest, type ValidSendData } from './requests.js';
import type { PrivacySettings } from './settings.js';
import { itemKind, type PrivacyItemEvent, type PrivacyState } from './state.js';
import type { IncomingData, PolicyStorage, StoredData } from './storage/storage.js';
import {
  forceSyncError,
  genericError,
  policyDataHashAlreadyExists,
  policyDataTooBigToReplicate,
  policyDoesNotExist,
  policyItemDataIsMissing,
  senderIsNotInPolicyRecipients,
  policyItemNotFound,
  wrongPolicyItemDataGetMethod,
} from '../errors/catalogue.js';

/** What WE's getInfo answers about an item. */
export interface PolicyItemInfo {
  readonly sender: string;
  readonly policy: string;
  readonly info: { readonly filename: string; readonly size: number; readonly timestamp: bigint; readonly author: string; readonly comment: string };
  readonly hash: string;
}

/** The data of a sendData request: Base64 text (sendData) or the raw bytes (sendDataV2). */
export type SendDataPayload = { readonly base64: string } | { readonly bytes: Uint8Array };

/** A sendLargeData request whose `request` part passed every check; its data comes next. */
export interface LargeUpload {
  readonly request: SendDataRequest;
  readonly valid: ValidSendData;
}

/** What the HTTP layer calls (src/api/routes/privacy.ts). */
export interface PrivacyApi {
  /** False when `node.privacy.storage.vendor = none`: the routes that need data answer 613. */
  readonly storageEnabled: boolean;
  /** Feature 180 (large privacy objects) active at the current height. */
  largeObjectsActive(): boolean;
  /** How long sendLargeData waits for its `request` part (`privacy.service.meta-data-accumulation-timeout`). */
  readonly requestPartTimeoutMs: number;
  recipients(policyId: string): string[];
  owners(policyId: string): string[];
  hashes(policyId: string): string[];
  dataHashTransactions(policyId: string): string[];
  getData(policyId: string, hash: string): Promise<Uint8Array>;
  getLargeData(policyId: string, hash: string): Promise<StoredData>;
  getInfo(policyId: string, hash: string): Promise<PolicyItemInfo>;
  getInfos(
    request: ReadonlyArray<{ readonly policyId: string; readonly datahashes: readonly string[] }>,
  ): Promise<Array<{ policyId: string; datasInfo: PolicyItemInfo[] }>>;
  sendData(request: SendDataRequest, data: SendDataPayload, broadcast: boolean): Promise<Transaction>;
  /** Checks a sendLargeData `request` part (before any data is read). */
  checkLargeUpload(request: SendDataRequest): Promise<LargeUpload>;
  sendLargeData(upload: LargeUpload, data: Readable, broadcast: boolean): Promise<Transaction>;
  /** Whether the storage holds an item (WE's policyDataExists: the texts as given, nothing checked). */
  dataExists(policyId: string, hash: string): Promise<boolean>;
  /** Calls `listener` with each item stored on this node and each anchoring rolled back, from now on; returns how to stop. */
  onItemEvent(listener: (event: PrivacyItemEvent) => void): () => void;
  /** `POST /privacy/forceSync`: the synchronizer restarts with the whole pending set; its size. */
  forceSync(): number;
  /** `GET /privacy/forceSync/{policyId}`: the policy's anchored items join the pending set; restarts; how many. */
  forceSyncPolicy(policyId: string): Promise<number>;
}

/** The download side of replication (replicator.ts: the engine's synchronizer), as forceSync drives it. */
export interface PrivacySync {
  forceSync(): number;
  forceSyncPolicy(policyId: Uint8Array): Promise<number>;
}

/** The chain as confidential data needs it. */
export interface PrivacyChainView {
  /** Current state, the liquid block included. */
  state(): StateView;
  isFeatureActive(feature: number): boolean;
  /** The fee rules of the next block (WE's FeeCalculator.validateTxFee); throws WE's error. */
  validateFee(tx: Transaction): void;
  /** The fee and full validation against the state (the pool's transactions not counted), nothing kept; throws WE's error. */
  validate(tx: Transaction): void;
  /** Puts the transaction into the pool and sends it to peers. */
  broadcast(tx: Transaction): Promise<Transaction>;
  /**
   * The request's `certificates` for the transaction made from it (PKI): on a GOST network
   * validated as a broadcast's are (PKI mode TEST/ON, a sender's first transaction needs
   * them) and kept with the transaction, so its chain travels with it and is stored with the
   * block that mines it. Throws WE's 120/121.
   */
  admitCertificates(tx: Transaction, certificates: readonly string[]): Promise<void>;
}

/** Tells the policy's peers that this node holds an item (the network layer's inventory gossip). */
export interface ItemAnnouncer {
  announce(item: PolicyItemId, type: PrivacyDataType, signer: KeyPair): void;
}

export interface PrivacyLog {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface PrivacyServiceParts {
  readonly protocol: Protocol;
  readonly settings: PrivacySettings;
  /** Undefined when `storage.vendor = none`. */
  readonly storage: PolicyStorage | undefined;
  readonly state: PrivacyState;
  readonly chain: PrivacyChainView;
  /** The node owner's address. */
  readonly nodeOwner: Address;
  /** A keystore key pair, unlocked off the event loop under the failed-unlock limits (WE's 115 when missing or locked). */
  unlock(address: string, password: string | undefined): Promise<KeyPair>;
  /** Node time, ms. */
  now(): bigint;
  readonly log: PrivacyLog;
  /** Absent when replication does not run (uploads are then not announced). */
  readonly announcer?: ItemAnnouncer;
  /** Absent when replication does not run (forceSync then answers 610). */
  readonly sync?: PrivacySync;
}

const b58 = encodeBase58;

export class PrivacyService implements PrivacyApi {
  /** How a small item is sealed for a peer on a plain connection: the network's transport encryption. */
  private readonly sealing: StrictSealing;

  constructor(private readonly parts: PrivacyServiceParts) {
    this.sealing = transportEncryptionFor(parts.protocol.crypto.type);
  }

  get requestPartTimeoutMs(): number {
    return this.parts.settings.service.metaDataAccumulationTimeoutMs;
  }

  get storageEnabled(): boolean {
    return this.parts.storage !== undefined;
  }

  private get storage(): PolicyStorage {
    const s = this.parts.storage;
    if (s === undefined) throw new Error('The privacy storage is switched off (node.privacy.storage.vendor = none)');
    return s;
  }

  largeObjectsActive(): boolean {
    return this.parts.chain.isFeatureActive(FEATURE.PRIVACY_LARGE_OBJECTS);
  }

  // --- policy reads ---------------------------------------------------------------

  /** The policy's id bytes and state; 199 for undecodable text, 612 for an unknown policy. */
  private policyOf(text: string, field = 'policyId'): { id: Uint8Array; recipients: readonly Uint8Array[]; owners: readonly Uint8Array[] } {
    const id = readPolicyId(text, field);
    const policy = this.parts.chain.state().policy(id);
    if (policy === undefined) throw policyDoesNotExist(encodeBase58(id));
    return { id, ...policy };
  }

  private addressText(bytes: Uint8Array): string {
    return this.parts.protocol.addresses.addressFromBytes(bytes).toString();
  }

  recipients(policyId: string): string[] {
    return this.policyOf(policyId).recipients.map((a) => this.addressText(a));
  }

  owners(policyId: string): string[] {
    return this.policyOf(policyId).owners.map((a) => this.addressText(a));
  }

  hashes(policyId: string): string[] {
    const { id } = this.policyOf(policyId);
    return this.parts.chain
      .state()
      .policyDataHashes(id)
      .map((e) => b58(e.hash));
  }

  dataHashTransactions(policyId: string): string[] {
    const { id } = this.policyOf(policyId);
    return this.parts.chain
      .state()
      .policyDataHashes(id)
      .filter((e) => e.txId.length > 0)
      .map((e) => b58(e.txId));
  }

  // --- forceSync ------------------------------------------------------------------

  private get sync(): PrivacySync {
    const sync = this.parts.sync;
    if (sync === undefined) throw forceSyncError();
    return sync;
  }

  forceSync(): number {
    return this.sync.forceSync();
  }

  async forceSyncPolicy(policyId: string): Promise<number> {
    const { id, recipients } = this.policyOf(policyId);
    const owner = this.parts.nodeOwner;
    if (!recipients.some((r) => equalBytes(r, owner.bytes))) throw senderIsNotInPolicyRecipients(owner.toString());
    return this.sync.forceSyncPolicy(id);
  }

  // --- item reads -----------------------------------------------------------------

  /** Policy and hash of a read, checked as WE checks them (policy first). */
  private itemOf(policyId: string, hash: string): { key: PolicyItemKey; policyId: Uint8Array; hash: Uint8Array } {
    const { id } = this.policyOf(policyId);
    const hashBytes = readDataHash(this.parts.protocol, hash);
    return { key: { policyId: b58(id), hash: b58(hashBytes) }, policyId: id, hash: hashBytes };
  }

  /** The kind of an item: its descriptor, else the storage's answer (remembered); 646 when neither knows it. */
  private async kindOf(key: PolicyItemKey): Promise<PrivacyDataType> {
    const kind = await itemKind(this.parts.state, this.storage, key);
    if (kind === undefined) throw policyItemNotFound(key.policyId, key.hash);
    return kind;
  }

  /** 617, after queueing the item for download when this node should hold it (WE's forceUpdateIfNotInProgress). */
  private async missing(item: { key: PolicyItemKey; policyId: Uint8Array; hash: Uint8Array }): Promise<never> {
    const { state: privacy, chain, nodeOwner } = this.parts;
    const state = chain.state();
    const policy = state.policy(item.policyId);
    if (
      policy !== undefined &&
      policy.recipients.some((r) => equalBytes(r, nodeOwner.bytes)) &&
      state.hasPolicyDataHash(item.policyId, item.hash) &&
      !privacy.isPending(item.key) &&
      !privacy.isLost(item.key)
    ) {
      this.parts.log.debug({ policyId: item.key.policyId, hash: item.key.hash }, 'privacy item missing from the storage: queued for download');
      await privacy.addToPending([item.key]);
    }
    throw policyItemDataIsMissing(item.key.hash);
  }

  async getData(policyId: string, hash: string): Promise<Uint8Array> {
    const item = this.itemOf(policyId, hash);
    const kind = await this.kindOf(item.key);
    if (kind === 'large') throw wrongPolicyItemDataGetMethod(item.key.policyId, item.key.hash, 'large');
    return (await this.storage.readData(item.key)) ?? this.missing(item);
  }

  async getLargeData(policyId: string, hash: string): Promise<StoredData> {
    const item = this.itemOf(policyId, hash);
    const kind = await this.kindOf(item.key);
    if (kind === 'default') throw wrongPolicyItemDataGetMethod(item.key.policyId, item.key.hash, 'default');
    return (await this.storage.openData(item.key)) ?? this.missing(item);
  }

  async getInfo(policyId: string, hash: string): Promise<PolicyItemInfo> {
    const item = this.itemOf(policyId, hash);
    const meta = await this.storage.meta(item.key);
    return meta === undefined ? this.missing(item) : infoOf(meta);
  }

  async getInfos(
    request: ReadonlyArray<{ readonly policyId: string; readonly datahashes: readonly string[] }>,
  ): Promise<Array<{ policyId: string; datasInfo: PolicyItemInfo[] }>> {
    const wanted = new Map<string, ReadonlySet<string>>();
    for (const { policyId, datahashes } of request) {
      try {
        readPolicyId(policyId);
      } catch {
        continue;
      }
      wanted.set(policyId, new Set(datahashes));
    }
    if (wanted.size === 0) throw genericError('Failed to decode all policy ids.', 'policiesDataHashes');
    const storage = this.parts.storage;
    if (storage === undefined) return [];
    const byPolicy = new Map<string, PolicyItemInfo[]>();
    for (const meta of await storage.metas(wanted)) {
      let list = byPolicy.get(meta.policyId);
      if (list === undefined) byPolicy.set(meta.policyId, (list = []));
      list.push(infoOf(meta));
    }
    return [...byPolicy].map(([policyId, datasInfo]) => ({ policyId, datasInfo }));
  }

  dataExists(policyId: string, hash: string): Promise<boolean> {
    return this.storage.exists({ policyId, hash });
  }

  onItemEvent(listener: (event: PrivacyItemEvent) => void): () => void {
    return this.parts.state.onItemEvent(listener);
  }

  // --- sending ----------------------------------------------------------------------

  private checks(large: boolean) {
    const { protocol, chain } = this.parts;
    return {
      protocol,
      unlock: (address: string, password: string | undefined) => this.parts.unlock(address, password),
      ...(large ? { notAnchoredYet: (policyId: Uint8Array, hash: Uint8Array) => this.notAnchoredYet(chain.state(), policyId, hash) } : {}),
    };
  }

  private notAnchoredYet(state: StateView, policyId: Uint8Array, hash: Uint8Array): void {
    if (state.hasPolicyDataHash(policyId, hash)) throw policyDataHashAlreadyExists(encodeBase58(hash));
  }

  async sendData(request: SendDataRequest, data: SendDataPayload, broadcast: boolean): Promise<Transaction> {
    const length = 'base64' in data ? data.base64.length : data.bytes.length;
    const valid = await checkSendDataRequest(request, length, this.checks(false));
    this.checkReachesMembers(request, 'base64' in data ? base64DecodedLength(data.base64) : data.bytes.length);
    return this.send(request, valid, 'default', broadcast, () => {
      if ('bytes' in data) return data.bytes;
      try {
        return decodeBase64(data.base64);
      } catch {
        throw genericError('Failed to decode policy data from Base64', 'data');
      }
    });
  }

  /**
   * A small item reaches the policy's other nodes in one PrivateDataResponse (31), which the
   * wire caps at 20 MiB + 128 B with the item's metadata and, on a plain connection, its
   * encryption: larger data is refused here, before anything is stored or signed (WE takes
   * it up to its 28 MiB body limit, and no other node ever receives it). sendLargeData
   * streams items of any size.
   */
  private checkReachesMembers(request: SendDataRequest, size: number): void {
    const max = maxStrictItemData(encodeItemMeta(metaOf(request)).length, this.sealing);
    if (size > max) throw policyDataTooBigToReplicate(size, max);
  }

  async checkLargeUpload(request: SendDataRequest): Promise<LargeUpload> {
    return { request, valid: await checkSendDataRequest(request, undefined, this.checks(true)) };
  }

  async sendLargeData(upload: LargeUpload, data: Readable, broadcast: boolean): Promise<Transaction> {
    // The upload may fail (cut, too big) before the storage starts reading it: its error is
    // reported by readAhead then (or not at all when the request is refused first).
    const untilRead = (): void => undefined;
    data.on('error', untilRead);
    try {
      return await this.send(upload.request, upload.valid, 'large', broadcast, () => readAhead(data, this.parts.settings.service.requestBufferSize));
    } finally {
      data.off('error', untilRead);
      // Refused before or while reading: the rest of the upload is not read (the HTTP layer closes the connection).
      if (!data.readableEnded) data.destroy();
    }
  }

  /** Builds, checks, stores and (with broadcast) sends, in WE's order; `data` is taken only when the item is to be stored. */
  private async send(
    request: SendDataRequest,
    valid: ValidSendData,
    type: PrivacyDataType,
    broadcast: boolean,
    data: () => IncomingData,
  ): Promise<Transaction> {
    const { chain, state, log } = this.parts;
    const storage = this.storage;
    this.notAnchoredYet(chain.state(), valid.policyId, valid.hash);
    const tx = this.policyDataHash(request, valid);
    chain.validateFee(tx);
    const key: PolicyItemKey = { policyId: request.policyId, hash: request.hash };
    const stored = await storage.exists(key);
    if (broadcast) {
      chain.validate(tx);
      await chain.admitCertificates(tx, request.certificates ?? []);
    } else {
      // Not broadcast, the 114 is still held to its policy's rules (WE skips them here): the
      // policy exists and the sender is a recipient, as a block will check once the 114
      // arrives inside an atomic — an item is never stored for a policy it cannot join.
      checkPolicyDataHash(chain.state(), tx, (feature) => chain.isFeatureActive(feature));
    }
    if (stored) {
      log.debug({ policyId: key.policyId, hash: key.hash }, 'the item is in the storage already: only the PolicyDataHash is made');
      await drain(data());
    } else {
      await storage.save(metaOf(request), type, data());
      await state.recordAcquired(key, type);
    }
    if (!broadcast) return tx;
    const pooled = await chain.broadcast(tx);
    this.parts.announcer?.announce({ policyId: valid.policyId, dataHash: valid.hash }, type, valid.signer);
    log.info({ id: pooled.idBase58, policyId: key.policyId, hash: key.hash, type }, 'privacy item stored and its PolicyDataHash broadcast');
    return pooled;
  }

  /** The 114 of the request's version, signed by the sender at the node's time. */
  private policyDataHash(request: SendDataRequest, valid: ValidSendData): PolicyDataHashTransaction {
    const protocol = this.parts.protocol;
    const json: Record<string, unknown> = {
      type: 114,
      version: request.version,
      senderPublicKey: b58(valid.signer.publicKey),
      policyId: b58(valid.policyId),
      dataHash: b58(valid.hash),
      timestamp: this.parts.now(),
      fee: request.fee,
      proofs: [],
    };
    if (request.version >= 2) json['feeAssetId'] = valid.feeAssetId === null ? null : b58(valid.feeAssetId);
    if (request.version >= 3) {
      const badge = request.atomicBadge;
      json['atomicBadge'] = badge === undefined || badge === null ? null : { trustedSender: badge.trustedSender ?? null };
    }
    // Its JSON's type is 114: so is the transaction read.
    const unsigned = protocol.transactionFromJson(json, { forBroadcast: false }) as PolicyDataHashTransaction;
    return protocol.sign(unsigned, valid.signer.privateKey);
  }
}

function metaOf(r: SendDataRequest): PolicyItemMeta {
  return {
    policyId: r.policyId,
    hash: r.hash,
    sender: r.sender,
    filename: r.info.filename,
    size: r.info.size,
    timestamp: r.info.timestamp,
    author: r.info.author,
    comment: r.info.comment,
  };
}

function infoOf(m: PolicyItemMeta): PolicyItemInfo {
  return {
    sender: m.sender,
    policy: m.policyId,
    info: { filename: m.filename, size: m.size, timestamp: m.timestamp, author: m.author, comment: m.comment },
    hash: m.hash,
  };
}

/**
 * The chunks of an upload as they arrive, read up to `limit` bytes ahead of the storage:
 * past that the upload is paused (and the socket behind it) until the storage catches up.
 * Chunks keep the size they came in (the socket's, ≤ 64 KiB): a stream's own iterator
 * would join everything it holds into one chunk — up to `limit` bytes copied at once, then
 * hashed in one go on the event loop.
 */
async function* readAhead(source: Readable, limit: number): AsyncGenerator<Uint8Array> {
  const queue: Uint8Array[] = [];
  let queued = 0;
  let ended = false;
  let failed: Error | undefined;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const onData = (chunk: Buffer): void => {
    queue.push(chunk);
    queued += chunk.length;
    if (queued >= limit) source.pause();
    notify();
  };
  // The end, an error or a close before the end (already past ones included).
  const stopWatching = finished(source, { writable: false }, (e) => {
    if (e === undefined || e === null) ended = true;
    else failed = e;
    notify();
  });
  source.on('data', onData);
  try {
    for (;;) {
      if (failed !== undefined) throw failed;
      const chunk = queue.shift();
      if (chunk !== undefined) {
        queued -= chunk.length;
        if (queued < limit && source.isPaused()) source.resume();
        yield chunk;
      } else if (ended) return;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    stopWatching();
    source.off('data', onData);
  }
}

/** Reads incoming data to its end without keeping it. */
async function drain(data: IncomingData): Promise<void> {
  if (data instanceof Uint8Array) return;
  for await (const chunk of data) void chunk;
}
