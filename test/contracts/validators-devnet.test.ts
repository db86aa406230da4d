/**
 * Validation policies on a 3-node devnet of node processes (reference contracts.md §1.8):
 * nodes 1 and 2 hold `contract_validator`, node 0 does not (nor does the dev account that
 * holds it in the dev genesis). A contract created with policy `majority` is created and
 * called: the validators execute each transaction from their pools and send their signed
 * results (P2P code 32); whichever node mines puts exactly ceil(2/3 × V) of them, V being
 * the validators other than itself, into the 105 as `validationProofs`; every node accepts
 * it and holds the same contract state. Node 0's signature never counts: it is no validator.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { majoritySize } from '../../src/contracts/validator-results.js';
import { decodeBase58, encodeBase58 } from '../../src/crypto/encoding.js';
import type { DataEntry } from '../../src/protocol/transactions/fields.js';
import type { KeyPair } from '../../src/crypto/suite.js';
import type { Protocol } from '../../src/protocol/protocol.js';
import { CallContract, contractResultsHash, CreateContract, type ValidationPolicy } from '../../src/protocol/transactions/contracts.js';
import { Permit } from '../../src/protocol/transactions/permissions.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { type Devnet, until } from '../../devkit/network.js';
import { tempDir } from '../../devkit/tmp.js';
import { broadcastVia, increasingTimestamps, startContractsDevnet } from './support/devnet.js';

const IMAGE = 'registry.weft.test/kv-sdk:1.0';
const WAIT_MS = 120_000;

describe('validation policies on a 3-node devnet', () => {
  const packages = tempDir('weft-validators-devnet-pkg-');
  let net: Devnet;
  let protocol: Protocol;
  let developer: KeyPair;
  let imageHash: string;
  const stamp = increasingTimestamps();
  const validatorIndexes = [1, 2];

  const sign = (codec: Parameters<Protocol['transaction']>[0], version: number, data: object): Transaction => {
    return protocol.sign(
      protocol.transaction(codec, version, {
        senderPublicKey: developer.publicKey,
        timestamp: stamp(),
        feeAssetId: null,
        atomicBadge: null,
        payments: [],
        ...data,
      }),
      developer.privateKey,
    );
  };

  /** A CreateContract of the key-value package with a start value, under a validation policy. */
  const createKv = (contractName: string, start: bigint, validationPolicy: ValidationPolicy): Transaction =>
    sign(CreateContract, 5, {
      image: IMAGE,
      imageHash,
      contractName,
      params: [{ key: 'start', type: 'integer', value: start }],
      fee: 100_000_000n,
      validationPolicy,
      apiVersion: { major: 1, minor: 0 },
    });

  const broadcast = (tx: Transaction, via: number): Promise<void> => broadcastVia(net, tx, via);

  /** A transaction in a block on every node. */
  const confirmed = (tx: Transaction): Promise<unknown> =>
    until(
      `${tx.idBase58} on every node`,
      async () => ((await Promise.all(net.nodes.map((n) => n.get(`/transactions/info/${tx.idBase58}`)))).every((a) => a.status === 200) ? true : undefined),
      WAIT_MS,
    );

  /** The 105 of `tx` once every node holds the same one. */
  const executed = async (tx: Transaction): Promise<Record<string, unknown>> => {
    const answers = await until(
      `the 105 of ${tx.idBase58} on every node`,
      async () => {
        const all = await Promise.all(net.nodes.map((n) => n.get(`/contracts/executed-tx-for/${tx.idBase58}`)));
        return all.every((a) => a.status === 200) ? all.map((a) => a.json as Record<string, unknown>) : undefined;
      },
      WAIT_MS,
    );
    assert.equal(new Set(answers.map((a) => String(a['id']))).size, 1, 'one 105 everywhere');
    return answers[0]!;
  };

  /** Checks a 105's proofs: by validators other than its miner, exactly their majority, each over its results hash; `required` among them. */
  const checkProofs = (tx105: Record<string, unknown>, required?: string): void => {
    const miner = protocol.addresses.fromPublicKey(decodeBase58(String(tx105['senderPublicKey']))).toString();
    const validators = validatorIndexes.map((i) => net.nodes[i]!.spec.ownerAddress).filter((a) => a !== miner);
    const proofs = tx105['validationProofs'] as Array<{ validatorPublicKey: string; signature: string }>;
    assert.equal(proofs.length, majoritySize(validators.length), `proofs of ${miner}'s 105: ${JSON.stringify(proofs)}`);
    const hash = decodeBase58(String(tx105['resultsHash']));
    for (const p of proofs) {
      const by = protocol.addresses.fromPublicKey(decodeBase58(p.validatorPublicKey)).toString();
      assert.ok(validators.includes(by), `a proof by ${by}, not one of the validators ${validators.join(', ')}`);
      assert.ok(protocol.crypto.verify(decodeBase58(p.validatorPublicKey), hash, decodeBase58(p.signature)));
    }
    if (required !== undefined) {
      assert.ok(
        proofs.some((p) => protocol.addresses.fromPublicKey(decodeBase58(p.validatorPublicKey)).toString() === required),
        `${required} among the proofs`,
      );
    }
  };

  before(async () => {
    ({ net, protocol, developer, imageHash } = await startContractsDevnet(3, IMAGE, packages));
    // Validators: nodes 1 and 2; the dev account gives up the role it holds in the dev genesis.
    const permit = (target: string, opType: 'add' | 'remove'): Transaction => {
      const at = stamp();
      const tx = protocol.transaction(Permit, 1, {
        senderPublicKey: developer.publicKey,
        target: protocol.addresses.parseAddress(target),
        timestamp: at,
        fee: 1_000_000n,
        permissionOp: { opType, role: 'contract_validator', timestamp: at, dueTimestamp: null },
      });
      return protocol.sign(tx, developer.privateKey);
    };
    const permits = [
      ...validatorIndexes.map((i) => permit(net.nodes[i]!.spec.ownerAddress, 'add')),
      permit(protocol.addresses.fromPublicKey(developer.publicKey).toString(), 'remove'),
    ];
    for (const p of permits) await broadcast(p, 0);
    for (const p of permits) await confirmed(p);
    const listed = await until(
      'the validators on every node',
      async () => {
        const all = await Promise.all(net.nodes.map(async (n) => (await n.get('/permissions/contractValidators')).json as { addresses: string[] }));
        const want = validatorIndexes.map((i) => net.nodes[i]!.spec.ownerAddress).sort();
        return all.every((a) => JSON.stringify([...a.addresses].sort()) === JSON.stringify(want)) ? all : undefined;
      },
      WAIT_MS,
    );
    assert.equal(listed.length, 3);
  });

  after(() => net?.dispose());

  it("a majority contract is created and called: each 105 carries the validators' proofs and every node accepts it", async () => {
    const create = createKv('kv-validated', 100n, { type: 'majority' });
    await broadcast(create, 0);
    const created = await executed(create);
    checkProofs(created);
    for (const [i, by] of [7, 11].entries()) {
      const call = sign(CallContract, 5, {
        contractId: create.id,
        params: [
          { key: 'action', type: 'string', value: 'increment' },
          { key: 'by', type: 'integer', value: BigInt(by) },
        ],
        fee: 10_000_000n,
        contractVersion: 1,
      });
      await broadcast(call, i);
      checkProofs(await executed(call));
    }
    const states = await Promise.all(net.nodes.map(async (n) => (await n.get(`/contracts/${create.idBase58}`)).text));
    for (const s of states) assert.equal(s, states[0]);
    const data = JSON.parse(states[0]!) as Array<{ key: string; value: unknown }>;
    assert.equal(data.find((e) => e.key === 'counter')?.value, 118);
    // The results hash the validators signed is WE's hash of the results the 105 carries.
    const results = (created['results'] as Array<{ key: string; type: string; value: unknown }>).map((e): DataEntry =>
      e.type === 'integer' ? { key: e.key, type: 'integer', value: BigInt(String(e.value)) } : { key: e.key, type: 'string', value: String(e.value) },
    );
    assert.equal(String(created['resultsHash']), encodeBase58(contractResultsHash(protocol, results)));
  });

  it("majority_with_one_of: every 105 carries the listed validator's proof", async () => {
    const listed = net.nodes[1]!.spec.ownerAddress;
    const create = createKv('kv-one-of', 1n, { type: 'majority_with_one_of', addresses: [protocol.addresses.parseAddress(listed)] });
    await broadcast(create, 2);
    checkProofs(await executed(create), listed);
    const call = sign(CallContract, 5, {
      contractId: create.id,
      params: [
        { key: 'action', type: 'string', value: 'increment' },
        { key: 'by', type: 'integer', value: 2n },
      ],
      fee: 10_000_000n,
      contractVersion: 1,
    });
    await broadcast(call, 1);
    checkProofs(await executed(call), listed);
    const states = await Promise.all(net.nodes.map(async (n) => (await n.get(`/contracts/${create.idBase58}/counter`)).json as { value: number }));
    assert.deepEqual(
      states.map((s) => s.value),
      [3, 3, 3],
    );
  });
});
