/**
 * Blocks (v1–v4, PoS/PoA/CFT), CFT votes and NG micro-blocks: layout, signing,
 * verification, JSON, feature-vote order, and every refusal of malformed input.
 * Blocks are filled with Transfer transactions.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { concatBytes, encodeBase58 } from '../../src/crypto/encoding.js';
import type { KeyPair } from '../../src/crypto/suite.js';
import { ByteWriter } from '../../src/protocol/bytes.js';
import { stringifyJson } from '../../src/protocol/json.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { Transaction, type TxCodec } from '../../src/protocol/transactions/schema.js';
import { Transfer, type TransferData } from '../../src/protocol/transactions/transfer.js';
import {
  applyMicroBlock,
  Block,
  featureVotesForProducing,
  featureVotesJsonOrder,
  jsNumberHash,
  LiquidBlockBytes,
  parseMicroBlock,
  produceMicroBlock,
  signLiquidBlock,
  TxMicroBlock,
  Vote,
  VoteMicroBlock,
  westFeeOf,
  type ConsensusData,
  type UnsignedBlock,
} from '../../src/protocol/blocks.js';
import { WeError } from '../../src/errors/catalogue.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const miner = p.crypto.keyPairFromSeedPhrase('blocks test miner');
const other = p.crypto.keyPairFromSeedPhrase('blocks test other miner');
const alice = p.crypto.keyPairFromSeedPhrase('blocks test alice');
const validators = [1, 2, 3].map((i) => p.crypto.keyPairFromSeedPhrase(`blocks test validator ${i}`));

const TS = 1700000017123n;
const REFERENCE = Uint8Array.from({ length: 64 }, (_, i) => (i * 7 + 3) & 0xff);
const ASSET = new Uint8Array(32).fill(9);

function transfer(i: number, options: { fee?: bigint; feeAssetId?: Uint8Array | null; from?: KeyPair } = {}): Transaction<TransferData> {
  const from = options.from ?? alice;
  const data: TransferData = {
    senderPublicKey: from.publicKey,
    assetId: null,
    feeAssetId: options.feeAssetId ?? null,
    timestamp: TS + BigInt(i),
    amount: 1000n + BigInt(i),
    fee: options.fee ?? 100000n,
    recipient: p.addresses.fromPublicKey(miner.publicKey),
    attachment: Uint8Array.of(i & 0xff),
    atomicBadge: undefined,
  };
  return p.sign(p.transaction(Transfer, 2, data), from.privateKey);
}

const TXS = [0, 1, 2, 3, 4].map((i) => transfer(i));

function consensusOf(type: ConsensusData['type'], votes: readonly Vote[] = []): ConsensusData {
  switch (type) {
    case 'pos':
      return { type, baseTarget: 153722867n, generationSignature: new Uint8Array(32).fill(5) };
    case 'poa':
      return { type, overallSkippedRounds: 12n };
    case 'cft':
      return { type, votes, overallSkippedRounds: 3n };
  }
}

function fieldsOf(
  version: number,
  consensus: ConsensusData,
  transactions: readonly Transaction[] = [],
  featureVotes: number[] = [],
): Omit<UnsignedBlock, 'generator'> {
  return {
    version,
    timestamp: TS,
    reference: REFERENCE,
    consensus,
    transactions,
    featureVotes: version >= 3 ? featureVotes : [],
    genesisData: version === 4 ? { senderRoleEnabled: true } : null,
  };
}

function someVotes(hash = new Uint8Array(32).fill(1)): Vote[] {
  return validators.slice(0, 2).map((v) => Vote.sign(p, v.privateKey, hash));
}

function expectWeError(f: () => unknown, expected: { code?: number; kind?: string; message?: string | RegExp; field?: string } = {}): WeError {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof WeError, `expected a WeError, got ${e instanceof Error ? e.stack : String(e)}`);
    if (expected.code !== undefined) assert.equal(e.code, expected.code, e.message);
    if (expected.kind !== undefined) assert.equal(e.kind, expected.kind, e.message);
    if (expected.message instanceof RegExp) assert.match(e.message, expected.message);
    else if (expected.message !== undefined) assert.equal(e.message, expected.message);
    if (expected.field !== undefined) assert.equal(e.field, expected.field);
    return e;
  }
  assert.fail('expected an error');
}

const i32 = (v: number): Uint8Array => new ByteWriter(4).i32(v).result();
const i64 = (v: bigint): Uint8Array => new ByteWriter(8).i64(v).result();
const i16 = (v: number): Uint8Array => new ByteWriter(2).i16(v).result();
const txSection = (countBytes: Uint8Array, txs: readonly Transaction[]): Uint8Array => {
  const body = concatBytes(countBytes, ...txs.map((t) => concatBytes(i32(t.bytes.length), t.bytes)));
  return concatBytes(i32(body.length), body);
};

describe('block layout', () => {
  it('v3 PoA block with a transaction and two feature votes, byte by byte', () => {
    const block = Block.sign(p, fieldsOf(3, consensusOf('poa'), [TXS[0]!], [7, 2]), miner.privateKey);
    const expected = concatBytes(
      Uint8Array.of(3),
      i64(TS),
      REFERENCE,
      i32(9),
      Uint8Array.of(2),
      i64(12n),
      txSection(i32(1), [TXS[0]!]),
      i32(2),
      i16(7),
      i16(2),
      miner.publicKey,
      block.signature,
    );
    assert.equal(Buffer.from(block.bytes).toString('hex'), Buffer.from(expected).toString('hex'));
    assert.deepEqual(block.signedBytes, expected.subarray(0, expected.length - 64));
    assert.ok(p.crypto.verify(miner.publicKey, expected.subarray(0, expected.length - 64), block.signature));
  });

  it('v1 PoS block: one-byte tx count, no features', () => {
    const block = Block.sign(p, fieldsOf(1, consensusOf('pos'), TXS.slice(0, 2)), miner.privateKey);
    const expected = concatBytes(
      Uint8Array.of(1),
      i64(TS),
      REFERENCE,
      i32(41),
      Uint8Array.of(1),
      i64(153722867n),
      new Uint8Array(32).fill(5),
      txSection(Uint8Array.of(2), TXS.slice(0, 2)),
      miner.publicKey,
      block.signature,
    );
    assert.deepEqual(block.bytes, expected);
  });

  it('v4 block ends with feature count, genesis data flag and boolean; v2 like v1', () => {
    const v4 = Block.sign(p, fieldsOf(4, consensusOf('poa'), [], [5]), miner.privateKey);
    const tail = v4.bytes.subarray(v4.bytes.length - 64 - 32 - 2 - 6);
    assert.deepEqual(tail.subarray(0, 8), concatBytes(i32(1), i16(5), Uint8Array.of(1, 1)));
    const v4none = Block.sign(p, { ...fieldsOf(4, consensusOf('poa')), genesisData: null }, miner.privateKey);
    assert.equal(v4none.bytes[v4none.bytes.length - 64 - 32 - 1], 0);
    const v2 = Block.sign(p, fieldsOf(2, consensusOf('poa'), [TXS[1]!]), miner.privateKey);
    const v1 = Block.sign(p, fieldsOf(1, consensusOf('poa'), [TXS[1]!]), miner.privateKey);
    assert.equal(v2.size, v1.size);
    assert.deepEqual(v2.bytes.subarray(1, v2.size - 64), v1.bytes.subarray(1, v1.size - 64));
  });

  it('CFT consensus: i16 vote count, 128-byte votes, L = 11 + 128·n', () => {
    const votes = someVotes();
    const block = Block.sign(p, fieldsOf(3, consensusOf('cft', votes)), miner.privateKey);
    const consensus = block.bytes.subarray(73, 73 + 4 + 11 + 256);
    assert.deepEqual(
      consensus,
      concatBytes(i32(11 + 256), Uint8Array.of(3), i16(2), votes[0]!.sender, votes[0]!.blockVotingHash, votes[0]!.signature, votes[1]!.bytes, i64(3n)),
    );
  });

  it('sizes of empty v3 key blocks: PoA 194, PoS 226, CFT 196; +2 per feature vote', () => {
    const size = (c: ConsensusData, f: number[] = []): number => Block.sign(p, fieldsOf(3, c, [], f), miner.privateKey).size;
    assert.equal(size(consensusOf('poa')), 194);
    assert.equal(size(consensusOf('pos')), 226);
    assert.equal(size(consensusOf('cft')), 196);
    assert.equal(size(consensusOf('poa'), [1, 2, 3]), 200);
  });
});

describe('block round trips, signatures and JSON', () => {
  for (const version of [1, 2, 3, 4]) {
    for (const type of ['pos', 'poa', 'cft'] as const) {
      it(`v${version} ${type}: sign, bytes, parse, verify, JSON`, () => {
        const consensus = consensusOf(type, type === 'cft' ? someVotes() : []);
        const block = Block.sign(p, fieldsOf(version, consensus, TXS.slice(0, 3), [101, 2]), miner.privateKey);
        assert.ok(block.hasValidSignature());
        assert.deepEqual(block.id, block.signature);
        assert.equal(block.idBase58, encodeBase58(block.signature));
        assert.deepEqual(block.signedBytes, block.bytes.subarray(0, block.size - 64));
        const back = Block.fromBytes(p, block.bytes);
        assert.deepEqual(back.bytes, block.bytes);
        assert.ok(back.hasValidSignature());
        assert.equal(back.transactionCount, 3);
        assert.deepEqual(
          back.transactions.map((t) => t.idBase58),
          TXS.slice(0, 3).map((t) => t.idBase58),
        );
        assert.equal(stringifyJson(back.toJson()), stringifyJson(block.toJson()));
        assert.deepEqual(back.featureVotes, version >= 3 ? [101, 2] : []);
        assert.doesNotThrow(() => back.requireValidSignature());
      });
    }
  }

  it('a block signed by another key or with any byte changed does not verify', () => {
    const block = Block.sign(p, fieldsOf(3, consensusOf('cft', someVotes()), TXS.slice(0, 2), [1, 2, 3, 4, 5, 6]), miner.privateKey);
    const forged = Block.build(p, { ...block, generator: other.publicKey }, block.signature);
    assert.equal(forged.hasValidSignature(), false);
    expectWeError(() => forged.requireValidSignature(), { code: 101, kind: 'InvalidSignature' });
    fc.assert(
      fc.property(fc.integer({ min: 0, max: block.size - 1 }), fc.integer({ min: 1, max: 255 }), (index, xor) => {
        const bytes = Uint8Array.from(block.bytes);
        bytes[index]! ^= xor;
        let parsed: Block;
        try {
          parsed = Block.fromBytes(p, bytes);
        } catch (e) {
          assert.ok(e instanceof WeError, String(e));
          return;
        }
        assert.equal(parsed.hasValidSignature(), false, `byte ${index} ^ ${xor} still verifies`);
      }),
      { numRuns: 400 },
    );
  });

  it('header JSON keys per version, generator as address, consensus objects', () => {
    const keysOf = (version: number, type: ConsensusData['type']): string[] =>
      Object.keys(Block.sign(p, fieldsOf(version, consensusOf(type)), miner.privateKey).toJson());
    assert.deepEqual(keysOf(1, 'pos'), [
      'version',
      'timestamp',
      'reference',
      'generator',
      'signature',
      'pos-consensus',
      'blocksize',
      'transactionCount',
      'fee',
      'transactions',
    ]);
    assert.deepEqual(keysOf(2, 'poa'), [
      'version',
      'timestamp',
      'reference',
      'generator',
      'signature',
      'poa-consensus',
      'blocksize',
      'transactionCount',
      'fee',
      'transactions',
    ]);
    assert.deepEqual(keysOf(3, 'cft'), [
      'version',
      'timestamp',
      'reference',
      'generator',
      'signature',
      'cft-consensus',
      'features',
      'blocksize',
      'transactionCount',
      'fee',
      'transactions',
    ]);
    assert.deepEqual(keysOf(4, 'poa'), [
      'version',
      'timestamp',
      'reference',
      'generator',
      'signature',
      'poa-consensus',
      'features',
      'senderRoleEnabled',
      'blocksize',
      'transactionCount',
      'fee',
      'transactions',
    ]);

    const votes = someVotes();
    const block = Block.sign(p, fieldsOf(3, consensusOf('cft', votes), [TXS[0]!]), miner.privateKey);
    const json = block.toJson();
    assert.equal(json['generator'], p.addresses.fromPublicKey(miner.publicKey).toString());
    assert.equal(json['reference'], encodeBase58(REFERENCE));
    assert.equal(
      stringifyJson(json['cft-consensus']),
      stringifyJson({
        votes: votes.map((v) => ({
          sender: p.addresses.fromPublicKey(v.sender).toString(),
          blockVotingHash: encodeBase58(v.blockVotingHash),
          signature: encodeBase58(v.signature),
        })),
        'overall-skipped-rounds': 3,
      }),
    );
    assert.equal(stringifyJson(json['features']), '[]');
    assert.equal(stringifyJson(json['transactions']), stringifyJson([TXS[0]!.toJson()]));
    assert.equal(stringifyJson(block.headerJson(999)).includes('"blocksize":999'), true);
    assert.equal(
      stringifyJson(Block.sign(p, fieldsOf(3, consensusOf('poa')), miner.privateKey).toJson()).replace(/"(reference|signature)":"\w+"/g, '"$1":"…"'),
      `{"version":3,"timestamp":1700000017123,"reference":"…","generator":"${String(json['generator'])}","signature":"…","poa-consensus":{"overall-skipped-rounds":12},"features":[],"blocksize":194,"transactionCount":0,"fee":0,"transactions":[]}`,
    );
    const custom = block.toJson({ transactionJson: (tx) => ({ id: tx.idBase58, extended: true }) });
    assert.deepEqual(custom['transactions'], [{ id: TXS[0]!.idBase58, extended: true }]);
  });

  it('blocksize is the wire length, transactionCount the number of txs, fee the WEST fees', () => {
    const txs = [transfer(10, { fee: 100000n }), transfer(11, { fee: 250000n, feeAssetId: ASSET }), transfer(12, { fee: 7n })];
    const block = Block.sign(p, fieldsOf(3, consensusOf('poa'), txs), miner.privateKey);
    const json = block.toJson();
    assert.equal(json['blocksize'], block.bytes.length);
    assert.equal(json['transactionCount'], 3);
    assert.equal(json['fee'], 100007n);
    assert.equal(block.fee, 100007n);
  });

  it('fee of atomic containers and executed-contract transactions comes from their inner transactions', () => {
    const stub = (type: number): TxCodec => ({ type }) as unknown as TxCodec;
    const westA = transfer(20, { fee: 300n });
    const assetB = transfer(21, { fee: 500n, feeAssetId: ASSET });
    const westC = transfer(22, { fee: 40n });
    const executed = new Transaction(stub(105), 4, { senderPublicKey: miner.publicKey, fee: 0n, tx: westC }, [], p);
    const executedInAsset = new Transaction(stub(105), 4, { tx: assetB }, [], p);
    const atomic = new Transaction(stub(120), 1, { transactions: [westA, assetB, executed], fee: 999n }, [], p);
    assert.equal(westFeeOf(westA), 300n);
    assert.equal(westFeeOf(assetB), 0n);
    assert.equal(westFeeOf(executed), 40n);
    assert.equal(westFeeOf(executedInAsset), 0n);
    assert.equal(westFeeOf(atomic), 340n);
  });
});

describe('feature votes', () => {
  it('produced in Scala 2.12 Set order; hand-computed values', () => {
    // Scala 2.12: Set(1,2,3,4,5) prints Set(5, 1, 2, 3, 4). The others were computed by hand
    // (HashSet#improve and the 5-bit trie digits, low digit first) in an independent script.
    assert.deepEqual(featureVotesForProducing([1, 2, 3, 4, 5]), [5, 1, 2, 3, 4]);
    assert.deepEqual(featureVotesForProducing([2, 3, 4, 5, 6, 7, 9, 10]), [5, 10, 6, 9, 2, 7, 3, 4]);
    assert.deepEqual(featureVotesForProducing([1140, 1130, 1123, 1122, 1120]), [1123, 1122, 1130, 1140, 1120]);
    assert.deepEqual(
      featureVotesForProducing([100, 101, 119, 120, 130, 140, 160, 162, 173, 180, 1120, 1122, 1123, 1130, 1140]),
      [101, 120, 1123, 160, 173, 180, 1122, 140, 130, 162, 1130, 1140, 119, 1120, 100],
    );
    assert.deepEqual(featureVotesForProducing([-1, 0, 1, 32767, -32768]), [0, 1, 32767, -32768, -1]);
    // Up to four votes keep their order.
    assert.deepEqual(featureVotesForProducing([4, 3, 2, 1]), [4, 3, 2, 1]);
    // The order does not depend on the order given.
    assert.deepEqual(featureVotesForProducing([10, 9, 7, 6, 5, 4, 3, 2]), [5, 10, 6, 9, 2, 7, 3, 4]);
  });

  it('JSON lists them in the order of a Set of Play JsNumbers', () => {
    assert.equal(jsNumberHash(1), 818387364);
    assert.equal(jsNumberHash(100), -611495304);
    assert.deepEqual(featureVotesJsonOrder([5, 1, 2, 3, 4]), [4, 1, 3, 5, 2]);
    assert.deepEqual(featureVotesJsonOrder([5, 10, 6, 9, 2, 7, 3, 4]), [10, 4, 6, 7, 3, 5, 9, 2]);
    assert.deepEqual(featureVotesJsonOrder([0, 1, 32767, -32768, -1]), [32767, 0, 1, -1, -32768]);
    assert.deepEqual(featureVotesJsonOrder([101, 2, 3]), [101, 2, 3]);
    const block = Block.sign(p, fieldsOf(3, consensusOf('poa'), [], [1, 2, 3, 4, 5]), miner.privateKey);
    assert.deepEqual(block.featureVotes, [5, 1, 2, 3, 4]);
    assert.deepEqual(block.toJson()['features'], [4, 1, 3, 5, 2]);
  });

  it('a received block keeps its wire order for verification', () => {
    const wireOrder = [1, 2, 3, 4, 5, 6];
    const block = Block.signKeepingOrder(p, fieldsOf(3, consensusOf('poa'), [], wireOrder), miner.privateKey);
    const back = Block.fromBytes(p, block.bytes);
    assert.deepEqual(back.featureVotes, wireOrder);
    assert.ok(back.hasValidSignature());
    assert.deepEqual(back.bytes, block.bytes);
  });

  it('duplicates, non-short ids, too many votes and votes in v1/v2 are refused', () => {
    expectWeError(() => Block.sign(p, fieldsOf(3, consensusOf('poa'), [], [3, 3]), miner.privateKey), { code: 199, message: 'Duplicate feature vote 3' });
    expectWeError(() => Block.sign(p, fieldsOf(3, consensusOf('poa'), [], [40000]), miner.privateKey), { message: 'Feature id 40000 is not a short' });
    expectWeError(
      () =>
        Block.sign(
          p,
          fieldsOf(
            3,
            consensusOf('poa'),
            [],
            Array.from({ length: 65 }, (_, i) => i),
          ),
          miner.privateKey,
        ),
      {
        message: "Block could not contain more than '64' feature votes",
      },
    );
    assert.equal(
      Block.sign(
        p,
        fieldsOf(
          3,
          consensusOf('poa'),
          [],
          Array.from({ length: 64 }, (_, i) => i),
        ),
        miner.privateKey,
      ).featureVotes.length,
      64,
    );
    expectWeError(() => Block.sign(p, { ...fieldsOf(2, consensusOf('poa')), featureVotes: [1] }, miner.privateKey), {
      message: "Block version '2' could not contain feature votes",
    });
    // Duplicates on the wire.
    const block = Block.signKeepingOrder(p, fieldsOf(3, consensusOf('poa'), [], [8, 9]), miner.privateKey);
    const bytes = Uint8Array.from(block.bytes);
    bytes.set(i16(8), block.size - 64 - 32 - 2);
    expectWeError(() => Block.fromBytes(p, bytes), { code: 199, message: 'Duplicate feature vote 8' });
  });
});

describe('CFT voting hash and votes', () => {
  it('votingHash = fastHash of the block with an empty vote list and without signature', () => {
    const keyBlock = Block.sign(p, fieldsOf(3, consensusOf('cft'), TXS.slice(0, 2), [1]), miner.privateKey);
    assert.deepEqual(keyBlock.votingHash, p.crypto.fastHash(keyBlock.signedBytes));
    const votes = validators.map((v) => Vote.sign(p, v.privateKey, keyBlock.votingHash));
    const voted = Block.sign(p, { ...keyBlock, consensus: consensusOf('cft', votes) }, miner.privateKey);
    assert.deepEqual(voted.votingHash, keyBlock.votingHash);
    assert.notDeepEqual(voted.signedBytes, keyBlock.signedBytes);
    assert.equal(voted.validVotes().length, 3);
  });

  it('votes sign senderPublicKey ‖ blockVotingHash; wrong hash or signature is not a valid vote', () => {
    const keyBlock = Block.sign(p, fieldsOf(3, consensusOf('cft'), [], []), miner.privateKey);
    const good = Vote.sign(p, validators[0]!.privateKey, keyBlock.votingHash);
    assert.deepEqual(good.bodyBytes, concatBytes(validators[0]!.publicKey, keyBlock.votingHash));
    assert.ok(p.crypto.verify(good.sender, good.bodyBytes, good.signature));
    assert.deepEqual(good.id(p), p.crypto.fastHash(good.bodyBytes));
    const otherHash = Vote.sign(p, validators[1]!.privateKey, new Uint8Array(32));
    const badSig = new Vote(validators[2]!.publicKey, keyBlock.votingHash, good.signature);
    assert.equal(badSig.hasValidSignature(p), false);
    const block = Block.sign(p, { ...keyBlock, consensus: consensusOf('cft', [good, otherHash, badSig]) }, miner.privateKey);
    assert.deepEqual(block.validVotes(), [good]);
    assert.deepEqual(Block.sign(p, fieldsOf(3, consensusOf('poa')), miner.privateKey).validVotes(), []);
    expectWeError(() => Vote.sign(p, validators[0]!.privateKey, new Uint8Array(31)), { message: "Invalid blockVotingHash length: '31', expected '32'" });
  });
});

describe('block parsing refuses malformed input with a WeError', () => {
  const block = Block.sign(p, fieldsOf(3, consensusOf('cft', someVotes()), TXS.slice(0, 3), [1, 2]), miner.privateKey);
  const v1 = Block.sign(p, fieldsOf(1, consensusOf('pos'), TXS.slice(0, 2)), miner.privateKey);
  const v4 = Block.sign(p, fieldsOf(4, consensusOf('poa'), [TXS[0]!], [7]), miner.privateKey);
  const mutate = (b: Block, at: number, replacement: Uint8Array, removeLength = replacement.length): Uint8Array =>
    concatBytes(b.bytes.subarray(0, at), replacement, b.bytes.subarray(at + removeLength));
  const consensusEnd = (b: Block): number => 77 + new DataView(b.bytes.buffer, b.bytes.byteOffset).getInt32(73);

  it('every truncation', () => {
    for (const b of [block, v1, v4]) {
      for (let n = 0; n < b.size; n++) expectWeError(() => Block.fromBytes(p, b.bytes.subarray(0, n)), { code: 199 });
    }
  });

  it('trailing bytes', () => {
    expectWeError(() => Block.fromBytes(p, concatBytes(block.bytes, Uint8Array.of(0))), { code: 199, message: /trailing/ });
  });

  it('unknown versions', () => {
    for (const version of [0, 5, 0xff]) {
      expectWeError(() => Block.fromBytes(p, mutate(block, 0, Uint8Array.of(version))), { code: 199, message: /Block version is incorrect/, field: 'version' });
    }
    expectWeError(() => Block.build(p, { ...block, version: 7 }, block.signature), {
      message: "Block version is incorrect: found '7', available 'Set(1, 2, 3, 4)'",
    });
  });

  it('consensus data: length, type, vote count', () => {
    expectWeError(() => Block.fromBytes(p, mutate(block, 73, i32(11 + 256 + 1))), { message: /does not match|Invalid consensus/ });
    expectWeError(() => Block.fromBytes(p, mutate(block, 73, i32(10))), { message: /Consensus data length 10 does not match|Buffer underflow/ });
    expectWeError(() => Block.fromBytes(p, mutate(block, 73, i32(-1))), { message: 'Invalid consensus data length -1' });
    expectWeError(() => Block.fromBytes(p, mutate(block, 77, Uint8Array.of(4))), { message: 'Unknown consensus data type 4' });
    expectWeError(() => Block.fromBytes(p, mutate(block, 78, i16(-1))), { message: 'Negative vote count -1' });
    expectWeError(() => Block.fromBytes(p, mutate(block, 78, i16(3))), { message: /Buffer underflow while reading votes/ });
    expectWeError(() => Block.fromBytes(p, mutate(v1, 73, i32(40))), { code: 199 });
  });

  it('transaction section: length, count, transaction bytes', () => {
    const at = consensusEnd(block);
    const sectionLength = new DataView(block.bytes.buffer, block.bytes.byteOffset).getInt32(at);
    expectWeError(() => Block.fromBytes(p, mutate(block, at, i32(sectionLength + 1))), { code: 199 });
    expectWeError(() => Block.fromBytes(p, mutate(block, at, i32(sectionLength - 1))), { code: 199 });
    expectWeError(() => Block.fromBytes(p, mutate(block, at, i32(2))), { message: 'Invalid transactions section length 2' });
    expectWeError(() => Block.fromBytes(p, mutate(block, at, i32(0x7fffffff))), { message: /Invalid transactions section length/ });
    expectWeError(() => Block.fromBytes(p, mutate(block, at + 4, i32(2))), {
      message: "Transaction count from block header '2' is not equal to transaction data size '3' in block",
    });
    expectWeError(() => Block.fromBytes(p, mutate(block, at + 4, i32(-3))), { message: /is not equal to transaction data size/ });
    expectWeError(() => Block.fromBytes(p, mutate(block, at + 8, i32(0))), { message: /Invalid length 0 of transaction 0/ });
    expectWeError(() => Block.fromBytes(p, mutate(block, at + 8, i32(100000))), { message: /Invalid length 100000 of transaction 0/ });
    // A transaction whose bytes are garbage: unknown type.
    expectWeError(() => Block.fromBytes(p, mutate(block, at + 12, Uint8Array.of(0, 99, 1))), { code: 199 });
    const v1at = consensusEnd(v1);
    expectWeError(() => Block.fromBytes(p, mutate(v1, v1at + 4, Uint8Array.of(0x80))), { message: /'-128' is not equal/ });
    expectWeError(() => Block.fromBytes(p, mutate(v1, v1at, i32(0))), { message: 'Invalid transactions section length 0' });
  });

  it('feature votes: negative count, more than 64', () => {
    const at = block.size - 64 - 32 - 4 - 4;
    expectWeError(() => Block.fromBytes(p, mutate(block, at, i32(-1))), { message: 'Negative feature vote count -1' });
    expectWeError(() => Block.fromBytes(p, mutate(block, at, i32(65))), { message: "Block could not contain more than '64' feature votes" });
    expectWeError(() => Block.fromBytes(p, mutate(block, at, i32(3))), { code: 199 });
  });

  it('v4 genesis data: flag and boolean must be 0 or 1', () => {
    const at = v4.size - 64 - 32 - 2;
    expectWeError(() => Block.fromBytes(p, mutate(v4, at, Uint8Array.of(2))), { message: 'Invalid genesis data flag 2' });
    expectWeError(() => Block.fromBytes(p, mutate(v4, at, Uint8Array.of(1, 2))), { message: 'Invalid boolean byte 2 in genesis data' });
    const none = Block.fromBytes(p, mutate(v4, at, Uint8Array.of(0), 2));
    assert.equal(none.genesisData, null);
    assert.equal(none.hasValidSignature(), false);
    assert.equal('senderRoleEnabled' in none.headerJson(), false);
  });

  it("WE's build checks on fields", () => {
    const base = { ...block } as UnsignedBlock;
    expectWeError(() => Block.build(p, { ...base, reference: new Uint8Array(63) }, block.signature), { message: 'Incorrect reference', field: 'reference' });
    expectWeError(() => Block.build(p, { ...base, consensus: { type: 'pos', baseTarget: 1n, generationSignature: new Uint8Array(31) } }, block.signature), {
      message: 'Incorrect consensusData.generationSignature',
    });
    expectWeError(() => Block.build(p, { ...base, generator: new Uint8Array(31) }, block.signature), { message: 'Incorrect signer.publicKey' });
    expectWeError(() => Block.build(p, { ...base, genesisData: { senderRoleEnabled: false } }, block.signature), {
      message: "Block version '3' could not contain genesis data",
    });
    expectWeError(() => Block.build(p, base, new Uint8Array(10)), { message: "Incorrect signature length: '10', expected '64'" });
    const many = Array.from({ length: 128 }, () => TXS[0]!);
    expectWeError(() => Block.sign(p, fieldsOf(2, consensusOf('poa'), many), miner.privateKey), { message: /found '128', max count '127'/ });
    expectWeError(() => Block.sign(p, fieldsOf(1, consensusOf('poa'), many), miner.privateKey), {
      message: "Too much transactions for genesis block: found '128', max count '127'",
    });
    assert.equal(Block.sign(p, fieldsOf(1, consensusOf('poa'), many.slice(1)), miner.privateKey).transactionCount, 127);
  });

  it('random bytes, random mutations and truncations never crash', () => {
    const check = (bytes: Uint8Array): void => {
      try {
        Block.fromBytes(p, bytes);
      } catch (e) {
        assert.ok(e instanceof WeError, e instanceof Error ? e.stack : String(e));
      }
    };
    fc.assert(fc.property(fc.uint8Array({ maxLength: 600 }), check), { numRuns: 300 });
    fc.assert(
      fc.property(
        fc.constantFrom(block, v1, v4),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }),
        fc.nat(),
        (b, edits, cut) => {
          const bytes = Uint8Array.from(b.bytes);
          for (const [i, v] of edits) bytes[i % bytes.length] = v;
          check(bytes);
          check(bytes.subarray(0, cut % (bytes.length + 1)));
        },
      ),
      { numRuns: 300 },
    );
    // A header that claims a huge vote or feature count on a short buffer.
    check(concatBytes(Uint8Array.of(3), i64(0n), REFERENCE, i32(11), Uint8Array.of(3), i16(0x7fff), i64(0n)));
  });
});

describe('micro-blocks', () => {
  const keyBlock = Block.sign(p, fieldsOf(3, consensusOf('poa'), [], [1, 2]), miner.privateKey);

  it('key block → micro 1 (v3) → micro 2 (v5): prev/total signatures chain and verify', () => {
    const first = produceMicroBlock(
      p,
      keyBlock,
      { transactions: TXS.slice(0, 2) },
      { timestamp: TS + 5000n, privateKey: miner.privateKey, modifiedTotalSign: false },
    );
    assert.equal(first.microBlock.version, 3);
    assert.deepEqual(first.microBlock.prevLiquidBlockSig, keyBlock.id);
    assert.deepEqual(first.microBlock.totalLiquidBlockSig, first.liquidBlock.id);
    assert.deepEqual(first.microBlock.id, first.liquidBlock.id);

    // Receiver: parse the micro-block and rebuild the liquid block.
    const received1 = parseMicroBlock(p, first.microBlock.bytes);
    assert.ok(received1.hasValidSignature());
    const liquid1 = applyMicroBlock(keyBlock, received1, { firstMicroBlock: true });
    assert.deepEqual(liquid1.bytes, first.liquidBlock.bytes);
    assert.equal(liquid1.transactionCount, 2);
    assert.equal(liquid1.timestamp, keyBlock.timestamp);
    assert.deepEqual(liquid1.reference, keyBlock.reference);
    assert.deepEqual(liquid1.featureVotes, keyBlock.featureVotes);

    const second = produceMicroBlock(
      p,
      liquid1,
      { transactions: [TXS[2]!] },
      { timestamp: TS + 10000n, privateKey: miner.privateKey, modifiedTotalSign: true },
    );
    assert.equal(second.microBlock.version, 5);
    assert.deepEqual(second.microBlock.prevLiquidBlockSig, first.microBlock.totalLiquidBlockSig);
    const received2 = parseMicroBlock(p, second.microBlock.bytes);
    const liquid2 = applyMicroBlock(liquid1, received2);
    assert.deepEqual(liquid2.id, second.microBlock.totalLiquidBlockSig);
    assert.deepEqual(
      liquid2.transactions.map((t) => t.idBase58),
      TXS.slice(0, 3).map((t) => t.idBase58),
    );
    const persisted = Block.fromBytes(p, liquid2.bytes);
    assert.ok(persisted.hasValidSignature());
    assert.equal(persisted.toJson()['transactionCount'], 3);
    assert.equal(persisted.toJson()['fee'], 300000n);

    // Wrong order or wrong parent.
    expectWeError(() => applyMicroBlock(keyBlock, received2), {
      kind: 'MicroBlockAppendError',
      message: "It doesn't reference last known micro-block (which exists)",
    });
    expectWeError(() => applyMicroBlock(liquid1, received1, { firstMicroBlock: true }), {
      message: "It's first micro and it doesn't reference base block (which exists)",
    });
  });

  it('kept liquid-block bytes: micro-blocks appended to them make the same bytes, ids that verify both ways, and a refused one changes nothing', () => {
    const many = Array.from({ length: 40 }, (_, i) => transfer(100 + i));
    // Producer with kept bytes, started from a key block that already carries a transaction and feature votes.
    const base = Block.sign(p, fieldsOf(3, consensusOf('poa'), [TXS[0]!], [3, 1, 2]), miner.privateKey);
    const minerBytes = LiquidBlockBytes.of(base);
    const receiverBytes = LiquidBlockBytes.of(base);
    let liquid = base;
    let received = base;
    for (let i = 0; i < many.length; i += 1 + (i % 7)) {
      const txs = many.slice(i, i + 1 + (i % 7));
      const made = produceMicroBlock(
        p,
        liquid,
        { transactions: txs },
        { timestamp: TS + BigInt(i), privateKey: miner.privateKey, modifiedTotalSign: i % 2 === 0, liquidBytes: minerBytes },
      );
      // The liquid block's bytes written whole, from its fields, are the ones signed.
      const counted = made.liquidBlock.size; // before its bytes were asked for
      const whole = Block.fromBytes(p, made.liquidBlock.bytes);
      assert.equal(counted, whole.bytes.length, 'blocksize counted without the bytes');
      assert.deepEqual(minerBytes.blockBytes(), made.liquidBlock.bytes);
      assert.ok(whole.hasValidSignature(), `liquid block after ${i} verifies when serialised whole`);
      assert.deepEqual(
        whole.transactions.map((t) => t.idBase58),
        [TXS[0]!, ...many.slice(0, i + txs.length)].map((t) => t.idBase58),
      );
      // A receiver without kept bytes accepts it, and one with kept bytes makes the same block.
      const micro = parseMicroBlock(p, made.microBlock.bytes);
      assert.deepEqual(applyMicroBlock(liquid, micro).bytes, made.liquidBlock.bytes);
      if (i === 8) {
        // A micro-block whose total signature is not the liquid block's is refused on the kept bytes too; the next one still fits.
        const forged = TxMicroBlock.sign(
          p,
          { version: 5, timestamp: micro.timestamp, prevLiquidBlockSig: received.id, totalLiquidBlockSig: made.liquidBlock.id, transactions: [many[39]!] },
          miner.privateKey,
        );
        expectWeError(() => applyMicroBlock(received, forged, { liquidBytes: receiverBytes }), {
          kind: 'MicroBlockAppendError',
          message: /Invalid liquid block total signature/,
        });
        assert.deepEqual(receiverBytes.blockBytes(), received.bytes, 'the kept bytes are still those of the block before the refused micro-block');
      }
      const next = applyMicroBlock(received, micro, { liquidBytes: receiverBytes });
      assert.deepEqual(next.bytes, made.liquidBlock.bytes);
      liquid = made.liquidBlock;
      received = next;
    }
    // A micro-block produced without kept bytes verifies on them.
    const plain = produceMicroBlock(p, liquid, { transactions: [TXS[1]!] }, { timestamp: TS + 99n, privateKey: miner.privateKey, modifiedTotalSign: true });
    assert.deepEqual(applyMicroBlock(received, plain.microBlock, { liquidBytes: receiverBytes }).bytes, plain.liquidBlock.bytes);
  });

  it("kept liquid-block bytes: the signing nonce's digest depends only on the bytes signed, however they were appended", () => {
    const many = Array.from({ length: 12 }, (_, i) => transfer(200 + i));
    const base = Block.sign(p, fieldsOf(3, consensusOf('poa'), [TXS[0]!], [3, 1, 2]), miner.privateKey);
    const stepwise = LiquidBlockBytes.of(base);
    let liquid = base;
    for (let i = 0; i < many.length; i += 4) {
      liquid = produceMicroBlock(
        p,
        liquid,
        { transactions: many.slice(i, i + 4) },
        { timestamp: TS + BigInt(i), privateKey: miner.privateKey, modifiedTotalSign: true, liquidBytes: stepwise },
      ).liquidBlock;
    }
    const signed = stepwise.append([TXS[1]!]);
    const digest = stepwise.signingDigest();
    // The same liquid block serialised at once, the same transaction appended: the same bytes and digest.
    const whole = LiquidBlockBytes.of(liquid);
    assert.deepEqual(whole.append([TXS[1]!]), signed);
    assert.deepEqual(whole.signingDigest(), digest);
    // Another transaction appended: another digest.
    const other = LiquidBlockBytes.of(liquid);
    other.append([TXS[2]!]);
    assert.notDeepEqual(other.signingDigest(), digest);
    // Nothing appended: nothing to sign.
    assert.throws(() => LiquidBlockBytes.of(liquid).signingDigest(), /Nothing appended/);
  });

  it('v3/v4 sign the bytes with the total signature, v5/v6 without it', () => {
    const total = signLiquidBlock(p, keyBlock, { transactions: [TXS[0]!] }, miner.privateKey).id;
    const base = { timestamp: TS, prevLiquidBlockSig: keyBlock.id, transactions: [TXS[0]!] };
    const v3 = TxMicroBlock.sign(p, { ...base, version: 3, totalLiquidBlockSig: total }, miner.privateKey);
    const v5 = TxMicroBlock.sign(p, { ...base, version: 5 }, miner.privateKey).withTotalSignature(total);
    assert.deepEqual(v3.signedBytes, v3.bytes.subarray(0, v3.bytes.length - 64));
    assert.deepEqual(v5.signedBytes, concatBytes(v5.bytes.subarray(0, 73), v5.bytes.subarray(137, v5.bytes.length - 64)));
    assert.ok(p.crypto.verify(miner.publicKey, v5.signedBytes, v5.signature));
    assert.equal(p.crypto.verify(miner.publicKey, v5.bytes.subarray(0, v5.bytes.length - 64), v5.signature), false);
    assert.equal(v3.bytes.length, v5.bytes.length);
    assert.deepEqual(v3.bytes.subarray(1, 137), v5.bytes.subarray(1, 137));
    // Another total signature keeps a v5 micro-block's signature valid, not a v3 one's.
    const otherTotal = new Uint8Array(64).fill(1);
    assert.ok(v5.withTotalSignature(otherTotal).hasValidSignature());
    assert.equal(v3.withTotalSignature(otherTotal).hasValidSignature(), false);
    expectWeError(() => applyMicroBlock(keyBlock, v5.withTotalSignature(otherTotal)), {
      message: `Invalid liquid block total signature '${encodeBase58(otherTotal)}'`,
    });
    // Vote micro-blocks likewise.
    const votes = someVotes();
    const vote4 = VoteMicroBlock.sign(p, { timestamp: TS, prevLiquidBlockSig: keyBlock.id, totalLiquidBlockSig: total, votes, version: 4 }, miner.privateKey);
    const vote6 = VoteMicroBlock.sign(p, { timestamp: TS, prevLiquidBlockSig: keyBlock.id, votes, version: 6 }, miner.privateKey).withTotalSignature(total);
    assert.ok(vote4.hasValidSignature() && vote6.hasValidSignature());
    assert.deepEqual(vote6.signedBytes, concatBytes(vote6.bytes.subarray(0, 73), vote6.bytes.subarray(137, vote6.bytes.length - 64)));
    assert.equal(vote4.withTotalSignature(otherTotal).hasValidSignature(), false);
    assert.ok(vote6.withTotalSignature(otherTotal).hasValidSignature());
  });

  it('micro-block wire layout', () => {
    const m = TxMicroBlock.sign(
      p,
      { version: 3, timestamp: TS, prevLiquidBlockSig: keyBlock.id, totalLiquidBlockSig: REFERENCE, transactions: TXS.slice(0, 2) },
      miner.privateKey,
    );
    assert.deepEqual(m.bytes, concatBytes(Uint8Array.of(3), i64(TS), keyBlock.id, REFERENCE, txSection(i32(2), TXS.slice(0, 2)), miner.publicKey, m.signature));
    // v5 signs without the total signature; its wire bytes carry it in the same place.
    const m5 = TxMicroBlock.sign(
      p,
      { version: 5, timestamp: TS, prevLiquidBlockSig: keyBlock.id, totalLiquidBlockSig: REFERENCE, transactions: TXS.slice(0, 2) },
      miner.privateKey,
    );
    assert.deepEqual(
      m5.bytes,
      concatBytes(Uint8Array.of(5), i64(TS), keyBlock.id, REFERENCE, txSection(i32(2), TXS.slice(0, 2)), miner.publicKey, m5.signature),
    );
    assert.ok(parseMicroBlock(p, m5.bytes).hasValidSignature());
    const votes = someVotes();
    const v = VoteMicroBlock.sign(p, { version: 4, timestamp: TS, prevLiquidBlockSig: keyBlock.id, totalLiquidBlockSig: REFERENCE, votes }, miner.privateKey);
    assert.deepEqual(
      v.bytes,
      concatBytes(Uint8Array.of(4), i64(TS), keyBlock.id, REFERENCE, i16(2), votes[0]!.bytes, votes[1]!.bytes, miner.publicKey, v.signature),
    );
    for (const x of [m, v]) {
      const back = parseMicroBlock(p, x.bytes);
      assert.deepEqual(back.bytes, x.bytes);
      assert.equal(back.kind, x.kind);
    }
  });

  it('CFT: a vote micro-block replaces the liquid block votes', () => {
    const cftKey = Block.sign(p, fieldsOf(3, consensusOf('cft'), [TXS[0]!], []), miner.privateKey);
    const votes = validators.map((v) => Vote.sign(p, v.privateKey, cftKey.votingHash));
    const produced = produceMicroBlock(p, cftKey, { votes }, { timestamp: TS + 1n, privateKey: miner.privateKey, modifiedTotalSign: true });
    assert.equal(produced.microBlock.version, 6);
    const liquid = applyMicroBlock(cftKey, parseMicroBlock(p, produced.microBlock.bytes), { firstMicroBlock: true });
    assert.deepEqual(liquid.bytes, produced.liquidBlock.bytes);
    assert.equal(liquid.validVotes().length, 3);
    assert.equal(liquid.transactionCount, 1);
    assert.deepEqual(liquid.votingHash, cftKey.votingHash);
    // A second vote micro-block replaces, not appends.
    const later = produceMicroBlock(p, liquid, { votes: votes.slice(0, 1) }, { timestamp: TS + 2n, privateKey: miner.privateKey, modifiedTotalSign: false });
    const liquid2 = applyMicroBlock(liquid, later.microBlock);
    assert.equal(liquid2.consensus.type === 'cft' && liquid2.consensus.votes.length, 1);
    // Its summary keeps the transactions' fee and count; the id and the size are the new header's.
    const summary = liquid2.summaryAfter(liquid, []);
    assert.deepEqual(summary, { id: liquid2.id, size: liquid2.bytes.length, transactionCount: 1, fee: cftKey.fee });
    assert.notEqual(summary.size, liquid.summary.size);
    // On a PoA block a vote micro-block is an error.
    const onPoa = VoteMicroBlock.sign(p, { version: 6, timestamp: TS, prevLiquidBlockSig: keyBlock.id, votes }, miner.privateKey).withTotalSignature(REFERENCE);
    expectWeError(() => applyMicroBlock(keyBlock, onPoa), { kind: 'MicroBlockAppendError', message: 'Expected CFT consensus block data, but got PoA instead' });
    expectWeError(() => signLiquidBlock(p, keyBlock, { votes }, miner.privateKey), { message: 'Expected CFT consensus block data, but got PoA instead' });
  });

  it('another generator, a bad micro-block signature', () => {
    const byOther = produceMicroBlock(p, keyBlock, { transactions: [TXS[0]!] }, { timestamp: TS, privateKey: other.privateKey, modifiedTotalSign: false });
    expectWeError(() => applyMicroBlock(keyBlock, byOther.microBlock), { message: 'Base block has been generated by another account' });
    const good = produceMicroBlock(p, keyBlock, { transactions: [TXS[0]!] }, { timestamp: TS, privateKey: miner.privateKey, modifiedTotalSign: false });
    const bytes = Uint8Array.from(good.microBlock.bytes);
    bytes[bytes.length - 1]! ^= 1;
    expectWeError(() => applyMicroBlock(keyBlock, parseMicroBlock(p, bytes)), { code: 101, kind: 'InvalidSignature' });
  });

  it("WE's build checks and parse refusals", () => {
    const base = { timestamp: TS, prevLiquidBlockSig: keyBlock.id, totalLiquidBlockSig: REFERENCE };
    expectWeError(() => TxMicroBlock.sign(p, { ...base, version: 3, transactions: [] }, miner.privateKey), {
      message: 'cannot create MicroBlock with empty transactions',
    });
    expectWeError(() => TxMicroBlock.sign(p, { ...base, version: 3, transactions: Array.from({ length: 6001 }, () => TXS[0]!) }, miner.privateKey), {
      message: 'too many txs in MicroBlock: allowed: 6000, actual: 6001',
    });
    expectWeError(() => VoteMicroBlock.sign(p, { ...base, version: 4, votes: [] }, miner.privateKey), { message: 'cannot create MicroBlock with empty votes' });
    const vote = someVotes()[0]!;
    expectWeError(() => VoteMicroBlock.sign(p, { ...base, version: 4, votes: Array.from({ length: 501 }, () => vote) }, miner.privateKey), {
      message: 'too many votes in MicroBlock: allowed: 500, actual: 501',
    });
    expectWeError(() => TxMicroBlock.sign(p, { timestamp: TS, prevLiquidBlockSig: keyBlock.id, version: 3, transactions: [TXS[0]!] }, miner.privateKey), {
      message: "Incorrect totalLiquidBlockSig length: '0', expected '64'",
    });
    expectWeError(() => TxMicroBlock.sign(p, { ...base, prevLiquidBlockSig: new Uint8Array(63), version: 3, transactions: [TXS[0]!] }, miner.privateKey), {
      message: 'Incorrect prevResBlockSig: 63',
    });
    expectWeError(() => TxMicroBlock.sign(p, { ...base, version: 4, transactions: [TXS[0]!] }, miner.privateKey), {
      message: /Unsupported micro-block version 4/,
    });
    expectWeError(
      () =>
        TxMicroBlock.sign(p, { timestamp: TS, prevLiquidBlockSig: keyBlock.id, version: 5, transactions: [TXS[0]!] }, miner.privateKey).withTotalSignature(
          new Uint8Array(0),
        ),
      {
        message: "Incorrect totalLiquidBlockSig length: '0', expected '64'",
      },
    );

    const header = concatBytes(i64(TS), keyBlock.id, REFERENCE);
    const tail = concatBytes(miner.publicKey, new Uint8Array(64));
    expectWeError(() => parseMicroBlock(p, concatBytes(Uint8Array.of(7), header, tail)), { message: 'Unknown micro-block version 7' });
    expectWeError(() => parseMicroBlock(p, concatBytes(Uint8Array.of(3), header, i32(4), i32(0), tail)), {
      message: 'cannot create MicroBlock with empty transactions',
    });
    expectWeError(() => parseMicroBlock(p, concatBytes(Uint8Array.of(3), header, i32(4), i32(6001), tail)), { message: /too many txs/ });
    expectWeError(() => parseMicroBlock(p, concatBytes(Uint8Array.of(5), header, txSection(i32(2), [TXS[0]!]), tail)), {
      message: "Transaction count '2' is not equal to transaction data size '1' in micro-block",
    });
    expectWeError(() => parseMicroBlock(p, concatBytes(Uint8Array.of(4), header, i16(0), tail)), { message: 'cannot create MicroBlock with empty votes' });
    expectWeError(() => parseMicroBlock(p, concatBytes(Uint8Array.of(6), header, i16(-2), tail)), { message: 'cannot create MicroBlock with empty votes' });
    expectWeError(() => parseMicroBlock(p, concatBytes(Uint8Array.of(6), header, i16(501), tail)), { message: /too many votes/ });
    expectWeError(() => parseMicroBlock(p, concatBytes(Uint8Array.of(3), header, txSection(i32(1), [TXS[0]!]), tail, Uint8Array.of(0))), {
      message: /trailing/,
    });
  });

  it('every truncation and random input is a WeError', () => {
    const micros = [
      TxMicroBlock.sign(
        p,
        { version: 3, timestamp: TS, prevLiquidBlockSig: keyBlock.id, totalLiquidBlockSig: REFERENCE, transactions: TXS.slice(0, 2) },
        miner.privateKey,
      ),
      VoteMicroBlock.sign(p, { version: 6, timestamp: TS, prevLiquidBlockSig: keyBlock.id, votes: someVotes() }, miner.privateKey).withTotalSignature(
        REFERENCE,
      ),
    ];
    for (const m of micros) for (let n = 0; n < m.bytes.length; n++) expectWeError(() => parseMicroBlock(p, m.bytes.subarray(0, n)), { code: 199 });
    const check = (bytes: Uint8Array): void => {
      try {
        parseMicroBlock(p, bytes);
      } catch (e) {
        assert.ok(e instanceof WeError, e instanceof Error ? e.stack : String(e));
      }
    };
    fc.assert(
      fc.property(fc.constantFrom(3, 4, 5, 6), fc.uint8Array({ maxLength: 400 }), (v, rest) => check(Uint8Array.from([v, ...rest]))),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.constantFrom(...micros), fc.nat(), fc.integer({ min: 0, max: 255 }), (m, i, v) => {
        const bytes = Uint8Array.from(m.bytes);
        bytes[i % bytes.length] = v;
        check(bytes);
      }),
      { numRuns: 300 },
    );
  });
});

describe('GOST networks', () => {
  it('blocks and micro-blocks use the suite lengths (64-byte keys)', async () => {
    const g = await Protocol.create({ crypto: 'gost', chainId: 'T' });
    const kp = g.crypto.keyPairFromSeedPhrase('gost block miner');
    const v = g.crypto.keyPairFromSeedPhrase('gost validator');
    const key = Block.sign(g, { ...fieldsOf(3, consensusOf('cft'), [], [1]) }, kp.privateKey);
    assert.equal(key.size, 196 + 32 + 2);
    const back = Block.fromBytes(g, key.bytes);
    assert.ok(back.hasValidSignature());
    const vote = Vote.sign(g, v.privateKey, key.votingHash);
    assert.equal(vote.bytes.length, 64 + 32 + 64);
    const produced = produceMicroBlock(g, key, { votes: [vote] }, { timestamp: TS, privateKey: kp.privateKey, modifiedTotalSign: false });
    const liquid = applyMicroBlock(key, parseMicroBlock(g, produced.microBlock.bytes), { firstMicroBlock: true });
    assert.equal(liquid.validVotes().length, 1);
    expectWeError(() => Block.fromBytes(p, key.bytes), { code: 199 });
  });
});
