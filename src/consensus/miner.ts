/**
 * The miner loop. PoA: forges this node's key blocks in its own rounds (other miners'
 * rounds are skipped when they do not produce), then fills its key block with
 * micro-blocks from the pool every `micro-block-interval` until its round's sync part —
 * sooner when the pool holds a full micro-block. PoS: forges once its delay since the tip
 * has passed (pos/miner.ts), then fills its key block with micro-blocks the same way until
 * another key block comes.
 *
 * CFT: PoA's schedule, a key block only on a final tip (cft/forging.ts: an unfinal tip is
 * dropped after `finalization-timeout`), and the tip's finality voting (cft/voting.ts): from
 * the sync part of the tip's round this node signs a vote for the liquid block when it is one
 * of the tip's validators, or — when it mined the tip — gathers its validators' votes and
 * appends them as one vote micro-block.
 *
 * Key blocks carry this node's feature votes: the supported features (WE's
 * `features.auto-support-implemented-features` / `features.supported`) that are neither
 * pre-activated nor approved yet, at most 64.
 */
import type { Blockchain, PreparedMicroBlock } from '../chain/blockchain.js';
import { FEATURE, featuresToVote, SUPPORT_ALL_IMPLEMENTED, type FeatureSupport } from '../chain/features.js';
import type { MinerSettings } from '../chain/settings.js';
import type { UtxPool } from '../chain/utx.js';
import type { KeyPair } from '../crypto/suite.js';
import { Block } from '../protocol/blocks.js';
import { Vote, type ConsensusData } from '../protocol/blocks/consensus.js';
import { equalBytes } from '../protocol/bytes.js';
import { microBlockWindow, planKeyBlock, type PoaConsensus } from './poa.js';
import { planPosKeyBlock } from './pos.js';
import { poaHeaders, type PosRules } from './rules.js';
import { gatheringEnded, inVotingWindow, planCftKeyBlock, planVoting, validatorsAt, votingWindow, type CftTiming, type VotingWindow } from './cft.js';
import { bytesKey } from '../crypto/encoding.js';
import { WeError } from '../errors/catalogue.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import { isExecutableContract, type ExecutableContractTransaction } from '../protocol/transactions/contracts.js';

export interface MinerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

/**
 * Runs the pool's executable contract transactions (103, 104, 107) for this node's
 * micro-blocks (contracts/mining.ts). Without it the node mines none of them: they stay
 * in the pool for a miner that runs contracts, as on a WE node without docker-engine.
 */
export interface MicroBlockContracts {
  /**
   * The ExecutedContract (105) transactions for `candidates`, in order, executed on the
   * current liquid block. No further candidate is started once `stop()` holds (the next
   * micro-block is due): the 105s so far are returned, the rest waits for the next round.
   */
  execute(candidates: readonly ExecutableContractTransaction[], stop?: () => boolean): Promise<Transaction[]>;
  /** Told what each of this node's micro-blocks included. */
  mined(included: readonly Transaction[]): void;
}

/** The pool's transactions this node mines without a contract engine's round. */
function ordinaryCount(pooled: readonly Transaction[]): number {
  let n = 0;
  for (const tx of pooled) if (!isExecutableContract(tx)) n++;
  return n;
}

/** A micro-block's candidates: the executed 105s first, then the pool's other transactions in its order. */
function* candidates(executed: readonly Transaction[], pooled: readonly Transaction[]): Generator<Transaction> {
  yield* executed;
  for (const tx of pooled) if (!isExecutableContract(tx)) yield tx;
}

/** A micro-block prepared for the next turn, with what the miner knew when it prepared it. */
interface PreparedOwnMicroBlock {
  readonly build: PreparedMicroBlock;
  readonly keyBlockId: Uint8Array;
  /** The transactions the pool offered. */
  readonly pending: number;
}

/** A duration for the log, to 0.1 ms. */
const round = (ms: number): number => Math.round(ms * 10) / 10;

