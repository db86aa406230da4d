/**
 * A confidential contract on a 4-node devnet of node processes: nodes 0–2 hold
 * `contract_validator` and are the contract's group, node 3 is outside it. A confidential
 * call made on node 0 (`/confidential-contracts/call`) carries only the commitment of its
 * params on chain; its input reaches the group over messages 52–55, a member miner executes
 * it (the SDK key-value contract from a local package) and mines a 105 V4; the output is
 * then readable on every member over REST, and on none outside the group. Calls that read
 * state carry their readings. The same calls go through WE's ConfidentialContractService
 * on a member's gRPC port. A confidential contract with policy `majority` gets its 105 V4
 * only with the proofs of the group's validators (ContractValidatorResultsV2, code 56),
 * whichever node mines it — a miner outside the group builds it from their results.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KeyPair } from '../../src/crypto/suite.js';
import type { Protocol } from '../../src/protocol/protocol.js';
import * as grpc from '@grpc/grpc-js';
import { ContractKeysRequest, ContractKeysResponse } from '@wavesenterprise/js-contract-grpc-client/contract/contract_contract_service.js';
import type { Address } from '../../src/crypto/address.js';
import { decodeBase58, encodeBase58 } from '../../src/crypto/encoding.js';
import { decodeConfidentialResponse, encodeConfidentialRequest } from '../../src/contracts/grpc/confidential-service.js';
import { Permit } from '../../src/protocol/transactions/permissions.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import type { ValidationPolicy } from '../../src/protocol/transactions/contracts.js';
import { type Devnet, until } from '../../devkit/network.js';
import { tempDir } from '../../devkit/tmp.js';
import { confidentialCreate } from './support/confidential.js';
import { broadcastVia, increasingTimestamps, startContractsDevnet } from './support/devnet.js';

const IMAGE = 'registry.weft.test/kv-sdk:1.0';
const WAIT_MS = 120_000;
const MEMBERS = [0, 1, 2];
const OUTSIDER = 3;

describe('a confidential contract on a 4-node devnet', () => {
  const packages = tempDir('weft-devnet-confidential-pkg-');
  let net: Devnet;
  let protocol: Protocol;
  let developer: KeyPair;
  let imageHash: string;
  let grpcPorts: readonly number[];
  let owners: Address[];
  const stamp = increasingTimestamps();
  /** The group's counter contract (participants MEMBERS, owner node 0), created now. */
  const counterContract = (validationPolicy?: ValidationPolicy): Transaction =>
    confidentialCreate(protocol, {
      sender: developer,
      timestamp: stamp(),
      isConfidential: true,
      participants: MEMBERS.map((i) => owners[i]!),
      owners: [owners[0]!],
      image: IMAGE,
      imageHash,
      params: [{ key: 'start', type: 'integer', value: 1n }],
      validationPolicy,
    });

  const broadcast = (tx: Transaction, via = 0): Promise<void> => broadcastVia(net, tx, via);

  const onEveryNode = (what: string, path: string): Promise<Array<Record<string, unknown>>> =>
    until(
      what,
      async () => {
        const answers = await Promise.all(net.nodes.map((n) => n.get(path)));
        return answers.every((a) => a.status === 200) ? answers.map((a) => a.json as Record<string, unknown>) : undefined;
      },
      WAIT_MS,
    );

  before(async () => {
    ({ net, protocol, developer, imageHash, grpcPorts } = await startContractsDevnet(4, IMAGE, packages));
    owners = net.nodes.map((n) => protocol.addresses.parseAddress(n.spec.ownerAddress));
  });

  after(() => net?.dispose());

  it('executes a call on a group member with its off-chain input; members read the output, the outsider cannot', async () => {
    // The group's nodes become contract validators.
    const permits = MEMBERS.map((i) => {
      const timestamp = stamp();
      return protocol.sign(
        protocol.transaction(Permit, 1, {
          senderPublicKey: developer.publicKey,
          target: owners[i]!,
          timestamp,
          fee: 1_000_000n,
          permissionOp: { opType: 'add', role: 'contract_validator', timestamp, dueTimestamp: null },
        }),
        developer.privateKey,
      );
    });
    for (const p of permits) await broadcast(p);
    await until(
      'the group nodes among the contract validators on every node',
      async () => {
        const all = await Promise.all(net.nodes.map((n) => n.get('/permissions/contractValidators')));
        const holds = (a: (typeof all)[number]): boolean =>
          MEMBERS.every((i) => ((a.json as { addresses?: unknown[] }).addresses ?? []).includes(owners[i]!.toString()));
        return all.every((a) => a.status === 200 && holds(a)) ? true : undefined;
      },
      WAIT_MS,
    );

    const create = counterContract();
    await broadcast(create);
    const infos = await onEveryNode('the confidential contract on every node', `/contracts/info/${create.idBase58}`);
    for (const info of infos) {
      assert.equal(info['isConfidential'], true);
      assert.deepEqual(
        info['groupParticipants'],
        MEMBERS.map((i) => owners[i]!.toString()),
      );
      assert.deepEqual(info['groupOwners'], [owners[0]!.toString()]);
    }

    /** A confidential call through `via`, mined, its data on every member; returns the call's id and the members' answers. */
    const confidentialCall = async (
      via: number,
      params: unknown[],
    ): Promise<{
      callId: string;
      callTx: Record<string, unknown>;
      executed: Array<Record<string, unknown>>;
      answers: Array<Record<string, Record<string, unknown>>>;
    }> => {
      const call = await net.nodes[via]!.post('/confidential-contracts/call', {
        sender: owners[via]!.toString(),
        contractId: create.idBase58,
        contractVersion: 1,
        params,
        timestamp: Number(stamp()),
        fee: 10_000_000,
      });
      assert.equal(call.status, 200, call.text);
      const callTx = call.json.callContractTransactionV6 as Record<string, unknown>;
      const callId = String(callTx['id']);
      const executed = await onEveryNode('the 105 of the confidential call on every node', `/contracts/executed-tx-for/${callId}`);
      // Every member gets the input and output (from the caller and the miner) and serves them.
      const answers = await Promise.all(
        MEMBERS.map((i) =>
          until(
            `the confidential call's data on node ${i}`,
            async () => {
              const r = await net.nodes[i]!.get(`/confidential-contracts/tx/${callId}`);
              return r.status === 200 ? (r.json as Record<string, Record<string, unknown>>) : undefined;
            },
            WAIT_MS,
          ),
        ),
      );
      return { callId, callTx, executed, answers };
    };

    const { callId, callTx, executed, answers } = await confidentialCall(0, [
      { key: 'action', type: 'string', value: 'put' },
      { key: 'key', type: 'string', value: 'secret' },
      { key: 'value', type: 'string', value: 'swordfish' },
    ]);
    assert.equal(callTx['version'], 6);
    assert.deepEqual(callTx['params'], []);
    for (const e of executed) {
      assert.equal(e['version'], 4);
      assert.deepEqual(e['results'], []);
      assert.equal(typeof e['outputCommitment'], 'string');
      assert.ok(!JSON.stringify(e).includes('swordfish'), 'the output stays off-chain');
    }
    for (const answer of answers) {
      assert.equal(answer['executedContractTransactionV4']!['id'], executed[0]!['id']);
      assert.equal(answer['confidentialInput']!['commitment'], callTx['inputCommitment']);
      assert.deepEqual(answer['confidentialOutput']!['entries'], [{ key: 'secret', type: 'string', value: 'swordfish' }]);
    }

    // Calls that read the contract's state read its confidential state (the public `counter` = 1 from the create, then the confidential one).
    const increment = (by: number): unknown[] => [
      { key: 'action', type: 'string', value: 'increment' },
      { key: 'by', type: 'integer', value: by },
    ];
    const second = await confidentialCall(1, increment(2));
    // A call that reads the contract's state carries its readings (what it read, a hash of what it got).
    for (const e of second.executed) {
      const readings = e['readings'] as Array<Record<string, unknown>>;
      assert.ok(
        readings.some((r) => r['contractId'] === create.idBase58 && JSON.stringify(r).includes('counter')),
        JSON.stringify(readings),
      );
      assert.equal(typeof e['readingsHash'], 'string');
    }
    assert.deepEqual(
      second.executed.map((e) => e['readingsHash']),
      second.executed.map(() => second.executed[0]!['readingsHash']),
    );
    const last = await confidentialCall(2, increment(4));
    for (const answer of last.answers) {
      assert.deepEqual(answer['confidentialOutput']!['entries'], [
        { key: 'counter', type: 'integer', value: 7 },
        { key: 'last', type: 'integer', value: 3 },
        { key: 'missing', type: 'string', value: 'undefined' },
      ]);
    }
    for (const i of MEMBERS) {
      const state = await net.nodes[i]!.get(`/confidential-contracts/${create.idBase58}`);
      assert.equal(state.status, 200, state.text);
      assert.deepEqual(state.json, [
        { key: 'secret', type: 'string', value: 'swordfish' },
        { key: 'counter', type: 'integer', value: 7 },
        { key: 'last', type: 'integer', value: 3 },
        { key: 'missing', type: 'string', value: 'undefined' },
      ]);
    }
    const counters = await Promise.all(net.nodes.map(async (n) => (await n.get(`/contracts/${create.idBase58}/counter`)).json as Record<string, unknown>));
    for (const c of counters) assert.equal(c['value'], 1, 'the public counter is the one the create wrote');

    const outsider = net.nodes[OUTSIDER]!;
    const tx = await outsider.get(`/confidential-contracts/tx/${callId}`);
    assert.equal(tx.status, 400);
    assert.match(String(tx.json.message), /is not in confidential groups for contract/);
    const state = await outsider.get(`/confidential-contracts/${create.idBase58}`);
    assert.equal(state.status, 400);
    assert.equal(state.json.error, 651);
    const refused = await outsider.post('/confidential-contracts/call', {
      sender: owners[OUTSIDER]!.toString(),
      contractId: create.idBase58,
      contractVersion: 1,
      params: [],
      timestamp: Number(stamp()),
      fee: 10_000_000,
    });
    assert.equal(refused.json.error, 651);
    // Nor does the public contract state hold the secret anywhere.
    for (const n of net.nodes) assert.ok(!(await n.get(`/contracts/${create.idBase58}`)).text.includes('swordfish'));

    // WE's public ConfidentialContractService on node 1's gRPC port: the state, and the executed call.
    const client = new grpc.Client(`127.0.0.1:${grpcPorts[1]!}`, grpc.credentials.createInsecure());
    try {
      const unary = (method: string, request: Uint8Array): Promise<Buffer> =>
        new Promise((resolve, reject) =>
          client.makeUnaryRequest(
            `/wavesenterprise.ConfidentialContractService/${method}`,
            (b: Uint8Array) => Buffer.from(b),
            (b: Buffer) => b,
            request,
            new grpc.Metadata(),
            (e, v) => (e === null ? resolve(v!) : reject(e)),
          ),
        );
      const keys = ContractKeysResponse.decode(
        await unary(
          'GetContractKeys',
          ContractKeysRequest.encode({ contractId: create.idBase58, matches: 'c.*', limit: undefined, offset: undefined, keysFilter: undefined }).finish(),
        ),
      );
      assert.deepEqual(
        keys.entries.map((e) => [e.key, e.intValue?.toString()]),
        [['counter', '7']],
      );
      const executedTx = decodeConfidentialResponse(
        'executed',
        await unary('ConfidentialExecutedTxByExecutableTxId', encodeConfidentialRequest('executed', { transactionId: last.callId })),
      );
      assert.equal(encodeBase58(Uint8Array.from((executedTx['transaction'] as { id: number[] }).id)), last.executed[0]!['id']);
    } finally {
      client.close();
    }
  });

  it("under policy majority, mines a confidential call only with the proofs of the group's validators", async () => {
    const create = counterContract({ type: 'majority' });
    await broadcast(create);
    await onEveryNode('the majority confidential contract on every node', `/contracts/info/${create.idBase58}`);
    const ids: string[] = [];
    for (const via of MEMBERS) {
      const call = await net.nodes[via]!.post('/confidential-contracts/call', {
        sender: owners[via]!.toString(),
        contractId: create.idBase58,
        contractVersion: 1,
        params: [
          { key: 'action', type: 'string', value: 'increment' },
          { key: 'by', type: 'integer', value: 1 },
        ],
        timestamp: Number(stamp()),
        fee: 10_000_000,
      });
      assert.equal(call.status, 200, call.text);
      ids.push(String((call.json.callContractTransactionV6 as Record<string, unknown>)['id']));
      const executed = await onEveryNode('the 105 of the majority confidential call on every node', `/contracts/executed-tx-for/${ids.at(-1)!}`);
      const e = executed[0]!;
      assert.equal(e['version'], 4);
      const proofs = e['validationProofs'] as Array<{ validatorPublicKey: string }>;
      // The group's validators but the miner: 3 or 2 of them, ceil(2/3 × V) = 2.
      assert.equal(proofs.length, 2, JSON.stringify(e));
      const miner = protocol.addresses.fromPublicKey(decodeBase58(String(e['senderPublicKey']))).toString();
      const signers = proofs.map((p) => protocol.addresses.fromPublicKey(decodeBase58(p.validatorPublicKey)).toString());
      for (const s of signers) {
        assert.ok(
          MEMBERS.some((i) => owners[i]!.toString() === s),
          `${s} is a group member`,
        );
        assert.notEqual(s, miner);
      }
    }
    const answers = await Promise.all(
      MEMBERS.map((i) =>
        until(
          `the last call's output on node ${i}`,
          async () => {
            const r = await net.nodes[i]!.get(`/confidential-contracts/tx/${ids.at(-1)!}`);
            return r.status === 200 ? (r.json as Record<string, Record<string, unknown>>) : undefined;
          },
          WAIT_MS,
        ),
      ),
    );
    for (const a of answers)
      assert.deepEqual(a['confidentialOutput']!['entries'], [
        { key: 'counter', type: 'integer', value: 4 },
        { key: 'last', type: 'integer', value: 3 },
        { key: 'missing', type: 'string', value: 'undefined' },
      ]);
  });
});
