/**
 * CFT consensus (WE 1.14): PoA's rounds, queue and bans (./poa/) plus finality voting —
 * who validates a block, which votes count, when a block is final and what finality
 * allows, the votes a node holds (VoteBook) and what the miner does about them (who votes
 * when, the next key block on a final tip). The pieces live in ./cft/; this module is their
 * public face; the chain's side is CftRules (rules.ts), the P2P side network/vote-messages.ts.
 * The node joins them in node/assembly.ts (the chain's vote book, the miner's CftMining).
 */
export { LcgRandom, signedBigEndian } from './cft/lcg.js';
export { expectedValidators, seedBlockCount, seedBlockIds, type ValidatorCandidates } from './cft/validators.js';
export {
  allowedRollbackDepth,
  canReplaceUnfinalisedTip,
  CFT_RATIO,
  countVotes,
  finalisingVoteCount,
  hasFinalisingVotes,
  isFinalised,
  requireFinalisingVotes,
  requireRollbackDepth,
  tipFinality,
  votingSatisfaction,
  type TipFacts,
  type TipFinality,
  type VoteCount,
} from './cft/finality.js';
export { VoteTally, type VoteOutcome } from './cft/vote-tally.js';
export {
  gatheringEnded,
  inVotingWindow,
  planVoting,
  validatorsAt,
  votingWindow,
  type CftTiming,
  type ValidatorSource,
  type VotingInput,
  type VotingPlan,
  type VotingTip,
  type VotingWindow,
} from './cft/voting.js';
export { planCftKeyBlock, type CftForgingInput, type CftForgingPlan } from './cft/forging.js';
export { DEFAULT_MAX_TALLIES, VoteBook, type VoteListener, type VoteTarget } from './cft/vote-book.js';