/**
 * The longest a micro-block's candidates are validated in one event-loop turn, in ms, and the
 * longest its commit is expected to take in a later turn (estimated from this node's previous
 * micro-blocks; signing, which grows with the liquid block, has a turn of its own). What does not fit goes into the next micro-block, built right
 * after the event loop had a turn (REST, peers): building never holds the loop much longer
 * than this, however full the pool is.
 */
export const MICRO_BLOCK_BUILD_BUDGET_MS = 20;

/** The votes this node holds for liquid blocks (the CFT VoteBook). */
export interface VoteSource {
  /** Takes a vote (this node's own, here). */
  offer(vote: Vote): unknown;
  /** The votes held for the block with this voting hash. */
  votesFor(votingHash: Uint8Array): readonly Vote[];
  /** Calls `listener` with each vote newly held; returns the function that stops it. */
  subscribe(listener: (vote: Vote) => void): () => void;
}

/** What a CFT miner needs beyond PoA's. */
export interface CftMining {
  readonly settings: CftTiming & { readonly maxValidators: number };
  readonly votes: VoteSource;
  /** Sends this node's vote to its peers (P2P message 33). */
  broadcastVote(vote: Vote): void;
  /**
   * Appends this node's vote micro-block with `votes` on its liquid block, signed with the
   * owner key (Blockchain.appendOwnVoteMicroBlock); the chain's micro-block event announces
   * it to peers as it does a tx micro-block.
   */
  appendVoteMicroBlock(votes: readonly Vote[]): void;
}

/** PoA's or CFT's rules (their PoA consensus), or PoS's. */
export type MinerRules = { readonly poa: PoaConsensus } | PosRules;

/** One round's voting on the tip (the key block with this id). */
interface VotingRound {
  readonly keyBlockId: Uint8Array;
  readonly window: VotingWindow;
  /** The tip's validators, computed at the round's first attempt. */
  validators?: readonly Uint8Array[];
  /** The voting hash this node last voted for. */
  votedFor?: Uint8Array;
  /** Nothing left to do in this round (the vote micro-block built, or the window closed). */
  done: boolean;
}

export interface MinerOptions {
  readonly chain: Blockchain;
  readonly pool: UtxPool;
  readonly rules: MinerRules;
  /** CFT: votes and the vote micro-block; with it the miner runs CFT over `rules.poa`. */
  readonly cft?: CftMining;
  readonly settings: MinerSettings;
  /** Which features this node votes for; every implemented one by default. */
  readonly featureSupport?: FeatureSupport;
  /** PoS: the least wait before an attempt (WE's miner.minimal-block-generation-offset, 200 ms). */
  readonly minimalBlockGenerationOffsetMs?: number;
  /** WE's miner.interval-after-last-block-then-generation-is-allowed: no forging on an older tip (not checked when omitted). */
  readonly maxTipAgeMs?: number;
  readonly keyPair: KeyPair;
  readonly now: () => bigint;
  readonly log: MinerLog;
  /**
   * Asked before a key block is forged in this node's slot: a reason not to forge now and when
   * to look again (WE's `miner.quorum` of connected miner peers, and no forging while the node
   * catches up from a peer), or undefined to forge. Without it the miner always forges.
   */
  readonly canForge?: () => { readonly reason: string; readonly retryInMs: number } | undefined;
  /** Contract execution; absent when the node runs no contract engine. */
  readonly contracts?: MicroBlockContracts;
}

