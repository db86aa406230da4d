/**
 * The chain side of following peers: block locators, the common block with a peer, and
 * switching to a better branch (reference/chain-consensus-network.md §2.5, §4.5, §11.6;
 * WE's HistoryReplier, BlockAppender.processValidExtensionBlocks, BaseAppender
 * .rollbackDroppedBlocks / sendTransactionsBackToUtx and BlockchainUpdaterImpl
 * .processBlockWithSameParent).
 *
 * Ids peers know are final block ids (the reference of the next block) and, at the top,
 * the liquid block's current id. A key block may reference an intermediate id of our
 * liquid block (a micro-block we hold that is not the last): the liquid block is then cut
 * back to that micro-block before the key block goes on top.
 *
 * Everything here follows peers: the chain changes it makes are announced with the origin
 * `network`. The pool takes back the transactions of dropped blocks on the chain's
 * rollback event (utx.ts) and drops those the new branch holds as its blocks arrive.
 */
import { bytesKey, encodeBase58, equalBytes } from '../crypto/encoding.js';
import type { Block } from '../protocol/blocks.js';

import type { Blockchain } from './blockchain.js';
import { genericError, WeError } from '../errors/catalogue.js';

/** WE's synchronization.max-rollback: locator length and deepest switch to another branch. */
export const DEFAULT_MAX_ROLLBACK = 100;
/** WE's synchronization.max-chain-length: ids after the common one in a Signatures reply. */
export const DEFAULT_MAX_CHAIN_LENGTH = 101;

export interface ForkOptions {
  /** Deepest rollback when switching branch (WE's max-rollback, 100). */
  readonly maxRollback?: number;
  /**
   * Called just before a peer's block is appended: makes the certificates that came with it
   * (P2P 45) part of its commit; returns what takes them back if the block, or the branch it
   * belongs to, is refused after all.
   */
  readonly carryCertificates?: (block: Block) => () => void;
}

/** Takes back, newest first, the certificates carried for blocks that did not stay. */
const takeBackAll = (takeBacks: Array<() => void>): void => {
  for (const takeBack of takeBacks.reverse()) takeBack();
};

/** How this module's chain changes are announced: made for peers; the removed transactions go back to the pool. */
const FOLLOWING_PEERS = { origin: 'network', returnToPool: true } as const;

/** The last up-to-`max` block ids, newest first, the liquid block's current id first. */
export function blockLocator(chain: Blockchain, max: number = DEFAULT_MAX_ROLLBACK): Uint8Array[] {
  const top = chain.height();
  const out: Uint8Array[] = [];
  for (let h = top; h >= 1 && out.length < max; h--) out.push(chain.blockIdAt(h)!);
  return out;
}

/** The ids of the blocks above `height`, up to `max` of them. */
export function blockIdsAfter(chain: Blockchain, height: number, max: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  const top = chain.height();
  for (let h = height + 1; h <= top && out.length < max; h++) out.push(chain.blockIdAt(h)!);
  return out;
}

/** The first id of a peer's locator that is a block of ours. */
export function findCommonBlock(chain: Blockchain, ids: readonly Uint8Array[]): { height: number; id: Uint8Array } | undefined {
  for (const id of ids) {
    const height = chain.heightOfBlock(id);
    if (height !== undefined) return { height, id };
  }
  return undefined;
}

/** The answer to GetSignatures: the common block's id, then up to `maxChainLength` ids after it; undefined without a common block. */
export function signaturesReply(
  chain: Blockchain,
  locator: readonly Uint8Array[],
  maxChainLength: number = DEFAULT_MAX_CHAIN_LENGTH,
): Uint8Array[] | undefined {
  const common = findCommonBlock(chain, locator);
  if (common === undefined) return undefined;
  return [common.id, ...blockIdsAfter(chain, common.height, maxChainLength)];
}

