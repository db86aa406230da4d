/**
 * Contracts on a 3-node devnet of node processes: every node runs the key-value SDK
 * contract from a local package (`node.contracts`), whichever miner's round a transaction
 * lands in executes it, and every node re-derives the same contract state from the 105s
 * in the blocks. Execution statuses travel between the nodes (P2P code 29): every node
 * answers the same signed statuses, whichever executed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ExecutionStatus } from '../../src/contracts/result.js';
import { statusMessageBytes } from '../../src/contracts/statuses.js';
import { decodeBase58 } from '../../src/crypto/encoding.js';
import type { DataEntry } from '../../src/protocol/transactions/fields.js';
import type { KeyPair } from '../../src/crypto/suite.js';
import type { Protocol } from '../../src/protocol/protocol.js';
import { stringifyJson } from '../../src/protocol/json.js';
import { CallContract, CreateContract } from '../../src/protocol/transactions/contracts.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { type Devnet, until } from '../../devkit/network.js';
import { tempDir } from '../../devkit/tmp.js';
import { startContractsDevnet } from './support/devnet.js';

const IMAGE = 'registry.weft.test/kv-sdk:1.0';
const WAIT_MS = 120_000;

describe('contracts on a 3-node devnet', () => {
  const packages = tempDir('weft-devnet-contracts-pkg-');
  let net: Devnet;
  let protocol: Protocol;
  let developer: KeyPair;
  let imageHash: string;
  let createId: Uint8Array | undefined;

  const sign = (codec: Parameters<Protocol['transaction']>[0], version: number, data: object): Transaction =>
    protocol.sign(
      protocol.transaction(codec, version, {
        senderPublicKey: developer.publicKey,
        timestamp: BigInt(Date.now()),
        feeAssetId: null,
        atomicBadge: null,
        payments: [],
        ...data,
      }),
      developer.privateKey,
    );

  /** Broadcast through node `via`; resolves with the 105's id once every node holds it. */
  const mined = async (tx: Transaction, via: number): Promise<string> => {
    const r = await net.nodes[via]!.post('/transactions/broadcast', stringifyJson(tx.toJson()));
    assert.equal(r.status, 200, r.text);
    const ids = await until(
      `the 105 of ${tx.idBase58} on every node`,
      async () => {
        const answers = await Promise.all(net.nodes.map((n) => n.get(`/contracts/executed-tx-for/${tx.idBase58}`)));
        return answers.every((a) => a.status === 200) ? answers.map((a) => String(a.json.id)) : undefined;
      },
      WAIT_MS,
    );
    assert.equal(new Set(ids).size, 1, `one 105 everywhere: ${ids.join(', ')}`);
    return ids[0]!;
  };

  before(async () => {
    ({ net, protocol, developer, imageHash } = await startContractsDevnet(3, IMAGE, packages));
  });

  after(() => net?.dispose());

  it('every node holds the same contracts, data and executed transactions', async () => {
    const create = sign(CreateContract, 5, {
      image: IMAGE,
      imageHash,
      contractName: 'kv',
      params: [{ key: 'start', type: 'integer', value: 100n }],
      fee: 100_000_000n,
      validationPolicy: { type: 'any' },
      apiVersion: { major: 1, minor: 0 },
    });
    await mined(create, 0);
    // Calls through every node: they reach whichever miner has the round.
    for (const [i, by] of [7, 11, 13].entries()) {
      await mined(
        sign(CallContract, 5, {
          contractId: create.id,
          params: [
            { key: 'action', type: 'string', value: 'increment' },
            { key: 'by', type: 'integer', value: BigInt(by) },
          ],
          fee: 10_000_000n,
          contractVersion: 1,
        }),
        i,
      );
    }
    const states = await Promise.all(net.nodes.map(async (n) => [(await n.get('/contracts')).text, (await n.get(`/contracts/${create.idBase58}`)).text]));
    for (const s of states) assert.deepEqual(s, states[0]);
    assert.deepEqual(JSON.parse(states[0]![1]!), [
      { key: 'counter', type: 'integer', value: 131 },
      { key: 'last', type: 'integer', value: 118 },
      { key: 'missing', type: 'string', value: 'undefined' },
    ]);
    createId = create.id;
  });

  it('every node answers the same statuses for a call that succeeded and one that errored', async () => {
    assert.ok(createId !== undefined, 'the contract of the test before');
    const call = (p: DataEntry[]): Transaction => sign(CallContract, 5, { contractId: createId, params: p, fee: 10_000_000n, contractVersion: 1 });
    const succeeded = call([
      { key: 'action', type: 'string', value: 'increment' },
      { key: 'by', type: 'integer', value: 1n },
    ]);
    await mined(succeeded, 1);
    const errored = call([
      { key: 'action', type: 'string', value: 'fail' },
      { key: 'reason', type: 'string', value: 'the answer is no' },
    ]);
    const r = await net.nodes[2]!.post('/transactions/broadcast', stringifyJson(errored.toJson()));
    assert.equal(r.status, 200, r.text);
    const owners = new Set(await Promise.all(net.nodes.map(async (n) => String((await n.get('/node/owner')).json.publicKey))));
    for (const [tx, status] of [
      [succeeded, 'Success'],
      [errored, 'Error'],
    ] as const) {
      // Each node answers from its own cache: at most one of them executed the call itself.
      const answers = await until(
        `${status} of ${tx.idBase58} from every node`,
        async () => {
          const all = await Promise.all(net.nodes.map((n) => n.get(`/contracts/status/${tx.idBase58}`)));
          if (!all.every((a) => a.status === 200 && (a.json as Array<Record<string, unknown>>).some((s) => s['status'] === status))) return undefined;
          return all.every((a) => a.text === all[0]!.text) ? (all[0]!.json as Array<Record<string, unknown>>) : undefined;
        },
        WAIT_MS,
      );
      for (const s of answers) {
        assert.equal(s['txId'], tx.idBase58);
        assert.ok(owners.has(String(s['senderPublicKey'])), `signed by a node of the network: ${String(s['senderPublicKey'])}`);
        const bytes = statusMessageBytes({
          senderPublicKey: decodeBase58(String(s['senderPublicKey'])),
          txId: tx.id,
          status: s['status'] as ExecutionStatus,
          code: (s['code'] as number | null) ?? null,
          message: String(s['message']),
          timestamp: BigInt(String(s['timestamp'])),
        });
        assert.ok(protocol.crypto.verify(decodeBase58(String(s['senderPublicKey'])), bytes, decodeBase58(String(s['signature']))), 'the signature holds');
      }
      const found = answers.find((s) => s['status'] === status)!;
      if (status === 'Error') assert.match(String(found['message']), /the answer is no/);
      else assert.equal(found['code'], null);
    }
  });
});