export class Miner {
  private readonly o: MinerOptions;
  private readonly address: Uint8Array;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private lastMicroAt = 0n;
  /** A contract execution round is running. */
  private executing = false;
  /** No execution round before this time (ms): a round that mined nothing waits a micro-block interval (WE retries per micro-block). */
  private nextExecutionAt = 0n;
  /** 105s executed on the key block with this id, waiting for the next micro-block. */
  private executed: { keyBlockId: Uint8Array; transactions: Transaction[] } | undefined;
  /** How often the loop looks at the pool while it may add micro-blocks. */
  private readonly pollMs: number;
  /**
   * Set while this node may add micro-blocks to its key block: the transactions the pool
   * offered at the last look, and how many arrived since (see wake).
   */
  private window: { pending: number; arrived: number } | undefined;
  /** The last micro-block stopped at the build budget with candidates left: the next one is due at once. */
  private cutShort = false;
  /** The commit turn's time per transaction of this node's recent micro-blocks, in ms (a moving average; 0 before the first). */
  private commitMsPerTransaction = 0;
  /** A micro-block prepared in this turn, signed in the next one and committed in the one after. */
  private prepared: PreparedOwnMicroBlock | undefined;
  /** CFT: the current round's voting. */
  private voting: VotingRound | undefined;
  /** CFT: how often the tip's miner looks at the votes while it gathers them (WE: micro-block-interval / 10 within [100 ms, 500 ms]). */
  private readonly gatherPollMs: number;
  /** CFT: stops following the chain's changes and the new votes. */
  private unfollow: (() => void) | undefined;

  constructor(o: MinerOptions) {
    this.o = o;
    this.address = o.chain.protocol.addresses.fromPublicKey(o.keyPair.publicKey).bytes;
    this.pollMs = Math.max(20, Math.min(500, Math.floor(o.settings.microBlockIntervalMs / 10)));
    this.gatherPollMs = Math.max(100, Math.min(500, Math.floor(o.settings.microBlockIntervalMs / 10)));
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    const cft = this.o.cft;
    if (cft !== undefined) {
      // A changed liquid block is voted for again, a vote may end the gathering, a final tip lets the next key block come.
      const offChain = this.o.chain.on(() => this.schedule(0));
      const offVotes = cft.votes.subscribe(() => this.schedule(0));
      this.unfollow = () => {
        offChain();
        offVotes();
      };
    }
    this.schedule(0);
  }

  stop(): void {
    this.running = false;
    this.unfollow?.();
    this.unfollow = undefined;
    this.prepared = undefined;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * A transaction arrived in the pool: the miner looks again now when that can change what
   * it does — while it may add micro-blocks to its key block, the first transaction in an
   * empty pool, or the one that fills a micro-block. Otherwise nothing changes (the next key
   * block's time does not depend on the pool), so a broadcast costs the miner nothing.
   */
  wake(): void {
    if (!this.running || this.window === undefined) return;
    this.window.arrived++;
    const { pending, arrived } = this.window;
    if ((pending === 0 && arrived === 1) || pending + arrived === this.o.settings.maxTransactionsInMicroBlock) this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), Math.max(0, delayMs));
  }

  private tick(): void {
    this.timer = undefined;
    this.window = undefined;
    let next = 1000;
    try {
      if (this.prepared !== undefined) next = this.finishMicroBlock(this.prepared);
      else {
        // A vote micro-block takes the turn: no tx micro-block is prepared on the liquid block it replaces.
        const voting = this.tryVoting();
        next = voting === 0 ? 0 : Math.min(voting, this.tryMicroBlock(), this.tryKeyBlock());
      }
    } catch (e) {
      this.o.log.error({ err: e }, 'mining attempt failed');
    }
    this.schedule(next);
  }