/**
 * Reading a Signatures reply: the last id in it this chain holds, and the ids after it to
 * download. Undefined when none of the ids is ours (the peer answered something else).
 */
export function newBlockIds(chain: Blockchain, ids: readonly Uint8Array[]): { common: { height: number; id: Uint8Array }; unknown: Uint8Array[] } | undefined {
  let last = -1;
  let common: { height: number; id: Uint8Array } | undefined;
  for (let i = 0; i < ids.length; i++) {
    const height = chain.heightOfBlock(ids[i]!);
    if (height === undefined) continue;
    last = i;
    common = { height, id: ids[i]! };
  }
  if (common === undefined) return undefined;
  return { common, unknown: ids.slice(last + 1) };
}

export type ExtensionResult =
  /**
   * The chain switched to (or extended with) the blocks. `returnedToPool`: transactions of
   * the dropped blocks that the new branch does not hold, handed back to the pool (which
   * keeps those still valid).
   */
  | { readonly kind: 'applied'; readonly added: number; readonly removed: number; readonly score: bigint; readonly returnedToPool: number }
  /** Every block is already ours. */
  | { readonly kind: 'known' }
  /** The branch does not beat ours; nothing changed. */
  | { readonly kind: 'not-better'; readonly ours: bigint; readonly theirs: bigint }
  /** Nothing changed: the extension is unusable (unknown reference, broken links, too deep). */
  | { readonly kind: 'rejected'; readonly error: WeError }
  /**
   * A block failed to apply; the dropped blocks were put back (`restored`) — the chain is
   * as before. `block` is the id of the block that failed.
   */
  | { readonly kind: 'failed'; readonly error: WeError; readonly block: Uint8Array; readonly restored: boolean };

/**
 * Applies a peer's extension: the blocks (whole, with their transactions, in order) after
 * a block this chain holds. Blocks already ours at the start are skipped. The rest is taken
 * only if the cumulative score of the resulting chain beats the current one (`force`
 * takes it at equal score, for WE's same-block-more-transactions rule). The chain rolls
 * back to the common block (within max-rollback and the store's rollback depth), appends
 * each block, and on any failure rolls back again and re-appends the dropped blocks, so it
 * is exactly as before. Transactions of dropped blocks that the new chain does not hold go
 * back to the pool through its rollback handling (those now invalid are left out).
 */
