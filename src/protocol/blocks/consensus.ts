/**
 * Consensus data carried by a block (we-node consensus/ConsensusBlockData.scala) and
 * CFT finality votes (consensus/Vote.scala).
 *
 * Wire form inside a block: i32 length L ‖ type byte ‖ payload
 *   PoS 0x01: baseTarget(i64) ‖ generationSignature(32)          L = 41
 *   PoA 0x02: overallSkippedRounds(i64)                           L = 9
 *   CFT 0x03: voteCount(i16) ‖ vote × n ‖ overallSkippedRounds(i64) L = 11 + n·voteLength
 * A vote is senderPublicKey ‖ blockVotingHash(digest) ‖ signature; its signature covers
 * senderPublicKey ‖ blockVotingHash.
 */
import { concatBytes, encodeBase58 } from '../../crypto/encoding.js';
import { ByteReader, ByteWriter } from '../bytes.js';
import type { JsonObject } from '../json.js';
import type { Protocol } from '../protocol.js';
import { DecodeError, genericError } from '../../errors/catalogue.js';

export const POS_TYPE_BYTE = 1;
export const POA_TYPE_BYTE = 2;
export const CFT_TYPE_BYTE = 3;
/** Length of a PoS generation signature (WE's Block.GeneratorSignatureLength). */
export const GENERATION_SIGNATURE_LENGTH = 32;
/** Votes are counted in a signed short. */
export const MAX_VOTES_IN_BLOCK = 0x7fff;

export class Vote {
  private cache: { body?: Uint8Array; bytes?: Uint8Array } = {};

  constructor(
    /** Public key of the validator. */
    readonly sender: Uint8Array,
    /** The voting hash of the block voted for (see Block#votingHash). */
    readonly blockVotingHash: Uint8Array,
    readonly signature: Uint8Array,
  ) {}

  /** senderPublicKey ‖ blockVotingHash: what the signature covers. */
  get bodyBytes(): Uint8Array {
    return (this.cache.body ??= concatBytes(this.sender, this.blockVotingHash));
  }

  get bytes(): Uint8Array {
    return (this.cache.bytes ??= concatBytes(this.bodyBytes, this.signature));
  }

  /** WE's Vote.id: fastHash of the body. */
  id(p: Protocol): Uint8Array {
    return p.crypto.fastHash(this.bodyBytes);
  }

  hasValidSignature(p: Protocol): boolean {
    return p.crypto.verify(this.sender, this.bodyBytes, this.signature);
  }

  toJson(p: Protocol): JsonObject {
    return {
      sender: p.addresses.fromPublicKey(this.sender).toString(),
      blockVotingHash: encodeBase58(this.blockVotingHash),
      signature: encodeBase58(this.signature),
    };
  }

  /** Checks every length against the network's crypto, as the wire form needs them. */
  checkLengths(p: Protocol, field = 'votes'): void {
    if (this.sender.length !== p.crypto.publicKeyLength) {
      throw genericError(`Invalid generator.publicKey length: '${this.sender.length}', expected '${p.crypto.publicKeyLength}'`, field);
    }
    if (this.blockVotingHash.length !== p.crypto.digestLength) {
      throw genericError(`Invalid blockVotingHash length: '${this.blockVotingHash.length}', expected '${p.crypto.digestLength}'`, field);
    }
    if (this.signature.length !== p.crypto.signatureLength) {
      throw genericError(`Invalid vote signature length: '${this.signature.length}', expected '${p.crypto.signatureLength}'`, field);
    }
  }

  /** WE's Vote.buildAndSign. */
  static sign(p: Protocol, privateKey: Uint8Array, blockVotingHash: Uint8Array): Vote {
    const sender = p.crypto.publicKeyOf(privateKey);
    const unsigned = new Vote(sender, blockVotingHash, new Uint8Array(p.crypto.signatureLength));
    unsigned.checkLengths(p);
    return new Vote(sender, blockVotingHash, p.crypto.sign(privateKey, unsigned.bodyBytes));
  }

  static byteLength(p: Protocol): number {
    return p.crypto.publicKeyLength + p.crypto.digestLength + p.crypto.signatureLength;
  }

  static read(r: ByteReader, p: Protocol, field = 'vote'): Vote {
    const sender = r.bytes(p.crypto.publicKeyLength, field);
    const hash = r.bytes(p.crypto.digestLength, field);
    const signature = r.bytes(p.crypto.signatureLength, field);
    return new Vote(sender, hash, signature);
  }
}

export interface PosConsensusData {
  readonly type: 'pos';
  readonly baseTarget: bigint;
  readonly generationSignature: Uint8Array;
}

export interface PoaConsensusData {
  readonly type: 'poa';
  readonly overallSkippedRounds: bigint;
}