  /**
   * Prepares a micro-block for this node's current key block when due (validated and applied
   * in memory, see Blockchain.prepareOwnMicroBlock); it is signed and committed in the next
   * turns (finishMicroBlock), so the event loop serves REST and peers in between.
   * Returns ms until the next look.
   */
  private tryMicroBlock(): number {
    const { chain, pool, rules, settings } = this.o;
    const height = chain.height();
    if (height < 2) return Number.MAX_SAFE_INTEGER;
    const keyBlock = chain.headerAt(height);
    if (!equalBytes(keyBlock.generator, this.o.keyPair.publicKey)) return Number.MAX_SAFE_INTEGER;
    const now = this.o.now();
    // PoA: only inside the key block's round before its sync part; PoS: until the next key block.
    if ('poa' in rules && !microBlockWindow(rules.poa, keyBlock.timestamp, now).allowed) return Number.MAX_SAFE_INTEGER;
    this.startExecution(keyBlock.id);
    const executed = this.executed !== undefined && equalBytes(this.executed.keyBlockId, keyBlock.id) ? this.executed.transactions : [];
    const pending = executed.length + ordinaryCount(pool.all());
    this.window = { pending, arrived: 0 };
    if (pending === 0) return this.pollMs;
    const due = this.cutShort || now - this.lastMicroAt >= BigInt(settings.microBlockIntervalMs) || pending >= settings.maxTransactionsInMicroBlock;
    if (!due) return Math.max(1, Number(BigInt(settings.microBlockIntervalMs) - (now - this.lastMicroAt)));
    this.executed = undefined;
    // The 105s first: they apply on the state they were executed on.
    const build = chain.prepareOwnMicroBlock(
      candidates(executed, pool.all()),
      {
        maxTransactions: settings.maxTransactionsInMicroBlock,
        maxBlockBytes: settings.maxBlockSizeInBytes,
        deadline: performance.now() + MICRO_BLOCK_BUILD_BUDGET_MS,
        commitMsPerTransaction: this.commitMsPerTransaction,
        commitBudgetMs: MICRO_BLOCK_BUILD_BUDGET_MS,
      },
      this.o.keyPair.privateKey,
    );
    for (const { tx, error } of build.rejected) {
      pool.remove(tx.id);
      this.o.log.debug({ id: tx.idBase58, error: error.message }, 'transaction dropped from the pool');
    }
    this.lastMicroAt = now;
    if (build.included.length === 0) return this.nextMicroBlockIn(build.outOfTime);
    this.window = undefined;
    this.prepared = { build, keyBlockId: keyBlock.id, pending };
    return 0;
  }

  /**
   * The micro-block prepared in an earlier turn: signed in one turn (signing hashes the whole
   * liquid block), committed in the next. Returns ms until the next look.
   */
  private finishMicroBlock(prepared: PreparedOwnMicroBlock): number {
    const { chain } = this.o;
    const { build: ready, keyBlockId, pending } = prepared;
    if (ready.signed === undefined) {
      const signed = chain.signOwnMicroBlock(ready, chain.features.isActive(FEATURE.PARALLEL_LIQUID_BLOCK, ready.height));
      if (signed.signed !== undefined) {
        this.prepared = { ...prepared, build: signed };
        return 0;
      }
    }
    this.prepared = undefined;
    if (this.lateForVotes(ready.height)) {
      // CFT: the validators began voting on the liquid block at the sync start; a micro-block committed now would
      // change what they voted for and void their first votes. Its transactions stay in the pool for the next block.
      this.o.log.debug({ height: ready.height, transactions: ready.included.length }, 'prepared micro-block dropped: the voting has begun');
      return 0;
    }
    const started = performance.now();
    const build = chain.commitOwnMicroBlock(ready, chain.features.isActive(FEATURE.PARALLEL_LIQUID_BLOCK, ready.height));
    // The whole turn: the store's commit and what the chain's listeners do with the micro-block.
    const turnMs = performance.now() - started;
    if (build.microBlock === undefined) {
      // The chain changed between the turns: its transactions are still in the pool for the next look.
      this.o.log.debug({ height: ready.height, transactions: ready.included.length }, 'prepared micro-block dropped: the chain changed');
      return 0;
    }
    this.learnCommitCost(turnMs, build.included.length);
    this.o.contracts?.mined(build.included);
    // What a micro-block costs and whether the pool keeps up: `pool` is what it held before.
    this.o.log.debug(
      {
        height: ready.height,
        transactions: build.included.length,
        pool: pending,
        outOfTime: build.outOfTime,
        applyMs: round(ready.appliedMs),
        signMs: round(ready.signed?.signMs ?? 0),
        commitTurnMs: round(turnMs),
        storeMs: round(build.timing.commitSeconds * 1000),
        id: build.microBlock.idBase58,
      },
      'micro-block',
    );
    // The next round executes on the new liquid block while the micro-block interval runs.
    this.startExecution(keyBlockId);
    return this.nextMicroBlockIn(build.outOfTime);
  }

