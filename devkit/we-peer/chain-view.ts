/**
 * What the WE peer knows of the chain: the final blocks, the current key block with the liquid
 * blocks its micro-blocks made, and whose PoA turn a round is. The PoA rules are WE's
 * (consensus/PoALikeConsensus.scala, PoAConsensus.scala, MinerQueue), written here again
 * rather than taken from Weft's src/consensus, so that a Weft scheduling bug shows as a
 * disagreement; block and micro-block bytes and signatures come from src/protocol.
 */
import { Block } from '../../src/protocol/blocks/block.js';
import { applyMicroBlock, type MicroBlock } from '../../src/protocol/blocks/micro-block.js';
import type { GenesisSettings } from '../../src/protocol/blocks/genesis-block.js';
import type { Protocol } from '../../src/protocol/protocol.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

export interface PoaTiming {
  readonly genesisTimestamp: bigint;
  readonly roundMs: bigint;
  readonly syncMs: bigint;
}

/**
 * The PoA miner queue of a plain genesis (no later permission changes): GenesisPermit
 * timestamps are block timestamp −1, −2, … in participant and role order, and the queue is
 * ordered by the miner permission's timestamp, ascending (MinerQueue).
 */
export function genesisMinerQueue(p: Protocol, genesis: GenesisSettings): Uint8Array[] {
  let offset = 0n;
  const miners: Array<{ address: Uint8Array; ts: bigint }> = [];
  for (const participant of genesis.networkParticipants) {
    for (const role of participant.roles) {
      offset += 1n;
      if (role === 'miner') miners.push({ address: p.addresses.fromPublicKey(participant.publicKey).bytes, ts: genesis.blockTimestamp - offset });
    }
  }
  return miners.sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0)).map((m) => m.address);
}

/** PoA/CFT block score (PoALikeConsensus.calculateBlockScore): ⌈2^64 / (99 + s) + ((ts/1e3) mod 1e4) · (ts/1e10)⌉. */
export function poaBlockScore(overallSkippedRounds: bigint, timestamp: bigint): bigint {
  const d = 99n + overallSkippedRounds;
  const q = (1n << 64n) / d;
  const r = (1n << 64n) % d;
  const ts = Number(timestamp);
  const extra = ((ts / 1e3) % 1e4) * (ts / 1e10);
  const whole = BigInt(Math.floor(extra));
  const frac = extra - Math.floor(extra) + Number(r) / Number(d);
  return q + whole + BigInt(Math.ceil(frac));
}

export class WeChainView {
  /** Final blocks, genesis first (height = index + 1). */
  readonly blocks: Block[];
  /** Liquid versions of the top block: [key block, after micro 1, …]. */
  liquids: Block[] = [];
  micros: MicroBlock[] = [];
  private readonly scores: bigint[];
  private readonly byId = new Map<string, Block>();
  private readonly microById = new Map<string, MicroBlock>();

  constructor(
    readonly protocol: Protocol,
    genesis: Block,
    readonly timing: PoaTiming,
    readonly minerQueue: readonly Uint8Array[],
  ) {
    this.blocks = [genesis];
    this.scores = [poaBlockScore(overallSkipped(genesis), genesis.timestamp)];
    this.byId.set(hex(genesis.id), genesis);
  }

  /** Height of the top (liquid) block. */
  get height(): number {
    return this.blocks.length + (this.liquids.length > 0 ? 1 : 0);
  }

  get tip(): Block {
    return this.liquids[this.liquids.length - 1] ?? this.blocks[this.blocks.length - 1]!;
  }

  get keyBlock(): Block | undefined {
    return this.liquids[0];
  }

  score(): bigint {
    const final = this.scores[this.scores.length - 1]!;
    const key = this.keyBlock;
    return key === undefined ? final : final + poaBlockScore(overallSkipped(key), key.timestamp);
  }

  block(id: Uint8Array): Block | undefined {
    return this.byId.get(hex(id));
  }

  microBlock(totalSig: Uint8Array): MicroBlock | undefined {
    return this.microById.get(hex(totalSig));
  }

  knows(id: Uint8Array): boolean {
    return this.byId.has(hex(id));
  }

  /** Ids newest first, the liquid tip first (GetSignatures; the last 100 as WE sends). */
  lastIds(count = 100): Uint8Array[] {
    const ids = [this.tip.id, ...this.blocks.map((b) => b.id).reverse()];
    return ids.slice(0, count);
  }

  /** The ids after `known` (a final block or the tip), as Signatures lists them: the common id first. */
  idsAfter(known: Uint8Array, max = 101): Uint8Array[] | undefined {
    const k = hex(known);
    const chain = [...this.blocks, ...(this.liquids.length > 0 ? [this.tip] : [])];
    const at = chain.findIndex((b) => hex(b.id) === k);
    if (at < 0) return undefined;
    return chain.slice(at, at + 1 + max).map((b) => b.id);
  }

