/**
 * Replication of confidential contract data (messages 52–55) over an in-process network of
 * four nodes: A, B, C are the contract's participants, D is outside the group. What one
 * member announces reaches the other members (encrypted for each connection outside TLS),
 * never D; a unit a block names is fetched by a member that missed its inventory; data that
 * does not match its commitment is dropped.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { KeyPair } from '../../src/crypto/suite.js';
import { transportEncryptionFor } from '../../src/crypto/transport-encryption.js';
import { entriesCommitment, type ConfidentialDataUnit } from '../../src/contracts/confidential/data.js';
import { ConfidentialMessageCode, encodeDataResponse, encodeInventory, signInventory } from '../../src/contracts/confidential/messages.js';
import { ConfidentialReplication, type ConfidentialPeer } from '../../src/contracts/confidential/replication.js';
import { ConfidentialStorage } from '../../src/contracts/confidential/storage.js';
import { contractInfoOfCreate } from '../../src/state/contract-info.js';
import { CallContract, ExecutedContract } from '../../src/protocol/transactions/contracts.js';
import type { DataEntry } from '../../src/protocol/transactions/fields.js';
import { tempDir } from '../support/tmp.js';
import { Switchboard } from '../privacy/switchboard.js';
import { BLOCK, developer, protocol } from './support/engine.js';
import { confidentialCreate } from './support/confidential.js';
import { ContractTestState } from './support/state.js';

const p = protocol;
const NAMES: readonly string[] = ['A', 'B', 'C', 'D'];
const silent = { debug: () => undefined, warn: () => undefined };

interface TestNet {
  readonly board: Switchboard;
  readonly storages: Map<string, ConfidentialStorage>;
  readonly replications: Map<string, ConfidentialReplication>;
  readonly owners: Map<string, KeyPair>;
  readonly contractId: Uint8Array;
}

const opened: ConfidentialStorage[] = [];
const started: ConfidentialReplication[] = [];
after(async () => {
  for (const r of started) r.stop();
  for (const s of opened) await s.close();
});

function network(tls: boolean): TestNet {
  const owners = new Map(NAMES.map((n) => [n, p.crypto.keyPairFromSeedPhrase(`weft confidential replication ${n}`)]));
  const address = (n: string) => p.addresses.fromPublicKey(owners.get(n)!.publicKey);
  const state = ContractTestState.create(p);
  for (const k of owners.values()) state.putParticipant(p.addresses.fromPublicKey(k.publicKey).bytes, { publicKey: k.publicKey, nodeName: null });
  const create = confidentialCreate(p, { sender: developer, timestamp: BLOCK.timestamp, isConfidential: true, participants: ['A', 'B', 'C'].map(address), owners: [address('A')] });
  state.putContract(contractInfoOfCreate(create));
  const board = new Switchboard(tls, () => p.crypto.generateKeyPair());
  const storages = new Map<string, ConfidentialStorage>();
  const replications = new Map<string, ConfidentialReplication>();
  for (const name of NAMES) {
    const node = board.add(name, address(name).bytes);
    const storage = ConfidentialStorage.open(tempDir(`weft-confidential-replication-${name}-`), p);
    opened.push(storage);
    const replication = new ConfidentialReplication({ protocol: p, storage, owner: owners.get(name)!, state: () => state, peers: node.peers, transport: transportEncryptionFor('waves'), log: silent, retryMs: 50 });
    replication.start();
    started.push(replication);
    storages.set(name, storage);
    replications.set(name, replication);
  }
  return { board, storages, replications, owners, contractId: create.id };
}

function unit(contractId: Uint8Array, entries: DataEntry[], salt = 1): ConfidentialDataUnit {
  const commitmentKey = new Uint8Array(32).fill(salt);
  return { commitment: entriesCommitment(entries, commitmentKey, p), txId: new Uint8Array(32).fill(salt + 1), contractId, commitmentKey, entries };
}

const until = async (what: string, check: () => boolean): Promise<void> => {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.fail(`timed out waiting for ${what}`);
};

describe('confidential data among the group', () => {
  for (const tls of [false, true]) {
    it(`an announced input reaches every participant and never the outsider (${tls ? 'TLS' : 'plain, encrypted'})`, async () => {
      const net = network(tls);
      const input = unit(net.contractId, [{ key: 'amount', type: 'integer', value: 5n }]);
      net.storages.get('A')!.save('input', input);
      net.replications.get('A')!.announce('input', input);
      await until('B and C hold the input', () => ['B', 'C'].every((n) => net.storages.get(n)!.has('input', input.commitment)));
      assert.deepEqual(net.storages.get('B')!.get('input', input.commitment)?.entries, input.entries);
      // Inventories go to participants only, and B and C pass theirs on before they ask for the
      // data: once both hold it, every message of the exchange that could reach D has been sent.
      assert.deepEqual(net.board.received('D'), [], 'the outsider is sent nothing: no inventory, no data');
      assert.equal(net.storages.get('D')!.has('input', input.commitment), false);
    });
  }

  it('a member that missed the inventory fetches what a block names', async () => {
    const net = network(false);
    const input = unit(net.contractId, [{ key: 'amount', type: 'integer', value: 5n }], 3);
    const output = unit(net.contractId, [{ key: 'total', type: 'integer', value: 5n }], 3);
    net.storages.get('A')!.save('input', input);
    net.storages.get('A')!.save('output', output);
    const call = p.sign(
      p.transaction(CallContract, 6, {
        senderPublicKey: net.owners.get('A')!.publicKey,
        contractId: net.contractId,
        params: [],
        fee: 10_000_000n,
        timestamp: BLOCK.timestamp,
        contractVersion: 1,
        feeAssetId: null,
        atomicBadge: null,
        payments: [],
        inputCommitment: input.commitment,
      }),
      net.owners.get('A')!.privateKey,
    );
    const miner = net.owners.get('A')!;
    const executed = p.sign(
      p.transaction(ExecutedContract, 4, {
        senderPublicKey: miner.publicKey,
        tx: call,
        results: [],
        resultsHash: new Uint8Array(32),
        validationProofs: [],
        timestamp: BLOCK.timestamp,
        assetOperations: [],
        readings: [],
        readingsHash: null,
        outputCommitment: output.commitment,
      }),
      miner.privateKey,
    );
    const b = net.replications.get('B')!;
    b.noteTransactions([executed]);
    assert.equal(b.missingOutputs(net.contractId), true);
    await until('B holds both', () => net.storages.get('B')!.has('output', output.commitment) && net.storages.get('B')!.has('input', input.commitment));
    assert.equal(b.missingOutputs(net.contractId), false);
    net.replications.get('D')!.noteTransactions([executed]);
    assert.equal(net.replications.get('D')!.missingOutputs(net.contractId), false, 'the outsider wants nothing');
  });

  it('data that does not match its commitment is not kept', async () => {
    const net = network(true);
    const real = unit(net.contractId, [{ key: 'amount', type: 'integer', value: 5n }], 5);
    const a = net.owners.get('A')!;
    // B learns of the unit from A, then A's answer carries other entries.
    const peerOfB: ConfidentialPeer = net.board.peer('A', 'B');
    const inventory = encodeInventory(signInventory(p, a, { contractId: net.contractId, commitment: real.commitment, type: 'input' }));
    peerOfB.send(ConfidentialMessageCode.Inventory, inventory);
    await new Promise((r) => setTimeout(r, 20));
    const forged = encodeDataResponse({
      kind: 'data',
      contractId: net.contractId,
      commitment: real.commitment,
      type: 'input',
      txId: real.txId,
      commitmentKey: real.commitmentKey,
      data: Uint8Array.from([0, 1, 0, 1, 0x78, 0, 0, 0, 0, 0, 0, 0, 0, 9]),
    });
    peerOfB.send(ConfidentialMessageCode.DataResponse, forged);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(net.storages.get('B')!.has('input', real.commitment), false);
  });
});
