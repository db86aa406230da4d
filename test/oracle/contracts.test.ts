/**
 * Contract transactions against the official clients: the per-version cases, plus
 * CallContract V6 (which WE reads only from binary and gRPC) and group sets of five or
 * more members (where WE's Scala Set order differs from the clients' array order).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decodeBase58 } from '../../src/crypto/encoding.js';
import { parseJson, stringifyJson } from '../../src/protocol/json.js';
import { CallContract, type CallContractTransaction } from '../../src/protocol/transactions/contracts.js';
import { scalaSetOrder } from '../../src/protocol/transactions/scala-set.js';
import { callContractV6Fields, cases } from './cases/contracts.js';
import { buildWithLibrary, envFor, libraryVerifies, MODES, ORACLE_RUNS, PHRASES, runCases, type OracleCase } from './harness.js';
import { WeError } from '../../src/errors/catalogue.js';

await runCases(cases);

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const tf2Waves = MODES.find((m) => m.library === 'tf2')!;

describe('CallContract V6 (type 104): binary and gRPC only in WE', () => {
  const c: OracleCase = { name: 'CallContract', type: 104, version: 6, libraries: ['tf2'], fields: callContractV6Fields };

  it('matches transactions-factory 2.1.4 when read outside the broadcast path', async () => {
    const env = await envFor(tf2Waves);
    const p = env.protocol;
    await fc.assert(
      fc.asyncProperty(callContractV6Fields(env), fc.nat(PHRASES.length - 1), async (fields, i) => {
        const signer = env.accounts[i]!;
        const built = await buildWithLibrary(tf2Waves, c, fields, signer);
        const text = JSON.stringify(built.json);
        // The broadcast path refuses V6, as WE has no REST reader for it.
        assert.throws(
          () => p.transactionFromJson(parseJson(text)),
          (e: unknown) =>
            e instanceof WeError && e.code === 199 && e.message === 'CallContract V6 transaction can only be created by /confidential-contracts/call',
        );
        const tx = p.transactionFromJson(parseJson(text), { forBroadcast: false }) as CallContractTransaction;
        assert.equal(hex(tx.bodyBytes), hex(built.body), 'body bytes');
        assert.equal(tx.idBase58, built.id, 'id');
        assert.ok(tx.hasValidSenderSignature(), "Weft verifies the library's signature");
        const own = p.crypto.sign(p.crypto.keyPairFromSeedPhrase(signer.phrase).privateKey, tx.proofSourceBytes);
        assert.ok(libraryVerifies(tf2Waves, signer.publicKey, own, built.body), "the library verifies Weft's signature");
        // The same transaction built from typed values, and read back from its wire bytes.
        const typed = p.transaction(CallContract, 6, tx.data, tx.proofs);
        assert.equal(hex(typed.bytes), hex(tx.bytes));
        const back = p.transactionFromBytes(tx.bytes);
        assert.equal(stringifyJson(back.toJson()), stringifyJson(tx.toJson()));
        assert.equal(tx.toJson()['inputCommitment'], fields['inputCommitment']);
        assert.deepEqual(tx.data.inputCommitment, decodeBase58(String(fields['inputCommitment'])));
      }),
      { numRuns: ORACLE_RUNS },
    );
  });
});

describe('group members beyond four: WE serializes the Scala Set order (reference §7 item 2)', () => {
  const variants: Array<{ name: string; type: number; version: number; extra: Record<string, unknown> }> = [
    {
      name: 'CreateContract',
      type: 103,
      version: 6,
      extra: { image: 'img', imageHash: 'a'.repeat(64), apiVersion: '1.0', payments: [], isConfidential: true },
    },
    {
      name: 'CreateContract',
      type: 103,
      version: 7,
      extra: { payments: [], isConfidential: true, storedContract: { bytecode: 'AQID', bytecodeHash: 'b'.repeat(64) } },
    },
    {
      name: 'UpdateContract',
      type: 107,
      version: 5,
      extra: { contractId: '3x5b7WMtMtoNa4s2tWkNcVVkV2KWm2mN5gx2bzbcyAdx', image: 'img', imageHash: 'c'.repeat(64), apiVersion: '1.0' },
    },
    {
      name: 'UpdateContract',
      type: 107,
      version: 6,
      extra: { contractId: '3x5b7WMtMtoNa4s2tWkNcVVkV2KWm2mN5gx2bzbcyAdx', storedContract: { image: 'img', imageHash: 'd'.repeat(64), apiVersion: '1.1' } },
    },
  ];

  for (const v of variants) {
    it(`${v.name} V${v.version}: client array order is signed, Weft rebuilds the Set order`, async () => {
      const env = await envFor(tf2Waves);
      const p = env.protocol;
      const members = env.accounts.map((a) => a.address);
      assert.equal(members.length, 6);
      const setOrder = scalaSetOrder(
        members.map((m) => p.addresses.parseAddress(m)),
        (a) => a.bytes,
        (a) => a.toString(),
      ).map((a) => a.toString());
      // An order the client keeps but WE would not: the Set order reversed.
      const listed = [...setOrder].reverse();
      assert.notDeepEqual(listed, setOrder);
      const c: OracleCase = { name: v.name, type: v.type, version: v.version, libraries: ['tf2'], fields: () => fc.constant({}) };
      const base = {
        ...(v.type === 103 ? { contractName: 'group', params: [] } : {}),
        fee: 100_000_000,
        timestamp: 1_700_000_000_000,
        validationPolicy: { type: 'any' },
        ...v.extra,
      };
      const signer = env.accounts[0]!;
      const asListed = await buildWithLibrary(tf2Waves, c, { ...base, groupParticipants: listed, groupOwners: listed.slice(1) }, signer);
      const tx = p.transactionFromJson(parseJson(JSON.stringify(asListed.json)));
      const json = tx.toJson();
      assert.deepEqual(json['groupParticipants'], setOrder, 'Weft keeps the Set order');
      assert.deepEqual(
        json['groupOwners'],
        setOrder.filter((a) => listed.slice(1).includes(a)),
      );
      assert.notEqual(hex(tx.bodyBytes), hex(asListed.body), 'the client signed other bytes');
      assert.ok(!tx.hasValidSenderSignature(), 'so the client signature does not verify, as against a WE node');
      // Listing the members in the Set order, the client signs exactly Weft's bytes.
      const ownersInSetOrder = setOrder.filter((a) => listed.slice(1).includes(a));
      const inSetOrder = await buildWithLibrary(tf2Waves, c, { ...base, groupParticipants: setOrder, groupOwners: ownersInSetOrder }, signer);
      assert.equal(hex(tx.bodyBytes), hex(inSetOrder.body));
      const agreed = p.transactionFromJson(parseJson(JSON.stringify(inSetOrder.json)));
      assert.ok(agreed.hasValidSenderSignature());
      assert.equal(hex(p.transactionFromBytes(agreed.bytes).bytes), hex(agreed.bytes));
    });
  }

  it('the Set order of the six test addresses is fixed', async () => {
    const env = await envFor(tf2Waves);
    const p = env.protocol;
    const order = scalaSetOrder(
      env.accounts.map((a) => p.addresses.parseAddress(a.address)),
      (a) => a.bytes,
      (a) => a.toString(),
    ).map((a) => env.accounts.findIndex((x) => x.address === a.toString()));
    assert.deepEqual(order, SIX_ACCOUNTS_SET_ORDER);
  });
});

/**
 * Indexes into PHRASES (waves crypto, chain T) in Scala HashSet iteration order, as a
 * Scala 2.11.12 `List(...).toSet` of byte arrays hashed with Arrays.hashCode prints it
 * (2.11 and 2.12 share the HashSet trie and its `improve`).
 */
const SIX_ACCOUNTS_SET_ORDER = [4, 2, 5, 0, 3, 1];
