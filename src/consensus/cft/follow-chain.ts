/**
 * Keeps a VoteBook on the block the chain votes on: after every change of the top block (a
 * key block, a micro-block, a rollback) the book follows its voting hash and validators
 * (CftRules.voteTarget). A vote micro-block leaves the voting hash as it was (votes are not
 * part of it), so following again changes nothing then.
 */
import type { Blockchain } from '../../chain/blockchain.js';
import type { CftRules } from '../rules.js';
import type { VoteBook } from './vote-book.js';

/** Follows the chain's top block into the book, now and after each change; returns the function that stops it. */
export function followTopBlock(book: VoteBook, chain: Blockchain, rules: CftRules): () => void {
  const follow = (): void => {
    const target = rules.voteTarget(chain, chain.state());
    if (target !== undefined) book.follow(target);
  };
  follow();
  return chain.on(follow);
}