export function applyExtension(
  chain: Blockchain,
  blocks: readonly Block[],
  options: ForkOptions & { readonly force?: boolean; readonly replacingTip?: boolean } = {},
): ExtensionResult {
  const maxRollback = options.maxRollback ?? DEFAULT_MAX_ROLLBACK;
  let first = 0;
  while (first < blocks.length && chain.heightOfBlock(blocks[first]!.id) !== undefined) first++;
  const fresh = blocks.slice(first);
  if (fresh.length === 0) return { kind: 'known' };
  for (let i = 1; i < fresh.length; i++) {
    if (!equalBytes(fresh[i]!.reference, fresh[i - 1]!.id)) {
      return {
        kind: 'rejected',
        error: genericError(`Extension block ${fresh[i]!.idBase58} does not reference the block before it ${fresh[i - 1]!.idBase58}`),
      };
    }
  }
  const reference = fresh[0]!.reference;
  const found = chain.blockById(reference);
  if (found === undefined) return { kind: 'rejected', error: genericError(`Extension reference '${encodeBase58(reference)}' not found in the current state`) };
  // A reference to an intermediate id of a block (a micro-block not its last): that block is cut back to it.
  const cut = chain.heightOfBlock(reference) === undefined;
  const commonHeight = cut ? found.height - 1 : found.height;
  const toAppend = cut ? [found.block, ...fresh] : fresh;
  const top = chain.height();
  const removed = top - commonHeight;
  if (removed > maxRollback || (removed > 0 && commonHeight < chain.minRollbackHeight())) {
    return {
      kind: 'rejected',
      error: genericError(
        `Switching to the extension needs a rollback of ${removed} blocks, more than allowed (${Math.min(maxRollback, top - chain.minRollbackHeight())})`,
      ),
    };
  }
  if (removed > 0) {
    // CFT: one block, two while the tip is unfinal (WE's checkExtensionRollback); no limit of its own elsewhere.
    try {
      chain.checkRollbackDepth(removed);
    } catch (e) {
      if (e instanceof WeError) return { kind: 'rejected', error: e };
      throw e;
    }
  }
  const ours = chain.score();
  const theirs = toAppend.reduce((s, b) => s + chain.blockScore(b), chain.scoreAt(commonHeight));
  if (options.replacingTip !== true && (theirs < ours || (theirs === ours && options.force !== true))) return { kind: 'not-better', ours, theirs };

  const dropped = snapshotAbove(chain, commonHeight);
  const droppedTxs = removed > 0 ? chain.rollbackTo(commonHeight, FOLLOWING_PEERS) : [];
  const takeBacks: Array<() => void> = [];
  for (const block of toAppend) {
    try {
      if (options.carryCertificates !== undefined) takeBacks.push(options.carryCertificates(block));
      chain.appendBlock(block, 'network');
    } catch (e) {
      if (!(e instanceof WeError)) throw e;
      // The refused branch leaves no certificates behind, not even with the blocks put back.
      takeBackAll(takeBacks);
      const restored = restore(chain, commonHeight, dropped);
      return { kind: 'failed', error: e, block: block.id, restored };
    }
  }
  const state = chain.state();
  const returnedToPool = droppedTxs.filter((tx) => state.transactionHeight(tx.id) === undefined).length;
  return { kind: 'applied', added: toAppend.length, removed, score: chain.score(), returnedToPool };
}

/** What the chain holds above a height, to put back if a switch fails. */
interface Snapshot {
  /** Final blocks above the common height, below the top. */
  readonly blocks: Block[];
  /** The top: its key block and micro-blocks when they are all known, else the block whole. */
  readonly top: { readonly keyBlock: Block; readonly micros: ReturnType<Blockchain['liquidMicroBlocks']> } | { readonly block: Block } | undefined;
}

function snapshotAbove(chain: Blockchain, height: number): Snapshot {
  const top = chain.height();
  if (top <= height) return { blocks: [], top: undefined };
  const blocks: Block[] = [];
  for (let h = height + 1; h < top; h++) blocks.push(chain.blockAt(h)!);
  const keyBlock = chain.headerAt(top);
  const micros = chain.liquidMicroBlocks();
  const complete =
    micros.length > 0 &&
    equalBytes(micros[0]!.prevLiquidBlockSig, keyBlock.id) &&
    equalBytes(micros[micros.length - 1]!.totalLiquidBlockSig, chain.lastBlock().id);
  return { blocks, top: complete ? { keyBlock, micros: [...micros] } : { block: chain.lastBlock() } };
}

/** Rolls back to `height` and re-appends what was there; false if that failed too (logged by the caller). */
function restore(chain: Blockchain, height: number, s: Snapshot): boolean {
  try {
    if (chain.height() > height) chain.rollbackTo(height, FOLLOWING_PEERS);
    for (const block of s.blocks) chain.appendBlock(block, 'network');
    if (s.top !== undefined) {
      if ('block' in s.top) chain.appendBlock(s.top.block, 'network');
      else {
        chain.appendKeyBlock(s.top.keyBlock, 'network');
        for (const micro of s.top.micros) chain.appendMicroBlock(micro, 'network');
      }
    }
    return true;
  } catch (e) {
    if (!(e instanceof WeError)) throw e;
    return false;
  }
}