  /**
   * Takes a key block (or a whole block from history): it must reference the tip or an
   * earlier liquid version of the top block (then that version becomes final). Returns false
   * for a block that does not continue this chain (the caller syncs).
   */
  appendBlock(block: Block): boolean {
    if (this.knows(block.id)) return true;
    if (!block.hasValidSignature()) throw new Error(`block ${hex(block.id).slice(0, 16)}… has an invalid signature`);
    const ref = hex(block.reference);
    const liquidAt = this.liquids.findIndex((l) => hex(l.id) === ref);
    if (liquidAt >= 0) {
      const final = this.liquids[liquidAt]!;
      const key = this.liquids[0]!;
      this.blocks.push(final);
      this.scores.push(this.scores[this.scores.length - 1]! + poaBlockScore(overallSkipped(key), key.timestamp));
      for (const stale of this.liquids.slice(liquidAt + 1)) this.byId.delete(hex(stale.id));
    } else if (!(this.liquids.length === 0 && ref === hex(this.blocks[this.blocks.length - 1]!.id))) return false;
    this.liquids = [block];
    this.micros = [];
    this.byId.set(hex(block.id), block);
    return true;
  }

  /** Applies a micro-block on the tip (src/protocol checks both signatures); throws if it does not fit. */
  appendMicroBlock(micro: MicroBlock): Block {
    const liquid = applyMicroBlock(this.tip, micro, { firstMicroBlock: this.micros.length === 0 });
    this.liquids.push(liquid);
    this.micros.push(micro);
    this.byId.set(hex(liquid.id), liquid);
    this.microById.set(hex(micro.totalLiquidBlockSig), micro);
    return liquid;
  }

  /** Keeps a micro-block this peer produced itself (already applied by produceMicroBlock's caller). */
  appendOwnMicroBlock(micro: MicroBlock, liquid: Block): void {
    this.liquids.push(liquid);
    this.micros.push(micro);
    this.byId.set(hex(liquid.id), liquid);
    this.microById.set(hex(micro.totalLiquidBlockSig), micro);
  }

  // ------------------------------------------------------------ PoA

  roundStart(t: bigint): bigint {
    const g = this.timing.genesisTimestamp;
    const r = this.timing.roundMs + this.timing.syncMs;
    return ((t - g) / r) * r + g;
  }

  /** ⌊(t − nextRoundStart(parent)) / R⌋. */
  skippedRounds(parentTs: bigint, t: bigint): bigint {
    const r = this.timing.roundMs + this.timing.syncMs;
    return (t - (this.roundStart(parentTs) + r)) / r;
  }

  /**
   * The miner of a block at `t` on top of the current tip: the queue position after the
   * last block whose generator is a miner, `skipped` further (MinerQueue; no bans on the test
   * chains: max-bans-percentage 0); after genesis alone, queue index (1 + skipped) mod n.
   */
  expectedMiner(t: bigint): Uint8Array {
    const parent = this.keyBlock ?? this.blocks[this.blocks.length - 1]!;
    const skipped = Number(this.skippedRounds(parent.timestamp, t));
    const n = this.minerQueue.length;
    const chain = [...this.blocks, ...(this.keyBlock === undefined ? [] : [this.keyBlock])];
    for (let h = chain.length - 1; h >= 1; h--) {
      const gen = this.protocol.addresses.fromPublicKey(chain[h]!.generator).bytes;
      const index = this.minerQueue.findIndex((m) => hex(m) === hex(gen));
      if (index >= 0) return this.minerQueue[(index + 1 + (skipped % n)) % n]!;
    }
    return this.minerQueue[(1 + skipped) % n]!;
  }

  /** Whether `t` is in a mining part of a round after the tip's round (PoaLikeMiner's conditions but the miner's). */
  canForgeAt(t: bigint): boolean {
    const parent = this.keyBlock ?? this.blocks[this.blocks.length - 1]!;
    const start = this.roundStart(t);
    return start > this.roundStart(parent.timestamp) && t >= start && t < start + this.timing.roundMs && t > start;
  }

  /** The key block this miner forges at `t` on the tip: v3, no transactions, PoA consensus data. */
  forgeKeyBlock(t: bigint, privateKey: Uint8Array): Block {
    const parent = this.keyBlock ?? this.blocks[this.blocks.length - 1]!;
    const overall = overallSkipped(parent) + this.skippedRounds(parent.timestamp, t);
    return Block.sign(
      this.protocol,
      {
        version: 3,
        timestamp: t,
        reference: this.tip.id,
        consensus: { type: 'poa', overallSkippedRounds: overall },
        transactions: [],
        featureVotes: [],
        genesisData: null,
      },
      privateKey,
    );
  }

  /** Whether `t` is still in the mining part of the top key block's round (micro-blocks only then). */
  inKeyBlockRound(t: bigint): boolean {
    const key = this.keyBlock;
    if (key === undefined) return false;
    const start = this.roundStart(key.timestamp);
    return t > start && t < start + this.timing.roundMs;
  }
}

function overallSkipped(b: Block): bigint {
  return b.consensus.type === 'poa' || b.consensus.type === 'cft' ? b.consensus.overallSkippedRounds : 0n;
}
