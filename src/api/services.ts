/**
 * What the HTTP layer needs from a node. Route modules call these and nothing else; the
 * node (node/node.ts) implements them over the chain, pool and wallet. Keeping it an
 * interface lets API tests run against a real chain or a small fixture alike.
 */
import type { KeyPair } from '../crypto/suite.js';
import type { Block } from '../protocol/blocks.js';
import type { Protocol } from '../protocol/protocol.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import type { StateView } from '../state/view.js';

export interface BlockAt {
  readonly block: Block;
  readonly height: number;
}

export interface ChainReader {
  /** Current height, counting the liquid block while one exists. */
  height(): number;
  /** The block at a height; for the top height, the liquid block as assembled so far. */
  blockAt(height: number): Block | undefined;
  /**
   * A block by id. The id may be a liquid block's intermediate total signature: the
   * block is then assembled up to that micro-block, at the current height.
   */
  blockById(id: Uint8Array): BlockAt | undefined;
  /** The block whose parent is `id`. */
  childOf(id: Uint8Array): Block | undefined;
  /** A confirmed transaction and its height. */
  transaction(id: Uint8Array): { tx: Transaction; height: number } | undefined;
  /** Confirmed transactions involving an address, newest first (liquid block first), after `afterId` if given. */
  addressTransactions(address: Uint8Array, limit: number, afterId?: Uint8Array): { txs: Array<{ tx: Transaction; height: number }>; afterFound: boolean };
  /** Current state (persisted + liquid). */
  state(): StateView;
  /** Minimal fee of a transaction at the next height: WEST, or the sponsored asset's units. */
  minimalFee(tx: Transaction): { feeAssetId: Uint8Array | null; amount: bigint };
}

export interface PoolService {
  /**
   * Validates a signed transaction against state and adds it to the pool (idempotent for a
   * transaction already in the pool). Throws a WeError with WE's code on rejection.
   */
  broadcast(tx: Transaction): Promise<Transaction>;
  /** Pool transactions ordered by timestamp. */
  unconfirmed(): readonly Transaction[];
  unconfirmedById(id: Uint8Array): Transaction | undefined;
  size(): { size: number; sizeInBytes: number };
}

export interface WalletService {
  /** The key pair of an address in the node's keystore, unlocked with the entry's password; WE error 115 otherwise. */
  keyPair(address: string, password: string | undefined): KeyPair;
  /** Re-reads the keystore file. */
  reload(): void;
}

export interface AdminService {
  /** Rolls back to `height` (the block there becomes the tip); returns the new tip's id. */
  rollback(height: number, returnTransactionsToUtx: boolean): Uint8Array;
  /** Rolls back to the block with this id, without returning transactions to the pool. */
  rollbackTo(id: Uint8Array): Uint8Array;
}

export type AuthMode =
  | { readonly type: 'api-key'; readonly apiKeyHash: Uint8Array; readonly privacyApiKeyHash: Uint8Array; readonly confidentialContractsApiKeyHash: Uint8Array }
  | { readonly type: 'oauth2'; readonly publicKeyPem: string };

export interface ApiSettings {
  readonly bindAddress: string;
  readonly port: number;
  readonly cors: boolean;
  readonly auth: AuthMode;
  readonly transactionsByAddressLimit: number;
  /** `node.network.mode = watcher`: no transaction submission (638). */
  readonly watcher: boolean;
}

export interface ApiServices {
  readonly protocol: Protocol;
  readonly settings: ApiSettings;
  readonly chain: ChainReader;
  readonly pool: PoolService;
  readonly wallet: WalletService;
  readonly admin: AdminService;
  /** Public key of the node owner: `/transactions/calculateFee` builds its estimate as this account, as WE does. */
  readonly nodeOwnerPublicKey: Uint8Array;
  /** Node time in ms (NTP-corrected in WE). */
  now(): bigint;
}