  /** CFT: whether the key block at `height` has reached its sync part, where its validators vote on the liquid block as it stands. */
  private lateForVotes(height: number): boolean {
    const { chain, rules, cft } = this.o;
    if (cft === undefined || !('poa' in rules) || chain.height() !== height) return false;
    return !microBlockWindow(rules.poa, chain.headerAt(height).timestamp, this.o.now()).allowed;
  }

  /**
   * The commit turn's time per transaction (the store's commit and the chain's listeners),
   * learnt from micro-blocks big enough for it to show over the fixed part; one slow turn (a
   * collection, the disk) counts at most twice the estimate.
   */
  private learnCommitCost(ms: number, transactions: number): void {
    if (transactions < 64) return;
    const learnt = this.commitMsPerTransaction;
    const perTransaction = learnt === 0 ? ms / transactions : Math.min(ms / transactions, 2 * learnt);
    this.commitMsPerTransaction = learnt === 0 ? perTransaction : 0.7 * learnt + 0.3 * perTransaction;
  }

  /** After a micro-block (or an attempt that took nothing): ms until the next one may be due. */
  private nextMicroBlockIn(outOfTime: boolean): number {
    const { pool, settings } = this.o;
    const waiting = ordinaryCount(pool.all());
    this.window = { pending: waiting, arrived: 0 };
    // A full micro-block waiting, or one cut short by the build budget: the next one right after this event-loop turn.
    this.cutShort = outOfTime && waiting > 0;
    return waiting >= settings.maxTransactionsInMicroBlock || this.cutShort ? 0 : settings.microBlockIntervalMs;
  }

  /** Starts a contract execution round over the pool's executable transactions, unless one runs or its 105s wait to be mined. */
  private startExecution(keyBlockId: Uint8Array): void {
    const contracts = this.o.contracts;
    if (contracts === undefined || this.executing || this.o.now() < this.nextExecutionAt) return;
    if (this.executed !== undefined && equalBytes(this.executed.keyBlockId, keyBlockId)) return;
    const batch = this.o.pool.all().filter(isExecutableContract).slice(0, this.o.settings.maxTransactionsInMicroBlock);
    if (batch.length === 0) return;
    this.executing = true;
    // A round ends when the micro-block is due (or the key block changed): what it executed
    // goes into that micro-block instead of waiting for the whole batch, and is not lost to a new key block.
    const dueAt = (this.lastMicroAt > this.o.now() ? this.lastMicroAt : this.o.now()) + BigInt(this.o.settings.microBlockIntervalMs);
    const stop = (): boolean => this.o.now() >= dueAt || !equalBytes(this.o.chain.headerAt(this.o.chain.height()).id, keyBlockId);
    contracts
      .execute(batch, stop)
      .then(
        (transactions) => {
          if (transactions.length > 0) this.executed = { keyBlockId, transactions };
          // Transactions left for another try (a recoverable error, a contract still starting) wait for the next micro-block.
          else this.nextExecutionAt = this.o.now() + BigInt(this.o.settings.microBlockIntervalMs);
        },
        (e: unknown) => this.o.log.error({ err: e }, 'contract execution failed'),
      )
      .finally(() => {
        this.executing = false;
        this.schedule(0);
      });
  }

