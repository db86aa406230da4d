/**
 * The chain as the network layer sees it: the one door between them. Peers' blocks and
 * micro-blocks come in through it (every change announced with the origin `network`),
 * the answers to peers' requests and the facts of the handshake come out of it, and its
 * events say what changed and who changed it; peers' transactions go through the chain's
 * admission (admission.ts) as the pool's side of it. The network imports nothing else of
 * the chain or the state.
 */
import type { Block } from '../protocol/blocks.js';
import type { MicroBlock } from '../protocol/blocks/micro-block.js';
import { FEATURE } from '../protocol/features.js';
import { ROLES } from '../protocol/transactions/permissions.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import { addressHasRole } from '../state/permissions.js';
import type { Certificate } from '../crypto/pki/x509.js';
import type { Admission } from './admission.js';
import type { Blockchain, ChainEvent } from './blockchain.js';
import { applyExtension, applyKeyBlock, blockLocator, newBlockIds, signaturesReply, type ExtensionResult, type KeyBlockResult } from './fork.js';

export type { ChainChangeOrigin, ChainEvent } from './blockchain.js';
export type { ExtensionResult, KeyBlockResult } from './fork.js';
export { DEFAULT_MAX_CHAIN_LENGTH, DEFAULT_MAX_ROLLBACK } from './fork.js';

export interface PeerChain {
  /** Current height, the liquid block counted. */
  height(): number;
  /** The id peers know the top block by: the liquid block's current total signature. */
  lastBlockId(): Uint8Array;
  /** Whether an id is a block of this chain: a final id, or the liquid block's total signature after any of its micro-blocks. */
  holdsBlockId(id: Uint8Array): boolean;
  /** A block by id, to serve a peer (a liquid block's intermediate id gives it as assembled then). */
  blockById(id: Uint8Array): { readonly block: Block; readonly height: number } | undefined;
  /** A micro-block of the current liquid block by its total signature. */
  microBlock(totalSignature: Uint8Array): MicroBlock | undefined;
  /** The id the liquid block's key block was forged with (WE's currentBaseBlock uniqueId), which micro-block inventories V2 name. */
  liquidKeyBlockId(): Uint8Array;
  /** Whether feature 173 (micro-block inventory V2) is active at the current height: this node's miner then announces by 43. */
  microBlockInventoryV2Active(): boolean;
  /** The chain score now. */
  score(): bigint;
  /** The last block ids, newest first (GetSignatures). */
  locator(max: number): Uint8Array[];
  /** The answer to a peer's GetSignatures; undefined without a common block. */
  signaturesReply(locator: readonly Uint8Array[], maxChainLength: number): Uint8Array[] | undefined;
  /** Reading a peer's Signatures: the last id that is ours and the ones to download. */
  newBlockIds(ids: readonly Uint8Array[]): { common: { height: number; id: Uint8Array }; unknown: Uint8Array[] } | undefined;
  /** A micro-block from a peer, every check made; throws WE's error when refused. */
  appendMicroBlock(micro: MicroBlock): void;
  /** A key block a peer broadcast: appended, or a better branch switched to, or refused. */
  applyKeyBlock(block: Block, maxRollback: number): KeyBlockResult;
  /** A peer's extension (whole blocks after a common block), taken when it scores higher. */
  applyExtension(blocks: readonly Block[], maxRollback: number): ExtensionResult;
  /** Subscribes to chain changes; returns the unsubscribe function. */
  on(listener: (event: ChainEvent) => void): () => void;
  /** The public key of a registered network participant (GenesisRegisterNode / RegisterNode), by owner address. */
  participantPublicKey(address: Uint8Array): Uint8Array | undefined;
  /** Whether an address holds the miner role at `now`. */
  isMiner(address: Uint8Array, now: bigint): boolean;
  /** `height:id-prefix`, for logs. */
  describeTip(): string;
  /**
   * Certificates that came with a peer's block (by its id) or micro-block (by its total
   * liquid-block signature), already through the certificate policy: stored with that block
   * if it is accepted here (appendMicroBlock, applyKeyBlock, applyExtension), dropped if it is
   * refused.
   */
  offerCertificates(blockId: Uint8Array, certificates: readonly Certificate[]): void;
  /** The certificates carried with any of the transactions, to send along with them. */
  carriedCertificates(transactionIds: readonly Uint8Array[]): readonly Certificate[];
  /** The DER certificates the block at a height stored, to send along with it. */
  certificatesStoredAt(height: number): ReadonlyArray<{ readonly der: Uint8Array }>;
}

