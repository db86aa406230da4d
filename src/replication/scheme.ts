/**
 * What a user of the replication engine plugs in (privacy/replication.ts for confidential
 * data, contracts/confidential/replication.ts for confidential contract data), and what the
 * engine runs on. The engine owns how items move — inventories and holders, the replier,
 * the synchronizer with its back-off, failed peers and persisted pending and lost sets —;
 * a scheme says what the items are:
 *
 *  - their names (`K`) and how a name reads in maps and logs;
 *  - their group: the node owners that receive an item (announced to, served, asked) and
 *    those whose inventories are taken;
 *  - the wire: request, inventory and answer codecs with the family's codes and caps (WE's
 *    messages, byte for byte);
 *  - the item store: whether an item is here, what a strict answer carries of it, saving
 *    one fetched (checking that it is the item its name commits to);
 *  - optionally, large items that travel as streams instead of one answer.
 *
 * `Kind` is how a holder serves an item (privacy: default or large); `H` what a strict
 * answer carries beside the item's content (confidential contracts: the call's id and the
 * commitment key).
 */
import type { KeyPair } from '../crypto/suite.js';
import type { Protocol } from '../protocol/protocol.js';
import type { TransportEncryption } from '../crypto/transport-encryption.js';
import type { PendingItems, RollbackSource } from './pending-items.js';
import type { ReplicationPeer, ReplicationPeers } from './peers.js';
import type { ReplicationSettings } from './settings.js';

/** A strict answer's content sealed for a plain connection's session keys. */
export interface SealedContent {
  readonly wrappedKey: Uint8Array;
  readonly encrypted: Uint8Array;
}

/** What sealing adds to content on a plain connection (TransportEncryption has both). */
export interface Sealing {
  readonly wrappedKeyLength: number;
  readonly sealOverhead: number;
}

/** An inventory as it came from a peer. */
export interface ReceivedInventory<K, Kind> {
  readonly key: K;
  readonly kind: Kind;
  readonly senderPublicKey: Uint8Array;
  /** The bytes its signature covers; its id (for dropping repeats) is their fast hash. */
  readonly signedBytes: Uint8Array;
  readonly signature: Uint8Array;
}

/** An inventory this node signed, ready to send. */
export interface SignedInventory {
  readonly code: number;
  readonly payload: Uint8Array;
  readonly signedBytes: Uint8Array;
}

export interface InventoryCodec<K, Kind> {
  /** The codes inventories come with. */
  readonly codes: readonly number[];
  /** An inventory of an item signed by `signer`; a text saying why not when such an item cannot be announced now. */
  sign(key: K, kind: Kind, signer: KeyPair): SignedInventory | string;
  /** Reads an inventory; throws DecodeError on a malformed one. */
  decode(code: number, payload: Uint8Array): ReceivedInventory<K, Kind>;
}

/** A strict answer as it came from a peer. */
export type ReceivedAnswer<K, H> =
  | { readonly key: K; readonly found: false }
  /** The content in clear (a TLS connection) or sealed for this node (a plain one). */
  | { readonly key: K; readonly found: true; readonly head: H; readonly content: Uint8Array | SealedContent };

export interface AnswerCodec<K, H> {
  readonly code: number;
  /** The largest answer any connection carries (the code's cap). */
  readonly maxLength: number;
  noData(key: K): Uint8Array;
  /** How long the answer of `contentLength` bytes of content is, in clear (`sealing` undefined) or sealed. */
  length(head: H, contentLength: number, sealing: Sealing | undefined): number;
  encode(key: K, head: H, content: Uint8Array | SealedContent): Uint8Array;
  /** Reads an answer; `wrappedKeyLength` on a plain connection (its content is then sealed). Throws DecodeError. */
  decode(payload: Uint8Array, wrappedKeyLength: number | undefined): ReceivedAnswer<K, H>;
}

/** A request for an item (data, or who holds it): the same name on both codes. */
export interface RequestCodec<K> {
  /** The data request's code (answered with an answer or a stream). */
  readonly data: number;
  /** The inventory request's code (answered with the holder's inventory). */
  readonly inventory: number;
  encode(key: K): Uint8Array;
  decode(code: number, payload: Uint8Array): K;
}

/** What a strict answer carries of a stored item. */
export interface StrictItem<H> {
  readonly head: H;
  /** The bytes that are sealed on a plain connection. */
  readonly content: Uint8Array;
  /** The item's data bytes (what the observer counts). */
  readonly dataBytes: number;
}

