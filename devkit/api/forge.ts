/**
 * Growing the chain of a real node in this process (no miner, an injected clock) as its
 * miner would: the owner's next key block at its PoA slot or PoS delay (planKeyBlock /
 * planPosKeyBlock, Block.sign, appendKeyBlock), moving the clock to it; micro-blocks
 * through appendOwnMicroBlock; and transactions signed from request JSON with distinct
 * timestamps just before the clock. Shared by the chain builders of the API tests
 * (seeded-node.ts, accounts-chain.ts, consensus-chains.ts).
 */
import { FEATURE } from '../../src/chain/features.js';
import { planKeyBlock } from '../../src/consensus/poa.js';
import { planPosKeyBlock } from '../../src/consensus/pos.js';
import { PoaRules, poaHeaders, PosRules } from '../../src/consensus/rules.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import type { KeyPair } from '../../src/crypto/suite.js';
import { Block } from '../../src/protocol/blocks.js';
import { Atomic, type AtomicData } from '../../src/protocol/transactions/atomic.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import type { Node } from '../../src/node/node.js';

/** Who signs a transaction: any account with its key pair. */
export interface Signer {
  readonly keyPair: KeyPair;
}

export class Forger {
  private tsCounter = 0n;

  private readonly rules: PoaRules | PosRules;

  constructor(
    readonly node: Node,
    readonly clock: { now: bigint },
  ) {
    const settings = node.config.chain;
    this.rules =
      settings.consensus.type === 'poa'
        ? PoaRules.fromSettings(settings, node.chain.features)
        : PosRules.fromSettings(settings, node.chain.features, node.store);
  }

  /** The next timestamp for a transaction: just before the clock, one more each call. */
  private timestamp(): bigint {
    this.tsCounter++;
    return this.clock.now - 1000n + this.tsCounter;
  }

  /** A transaction from request JSON (`senderPublicKey`, `timestamp`, `proofs` and a data transaction's `authorPublicKey` filled in). */
  tx(signer: Signer, json: Record<string, unknown>): Transaction {
    const p = this.node.protocol;
    const timestamp = this.timestamp();
    const author = json['type'] === 12 ? { authorPublicKey: encodeBase58(signer.keyPair.publicKey) } : {};
    const body = { senderPublicKey: encodeBase58(signer.keyPair.publicKey), timestamp, proofs: [], ...author, ...json };
    return p.sign(p.transactionFromJson(body, { forBroadcast: false }), signer.keyPair.privateKey);
  }

  /** A WEST transfer (version 3, fee 0.01 WEST); `extra` overrides or adds fields. */
  transfer(from: Signer, to: { readonly address: string }, amount: bigint, extra: Record<string, unknown> = {}): Transaction {
    return this.tx(from, { type: 4, version: 3, recipient: to.address, amount, fee: 1_000_000n, attachment: '', ...extra });
  }

  /** An atomic container of `inner`, signed by `sender`. */
  atomic(sender: Signer, inner: Transaction[]): Transaction {
    const p = this.node.protocol;
    const tx = p.transaction<AtomicData>(Atomic, 1, {
      senderPublicKey: sender.keyPair.publicKey,
      miner: null,
      transactions: inner,
      timestamp: this.timestamp(),
    });
    return p.sign(tx, sender.keyPair.privateKey);
  }

  /** The node owner's next key block with these feature votes: waits (moves the clock) for its slot. */
  keyBlock(featureVotes: readonly number[] = []): Block {
    const { chain, owner, protocol } = this.node;
    const sign = (timestamp: bigint, consensus: Block['consensus']): Block =>
      Block.sign(
        protocol,
        { version: 3, timestamp, reference: chain.lastBlock().id, consensus, transactions: [], featureVotes: [...featureVotes], genesisData: null },
        owner.privateKey,
      );
    for (let guard = 0; guard < 100; guard++) {
      let block: Block | undefined;
      if (this.rules instanceof PoaRules) {
        const self = protocol.addresses.fromPublicKey(owner.publicKey).bytes;
        const plan = planKeyBlock(this.rules.poa, { state: chain.state(), chain: poaHeaders(chain), now: this.clock.now, self });
        if (plan.kind === 'forge') block = sign(plan.timestamp, { type: 'poa', overallSkippedRounds: plan.overallSkippedRounds });
        else this.clock.now = plan.kind === 'wait' ? plan.at : plan.retryAt;
      } else {
        const plan = planPosKeyBlock(this.rules.pos, { state: chain.state(), chain, now: this.clock.now, publicKey: owner.publicKey });
        if (plan.kind === 'idle') throw new Error(plan.reason);
        if (plan.kind === 'forge') block = sign(plan.timestamp, plan.consensus);
        else this.clock.now = plan.at;
      }
      if (block !== undefined) {
        chain.appendKeyBlock(block);
        return block;
      }
    }
    throw new Error('no slot for the node owner');
  }

  /** One micro-block of the owner's, 300 ms on, holding all of `txs` (fails listing any the chain refused). */
  microBlock(txs: Transaction[]): void {
    const { chain, owner } = this.node;
    this.clock.now += 300n;
    const build = chain.appendOwnMicroBlock(
      txs,
      { maxTransactions: 255, maxBlockBytes: 1 << 20 },
      owner.privateKey,
      chain.features.isActive(FEATURE.PARALLEL_LIQUID_BLOCK, chain.height()),
    );
    if (build.rejected.length > 0 || build.included.length !== txs.length) {
      throw new Error(`the chain refused ${build.rejected.map((r) => `${r.tx.type}: ${r.error.message}`).join('; ')}`);
    }
  }
}