/** The pool as the network uses it: transactions from peers admitted, the pool's contents relayed. */
export interface PeerPool {
  /**
   * Checks the sender proofs of transactions from peers on the verifier threads (keeping the
   * verdicts) before they are applied; `urgent` when a peer's micro-block waits on them.
   */
  preverify(txs: readonly Transaction[], urgent?: boolean): Promise<void>;
  /**
   * PKI mode TEST/ON: why a peer's transaction may not enter the pool with the chain its
   * message (46) carried, or undefined; no promise at all when no policy applies.
   */
  certificateProblem(tx: Transaction, certificates: readonly Certificate[]): Promise<string | undefined> | undefined;
  /**
   * Validates and admits a peer's transaction (idempotent), its chain kept with it until a
   * block mines it; throws WE's error otherwise.
   */
  admit(tx: Transaction, certificates: readonly Certificate[]): Transaction;
  /**
   * Throws (and counts) the pool-full refusal when the transaction would not fit beside the
   * pool's transactions and `waitingBytes` of others queued for admission.
   */
  checkRoom(tx: Transaction, waitingBytes: number): void;
  /** The pooled transaction whose id has this key (encoding's bytesKey of the id), if any. */
  getByKey(idKey: string): Transaction | undefined;
  /** The pool's transactions, by timestamp. */
  all(): readonly Transaction[];
}

/** The network's door to a chain. */
export function peerChainOf(chain: Blockchain): PeerChain {
  const carryCertificates = (block: Block): (() => void) => chain.certificates.takeOffer(block.id, block.transactions);
  return {
    height: () => chain.height(),
    lastBlockId: () => chain.lastBlock().id,
    holdsBlockId: (id) => chain.holdsBlockId(id),
    blockById: (id) => chain.blockById(id),
    microBlock: (totalSignature) => chain.microBlock(totalSignature),
    // The first micro-block extends the key block as forged; before one, the top block is that key block.
    liquidKeyBlockId: () => chain.liquidMicroBlocks()[0]?.prevLiquidBlockSig ?? chain.lastBlock().id,
    microBlockInventoryV2Active: () => chain.features.isActive(FEATURE.MICRO_BLOCK_INVENTORY_V2, chain.height()),
    score: () => chain.score(),
    locator: (max) => blockLocator(chain, max),
    signaturesReply: (locator, maxChainLength) => signaturesReply(chain, locator, maxChainLength),
    newBlockIds: (ids) => newBlockIds(chain, ids),
    appendMicroBlock: (micro) => {
      const takeBack = chain.certificates.takeOffer(micro.totalLiquidBlockSig, micro.kind === 'tx' ? micro.transactions : []);
      try {
        chain.appendMicroBlock(micro, 'network');
      } catch (e) {
        takeBack();
        throw e;
      }
    },
    applyKeyBlock: (block, maxRollback) => {
      const result = applyKeyBlock(chain, block, { maxRollback, carryCertificates });
      // A block whose reference has not arrived yet is tried again later, with its offer.
      if (result.kind !== 'unknown-reference') chain.certificates.withdraw([block.id]);
      return result;
    },
    applyExtension: (blocks, maxRollback) => {
      const result = applyExtension(chain, blocks, { maxRollback, carryCertificates });
      chain.certificates.withdraw(blocks.map((b) => b.id));
      return result;
    },
    on: (listener) => chain.on(listener),
    participantPublicKey: (address) => chain.state().participant(address)?.publicKey,
    isMiner: (address, now) => addressHasRole(chain.state(), address, ROLES.miner, now),
    describeTip: () => chain.describeTip(),
    offerCertificates: (blockId, certificates) => chain.certificates.offer(blockId, certificates),
    carriedCertificates: (ids) => chain.certificates.of(ids),
    certificatesStoredAt: (height) => chain.store.certificatesStoredAt(height).map((der) => ({ der })),
  };
}

/** The network's door to a pool: peers' transactions through the chain's admission, the rest the pool's own. */
export function peerPoolOf(admission: Admission): PeerPool {
  const pool = admission.pool;
  return {
    preverify: (txs, urgent) => pool.preverify(txs, urgent),
    certificateProblem: (tx, certificates) => admission.peerCertificateProblem(tx, certificates),
    admit: (tx, certificates) => admission.admitFromPeer(tx, certificates),
    checkRoom: (tx, waitingBytes) => pool.checkRoom(tx, waitingBytes),
    getByKey: (idKey) => pool.getByKey(idKey),
    all: () => pool.all(),
  };
}