export interface ItemStore<K, Kind, H> {
  exists(key: K): Promise<boolean>;
  /** The kind of a stored item (what this node's inventories say of it). */
  kindOf(key: K): Promise<Kind>;
  /** A stored item as a strict answer carries it; undefined when it is not stored. */
  readStrict(key: K): Promise<StrictItem<H> | undefined>;
  /**
   * Saves an item a holder sent; rejects when the content is not the item its name commits
   * to (the holder failed). Resolves with its data bytes, or undefined when it was stored
   * meanwhile (another holder, an upload).
   */
  saveStrict(key: K, head: H, content: Uint8Array): Promise<number | undefined>;
  /** Told of an item fetched whole, of the kind its holder served (privacy writes its descriptor). */
  fetched?(key: K, kind: Kind): Promise<void>;
}

/** Items that travel as a stream of frames instead of one answer (privacy's large items). */
export interface StreamedItems<K, Kind, P extends ReplicationPeer> {
  /** Whether this node answers a request for the item with a stream (never rejects). */
  servesStream(key: K): Promise<boolean>;
  /** Whether a holder that said `kind` answers with a stream. */
  streamed(kind: Kind): boolean;
  /** Answers a data request with a stream (or a refusal in stream form). */
  serve(peer: P, key: K): Promise<void>;
  /** Fetches an item from a holder as a stream and stores it; a holder silent too long fails with RequestTimeout. */
  fetch(peer: P, key: K, signal: AbortSignal): Promise<void>;
}

/** The words logs use for the family's things (a privacy item, the policy's recipients, …). */
export interface SchemeWords {
  /** "privacy": what its inventories and requests are called in logs. */
  readonly family: string;
  /** "small privacy item": an item served in one answer. */
  readonly strictItem: string;
  /** "the policy's recipients". */
  readonly group: string;
  /** "PrivateDataResponse". */
  readonly answer: string;
}

export interface ReplicationScheme<K, Kind, H, P extends ReplicationPeer = ReplicationPeer> {
  readonly words: SchemeWords;
  /** An item's name as a map key and in logs. */
  text(key: K): string;
  /** The node owners that receive the item (announced to, served, asked); none for an unknown group. */
  members(key: K): readonly Uint8Array[];
  /** Whether an inventory signed by `address` may be taken (a member, or whoever else may hold the item). */
  mayHold(address: Uint8Array, key: K): boolean;
  /** Whether `address` is a registered participant of the network (only those are served). */
  registered(address: Uint8Array): boolean;
  readonly requests: RequestCodec<K>;
  readonly inventories: InventoryCodec<K, Kind>;
  readonly answers: AnswerCodec<K, H>;
  readonly store: ItemStore<K, Kind, H>;
  readonly streams?: StreamedItems<K, Kind, P>;
  /** Whether an item fetched whole is announced on: its anchoring transaction (at `txTimestamp` when known) is recent. */
  announceFetched(key: K, txTimestamp: bigint | undefined): boolean;
  /**
   * Whether an item a member announced is wanted here without the chain naming it (confidential
   * contract data: a call's input announced before its call is mined). Absent: never.
   */
  wantsAnnounced?(key: K): boolean;
}

export interface ReplicationLog {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
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

/** The node's parts the engine runs on. */
export interface ReplicationEngineParts<K, Kind, H, P extends ReplicationPeer = ReplicationPeer> {
  readonly scheme: ReplicationScheme<K, Kind, H, P>;
  /** The network's crypto (signatures, fast hash) and addresses. */
  readonly protocol: Protocol;
  readonly settings: ReplicationSettings;
  /** The node owner's keys: the inventories this node sends are signed with them. */
  readonly owner: KeyPair;
  readonly peers: ReplicationPeers<P>;
  /** The items to fetch and those given up on, persisted (a restart resumes them). */
  readonly pending: PendingItems<K>;
  /** Items whose anchoring the chain rolled back: their downloads are cancelled. */
  readonly rollbacks?: RollbackSource<K>;
  readonly log: ReplicationLog;
  readonly observer?: ReplicationObserver;
  /** Inventories are taken in batches (`inventory-handler.max-buffer-size`, `max-buffer-time`) rather than as they come. */
  readonly batchInventories?: boolean;
  /** How plain connections seal items; the network's crypto's by default. */
  readonly transport?: TransportEncryption;
  /** Monotonic ms for the caches and waits; `performance.now()` by default. */
  readonly clock?: () => number;
}