export type KeyBlockResult =
  | { readonly kind: 'appended'; readonly height: number }
  /** Switched: replaced a competing key block, or cut our liquid block back to the referenced micro-block. */
  | { readonly kind: 'switched'; readonly height: number; readonly removed: number; readonly returnedToPool: number }
  | { readonly kind: 'known' }
  /** The reference is not a block of ours (yet): a micro-block still on its way, or we are behind. */
  | { readonly kind: 'unknown-reference' }
  /** Not taken: worse than ours, or invalid. */
  | { readonly kind: 'rejected'; readonly error: WeError };

/**
 * A key block broadcast by a peer (§11.5, §2.5): on our tip it is appended; on an earlier
 * micro-block of our liquid block the liquid block is cut back to it first; for the same
 * parent as our liquid block it replaces ours if its block score is higher, or if it is
 * the same block (generator, consensus data, reference, timestamp) with more transactions —
 * under CFT instead exactly when our tip is unfinal and its round is over (the consensus'
 * replacesTip).
 */
export function applyKeyBlock(chain: Blockchain, block: Block, options: ForkOptions = {}): KeyBlockResult {
  if (chain.heightOfBlock(block.id) !== undefined) return { kind: 'known' };
  const tip = chain.lastBlock();
  const top = chain.height();
  if (equalBytes(block.reference, tip.id)) {
    const takeBack = options.carryCertificates?.(block);
    try {
      chain.appendBlock(block, 'network');
      return { kind: 'appended', height: chain.height() };
    } catch (e) {
      takeBack?.();
      if (e instanceof WeError) return { kind: 'rejected', error: e };
      throw e;
    }
  }
  const refHeight = chain.blockById(block.reference)?.height;
  if (refHeight === undefined) return { kind: 'unknown-reference' };
  let force = false;
  let replacingTip = false;
  if (refHeight === top) {
    // An earlier micro-block of our liquid block.
  } else if (refHeight === top - 1 && equalBytes(block.reference, tip.reference)) {
    const ours = chain.headerAt(top);
    // CFT decides by finality instead of scores (WE's blockCanBeReplaced): an unfinal tip gives way from the next round on, a final one never.
    const replaces = chain.replacesTip(block);
    if (replaces === false) {
      return {
        kind: 'rejected',
        error: genericError(`Competitors block '${block.idBase58}' does not replace the last block '${tip.idBase58}': it is final, or its round has not ended`),
      };
    }
    replacingTip = replaces === true;
    if (!replacingTip && chain.blockScore(block) <= chain.blockScore(ours)) {
      if (!sameBlockVersions(block, ours) || block.transactions.length <= tip.transactions.length) {
        return {
          kind: 'rejected',
          error: genericError(
            `Competitors liquid block '${block.idBase58}' with score '${chain.blockScore(block)}' is not better than existing '${tip.idBase58}' with score '${chain.blockScore(ours)}'`,
          ),
        };
      }
      force = true;
    }
  } else {
    return { kind: 'rejected', error: genericError(`Block ${block.idBase58} references a block below the last one (height ${refHeight} of ${top})`) };
  }
  const result = applyExtension(chain, [block], { ...options, force, replacingTip });
  switch (result.kind) {
    case 'applied':
      return { kind: 'switched', height: chain.height(), removed: result.removed, returnedToPool: result.returnedToPool };
    case 'known':
      return { kind: 'known' };
    case 'not-better':
      return { kind: 'rejected', error: genericError(`Block ${block.idBase58} with chain score ${result.theirs} is not better than ours ${result.ours}`) };
    default:
      return { kind: 'rejected', error: result.error };
  }
}

/** WE's areVersionsOfSameBlock: same generator, consensus data, reference and timestamp. */
function sameBlockVersions(a: Block, b: Block): boolean {
  return equalBytes(a.generator, b.generator) && equalBytes(a.reference, b.reference) && a.timestamp === b.timestamp && consensusKey(a) === consensusKey(b);
}

const consensusKey = (block: Block): string =>
  JSON.stringify(block.consensus, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? bytesKey(v) : v));