  /** Forges a key block when this node's slot has come; returns ms until the next look. */
  private tryKeyBlock(): number {
    const { chain, rules } = this.o;
    const now = this.o.now();
    let forged: { height: number; timestamp: bigint; consensus: ConsensusData; detail: object };
    if ('poa' in rules) {
      const input = {
        state: chain.state(),
        chain: poaHeaders(chain),
        now,
        self: this.address,
        ...(this.o.maxTipAgeMs === undefined ? {} : { maxTipAgeMs: this.o.maxTipAgeMs }),
      };
      const cft = this.o.cft;
      const plan =
        cft === undefined
          ? planKeyBlock(rules.poa, input)
          : planCftKeyBlock(rules.poa, { ...input, tip: chain.lastBlock(), finalizationTimeoutMs: cft.settings.finalizationTimeoutMs });
      if (plan.kind === 'idle') return Math.max(this.pollMs, Number(plan.retryAt - now));
      if (plan.kind === 'wait') return Math.max(0, Number(plan.at - now));
      if (plan.kind === 'await-finality' || plan.kind === 'drop-tip') {
        // WE checks the quorum (and that the node is not catching up) before the tip's finality.
        const blocked = this.o.canForge?.();
        if (blocked !== undefined) return Math.max(this.pollMs, blocked.retryInMs);
        if (plan.kind === 'drop-tip') {
          this.dropUnfinalTip(plan.reason);
          return 0;
        }
        this.o.log.debug({ height: chain.height() + 1, reason: plan.reason }, 'no key block forged');
        return Math.max(1, Number(plan.retryAt - now));
      }
      forged = {
        height: plan.height,
        timestamp: plan.timestamp,
        consensus:
          cft === undefined
            ? { type: 'poa', overallSkippedRounds: plan.overallSkippedRounds }
            : { type: 'cft', votes: [], overallSkippedRounds: plan.overallSkippedRounds },
        detail: { skippedRounds: plan.skippedRounds },
      };
    } else {
      const plan = planPosKeyBlock(rules.pos, {
        state: chain.state(),
        chain,
        now,
        publicKey: this.o.keyPair.publicKey,
        ...(this.o.maxTipAgeMs === undefined ? {} : { maxTipAgeMs: this.o.maxTipAgeMs }),
      });
      const offset = this.o.minimalBlockGenerationOffsetMs ?? 200;
      if (plan.kind === 'idle') {
        this.o.log.debug({ reason: plan.reason }, 'no key block forged');
        return Math.max(this.pollMs, 1000);
      }
      if (plan.kind === 'wait') return Math.max(offset, Number(plan.at - now));
      forged = { height: plan.height, timestamp: plan.timestamp, consensus: plan.consensus, detail: { delay: plan.delay, balance: plan.balance } };
    }
    const height = forged.height;
    const blocked = this.o.canForge?.();
    if (blocked !== undefined) {
      this.o.log.debug({ height, reason: blocked.reason }, 'no key block forged');
      return Math.max(this.pollMs, blocked.retryInMs);
    }
    const block = Block.sign(
      chain.protocol,
      {
        version: 3,
        timestamp: forged.timestamp,
        reference: chain.lastBlock().id,
        consensus: forged.consensus,
        transactions: [],
        featureVotes: this.featureVotes(),
        genesisData: null,
      },
      this.o.keyPair.privateKey,
    );
    const appending = performance.now();
    try {
      chain.appendKeyBlock(block);
    } catch (e) {
      if (e instanceof WeError) {
        this.o.log.warn({ height, error: e.message }, 'own key block refused');
        return this.pollMs;
      }
      throw e;
    }
    this.lastMicroAt = 0n;
    this.cutShort = false;
    this.o.log.info({ height, id: block.idBase58, ...forged.detail, appendMs: round(performance.now() - appending) }, 'key block forged');
    return 0;
  }

  /** WE's discardNg: the unfinal liquid block rolled back, its transactions back to the pool. */
  private dropUnfinalTip(reason: string): void {
    const { chain } = this.o;
    const height = chain.height();
    const dropped = chain.lastBlock().idBase58;
    this.prepared = undefined;
    const returned = chain.rollbackTo(height - 1, { origin: 'local', returnToPool: true });
    this.o.log.warn({ height, id: dropped, returned: returned.length, reason }, 'unfinal tip dropped');
  }