export interface CftConsensusData {
  readonly type: 'cft';
  readonly votes: readonly Vote[];
  readonly overallSkippedRounds: bigint;
}

export type ConsensusData = PosConsensusData | PoaConsensusData | CftConsensusData;

/** The JSON key of the consensus object in block JSON. */
export function consensusJsonKey(c: ConsensusData): string {
  return `${c.type}-consensus`;
}

export function consensusJson(c: ConsensusData, p: Protocol): JsonObject {
  switch (c.type) {
    case 'pos':
      return { 'base-target': c.baseTarget, 'generation-signature': encodeBase58(c.generationSignature) };
    case 'poa':
      return { 'overall-skipped-rounds': c.overallSkippedRounds };
    case 'cft':
      return { votes: c.votes.map((v) => v.toJson(p)), 'overall-skipped-rounds': c.overallSkippedRounds };
  }
}

/** Writes i32 length ‖ payload; `skipVotes` writes a CFT vote list as empty (the voting hash form). */
export function writeConsensus(w: ByteWriter, c: ConsensusData, p: Protocol, skipVotes = false): void {
  switch (c.type) {
    case 'pos':
      w.i32(1 + 8 + GENERATION_SIGNATURE_LENGTH)
        .u8(POS_TYPE_BYTE)
        .i64(c.baseTarget)
        .bytes(c.generationSignature);
      return;
    case 'poa':
      w.i32(1 + 8)
        .u8(POA_TYPE_BYTE)
        .i64(c.overallSkippedRounds);
      return;
    case 'cft': {
      const votes = skipVotes ? [] : c.votes;
      w.i32(1 + 2 + Vote.byteLength(p) * votes.length + 8).u8(CFT_TYPE_BYTE);
      w.i16(votes.length);
      for (const v of votes) w.bytes(v.bytes);
      w.i64(c.overallSkippedRounds);
      return;
    }
  }
}

/** Reads a vote list: i16 count ‖ votes. A negative count is malformed. */
export function readVotes(r: ByteReader, p: Protocol, field = 'votes'): Vote[] {
  const n = r.i16(field);
  if (n < 0) throw new DecodeError(`Negative vote count ${n}`, field);
  const size = Vote.byteLength(p);
  if (n * size > r.remaining) {
    throw new DecodeError(`Buffer underflow while reading ${field}: ${n} votes need ${n * size} bytes, ${r.remaining} left`, field);
  }
  const votes: Vote[] = [];
  for (let i = 0; i < n; i++) votes.push(Vote.read(r, p, `${field}(${i})`));
  return votes;
}

export function writeVotes(w: ByteWriter, votes: readonly Vote[]): void {
  w.i16(votes.length);
  for (const v of votes) w.bytes(v.bytes);
}

/** Reads i32 length ‖ payload; the length must match the payload exactly. */
export function readConsensus(r: ByteReader, p: Protocol): ConsensusData {
  const length = r.i32('consensusData');
  if (length < 1 || length > r.remaining) throw new DecodeError(`Invalid consensus data length ${length}`, 'consensusData');
  const start = r.pos;
  const sub = r.within(start, start + length);
  const typeByte = sub.u8('consensusData');
  let c: ConsensusData;
  switch (typeByte) {
    case POS_TYPE_BYTE:
      c = { type: 'pos', baseTarget: sub.i64('baseTarget'), generationSignature: sub.bytes(GENERATION_SIGNATURE_LENGTH, 'generationSignature') };
      break;
    case POA_TYPE_BYTE:
      c = { type: 'poa', overallSkippedRounds: sub.i64('overallSkippedRounds') };
      break;
    case CFT_TYPE_BYTE: {
      const votes = readVotes(sub, p);
      c = { type: 'cft', votes, overallSkippedRounds: sub.i64('overallSkippedRounds') };
      break;
    }
    default:
      throw new DecodeError(`Unknown consensus data type ${typeByte}`, 'consensusData');
  }
  if (sub.remaining !== 0) throw new DecodeError(`Consensus data length ${length} does not match its content`, 'consensusData');
  r.pos = start + length;
  return c;
}

/** WE's ConsensusBlockData.asCftMaybe and friends. */
export function expectConsensus<T extends ConsensusData['type']>(c: ConsensusData, type: T): Extract<ConsensusData, { type: T }> {
  if (c.type !== type) {
    const name = (t: string): string => (t === 'cft' ? 'CFT' : t === 'pos' ? 'PoS' : 'PoA');
    throw genericError(`Expected ${name(type)} consensus block data, but got ${name(c.type)} instead`);
  }
  return c as Extract<ConsensusData, { type: T }>;
}
