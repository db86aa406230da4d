/**
 * Importing a peer's extension (whole blocks after a common block) with verification and
 * apply overlapped: every block's transaction signatures go to the verifier threads as soon
 * as the block is here (ExtensionImport.add, while later batches are still downloading),
 * and each block is applied as soon as its own signatures are checked — block N on the
 * calling thread while the workers verify N+1 and after, instead of verifying the whole
 * extension first and then applying it.
 *
 * Block by block is the same as the whole extension at once only when the extension
 * simply continues this chain's tip: then each block raises the score on its own. An
 * extension that needs a rollback (a fork) is decided by the score of all its blocks, so
 * it waits for all its verdicts and is applied at once, as before. If the chain moves
 * while an import waits (a micro-block or key block appended meanwhile), the blocks not
 * applied yet are decided together in the same way. A block that fails stops the import
 * with the blocks before it kept: each of them raised the score on its own.
 *
 * A download the peer could not finish (it lacked a block) is tried again by sync with a new
 * import made from the one before (`earlier`): the blocks that one got are taken again by
 * id, with their verdicts, instead of being verified anew.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ExtensionResult, PeerChain, PeerPool } from '../chain/peer-chain.js';
import { bytesKey, equalBytes } from '../crypto/encoding.js';
import type { Block } from '../protocol/blocks.js';

interface Received {
  readonly block: Block;
  /** Its transactions' signatures checked. */
  readonly verified: Promise<void>;
}

export class ExtensionImport {
  private readonly blocks: Block[] = [];
  private readonly verified: Promise<void>[] = [];
  /** Every block received by this import and those it was made from, by id. */
  private readonly received: Map<string, Received>;

  constructor(
    private readonly chain: Pick<PeerChain, 'lastBlockId' | 'applyExtension' | 'score'>,
    private readonly pool: Pick<PeerPool, 'preverify'>,
    earlier?: ExtensionImport,
  ) {
    this.received = new Map(earlier?.received);
  }

  /** Blocks in chain order, their signatures sent to the verifier threads now (a block an earlier import received: taken with its verdicts). */
  add(blocks: readonly Block[]): void {
    for (const block of blocks) {
      const key = bytesKey(block.id);
      let received = this.received.get(key);
      if (received === undefined) {
        const verified = this.pool.preverify(block.transactions);
        // Awaited in apply; a download that stops first leaves it unawaited, which is no error.
        verified.catch(() => undefined);
        this.received.set(key, (received = { block, verified }));
      }
      this.blocks.push(received.block);
      this.verified.push(received.verified);
    }
  }

  /** Applies the blocks added, each once its signatures are checked (see the module note). */
  async apply(maxRollback: number): Promise<ExtensionResult> {
    const blocks = this.blocks;
    let added = 0;
    for (let i = 0; i < blocks.length; i++) {
      await this.verified[i];
      if (!equalBytes(blocks[i]!.reference, this.chain.lastBlockId())) {
        // A fork, or the chain moved meanwhile: the rest is decided as one extension.
        await Promise.all(this.verified.slice(i));
        const rest = this.chain.applyExtension(blocks.slice(i), maxRollback);
        return rest.kind === 'applied' ? { ...rest, added: added + rest.added } : added > 0 && rest.kind === 'known' ? this.applied(added) : rest;
      }
      const one = this.chain.applyExtension([blocks[i]!], maxRollback);
      if (one.kind !== 'applied') return one;
      added += one.added;
      // The event loop runs (worker answers, the verifier's next dispatch) between two applied blocks.
      if (i + 1 < blocks.length) await nextTurn();
    }
    return added === 0 ? { kind: 'known' } : this.applied(added);
  }

  private applied(added: number): ExtensionResult {
    return { kind: 'applied', added, removed: 0, score: this.chain.score(), returnedToPool: 0 };
  }
}