  /**
   * CFT: this node's part in the tip's finality (cft/voting.ts): a vote for the liquid block
   * when it is a validator, the vote micro-block when it mined the tip. Returns ms until the
   * next look — 0 when it appended a vote micro-block.
   */
  private tryVoting(): number {
    const { chain, cft, rules } = this.o;
    if (cft === undefined || !('poa' in rules)) return Number.MAX_SAFE_INTEGER;
    const height = chain.height();
    const keyBlock = chain.headerAt(height);
    if (this.voting === undefined || !equalBytes(this.voting.keyBlockId, keyBlock.id)) {
      this.voting = { keyBlockId: keyBlock.id, window: votingWindow(rules.poa.rounds.timestamps(keyBlock.timestamp), cft.settings), done: false };
    }
    const round = this.voting;
    if (round.done) return Number.MAX_SAFE_INTEGER;
    const tip = chain.lastBlock();
    const miner = chain.protocol.addresses.fromPublicKey(keyBlock.generator).bytes;
    const now = this.o.now();
    const plan = planVoting({
      window: round.window,
      now,
      tip: { height, votingHash: tip.votingHash, miner },
      self: this.address,
      votedFor: round.votedFor,
      validators: () =>
        (round.validators ??= validatorsAt(
          {
            state: chain.state(),
            maxValidators: cft.settings.maxValidators,
            blockIdAt: (h) => chain.blockIdAt(h),
            fastHash: (d) => chain.protocol.crypto.fastHash(d),
          },
          { height, reference: keyBlock.reference, miner },
          now,
        )),
    });
    switch (plan.kind) {
      case 'wait':
        return Math.max(1, Number(plan.at - now));
      case 'over':
        round.done = true;
        this.o.log.debug({ height, reason: plan.reason }, 'no voting');
        return Number.MAX_SAFE_INTEGER;
      case 'watch':
        // The chain's next change wakes the miner (start()).
        return Number.MAX_SAFE_INTEGER;
      case 'vote': {
        const vote = Vote.sign(chain.protocol, this.o.keyPair.privateKey, tip.votingHash);
        round.votedFor = tip.votingHash;
        cft.votes.offer(vote);
        cft.broadcastVote(vote);
        this.o.log.debug({ height, id: tip.idBase58 }, 'vote sent');
        return Number.MAX_SAFE_INTEGER;
      }
      case 'collect': {
        const validators = new Set(plan.validators.map(bytesKey));
        // One vote per validator, the last held (WE's map by sender).
        const held = new Map<string, Vote>();
        for (const vote of cft.votes.votesFor(tip.votingHash)) {
          const sender = bytesKey(chain.protocol.addresses.fromPublicKey(vote.sender).bytes);
          if (validators.has(sender)) held.set(sender, vote);
        }
        if (!gatheringEnded(round.window, now, held.size, validators.size)) return Math.max(1, Math.min(this.gatherPollMs, Number(plan.until - now) + 1));
        if (!inVotingWindow(round.window, now)) {
          round.done = true;
          return Number.MAX_SAFE_INTEGER;
        }
        // A refusal throws before `done`: the next look tries again while the window is open (WE's voting loop retries).
        cft.appendVoteMicroBlock([...held.values()]);
        round.done = true;
        this.o.log.info({ height, votes: held.size, validators: validators.size }, 'vote micro-block appended');
        return 0;
      }
    }
  }

  /** What this node votes for: supported features not pre-activated nor approved (WE's MinerBase.blockFeatures). */
  featureVotes(): number[] {
    const { chain } = this.o;
    return featuresToVote(this.o.featureSupport ?? SUPPORT_ALL_IMPLEMENTED, chain.settings.functionality, chain.state().approvedFeatures());
  }
}
