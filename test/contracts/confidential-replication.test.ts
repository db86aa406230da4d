/**
 * Replication of confidential contract data (messages 52–55) over an in-process network of
 * four nodes: A, B, C are the contract's participants, D is outside the group. What one
 * member announces reaches the other members (encrypted for each connection outside TLS),
 * never D; a unit a block names is fetched by a member that missed its inventory, also across
 * a restart; data that does not match its commitment is dropped.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { KeyPair } from '../../src/crypto/suite.js';
import { transportEncryptionFor } from '../../src/crypto/transport-encryption.js';
import { entriesCommitment, type ConfidentialDataUnit } from '../../src/contracts/confidential/data.js';
import {
  ConfidentialMessageCode,
  decodeDataResponse,
  encodeDataId,
  encodeDataResponse,
  encodeInventory,
  signInventory,
  type ConfidentialDataResponse,
} from '../../src/contracts/confidential/messages.js';
import { ConfidentialReplication, type ConfidentialPeer } from '../../src/contracts/confidential/replication.js';
import { ConfidentialStorage } from '../../src/contracts/confidential/storage.js';
import { CONFIDENTIAL_CONTRACTS_DEFAULTS, type ConfidentialContractsSettings } from '../../src/contracts/confidential/settings.js';
import { contractInfoOfCreate } from '../../src/state/contract-info.js';
import { ExecutedContract } from '../../src/protocol/transactions/contracts.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { ConfigError } from '../../src/config/values.js';
import { ConfigSection } from '../../src/config/section.js';
import { parseHoconText } from '../../src/config/hocon.js';
import { CONFIDENTIAL_CONTRACTS_TABLE } from '../../src/contracts/confidential/settings-keys.js';
import type { DataEntry } from '../../src/protocol/transactions/fields.js';
import { tempDir } from '../../devkit/tmp.js';
import { Switchboard, type BoardNode } from '../privacy/switchboard.js';
import { BLOCK, developer, protocol } from '../../devkit/contracts/engine.js';
import { confidentialCall, confidentialCreate } from './support/confidential.js';
import { ContractTestState } from '../../devkit/contracts/state.js';
import { until as waitUntil } from '../../devkit/wait.js';

const p = protocol;
const NAMES: readonly string[] = ['A', 'B', 'C', 'D'];

interface TestNet {
  readonly board: Switchboard;
  readonly storages: Map<string, ConfidentialStorage>;
  readonly replications: Map<string, ConfidentialReplication>;
  readonly owners: Map<string, KeyPair>;
  readonly contractId: Uint8Array;
  /** Each node's warnings, in order. */
  readonly warnings: Map<string, string[]>;
  /** Each node on the switchboard (its peers: what it receives). */
  readonly nodes: Map<string, BoardNode>;
  /** Stops a node's replication and closes its storage, then opens both again (a restart). */
  restart(name: string): Promise<void>;
}

const opened: ConfidentialStorage[] = [];
const started: ConfidentialReplication[] = [];
after(async () => {
  for (const r of started) r.stop();
  for (const s of opened) await s.close();
});

/** Replication settings for a test: WE's, with the synchronizer's delays in milliseconds. */
function fast(
  overrides: {
    readonly inventoryHandler?: Partial<ConfidentialContractsSettings['inventoryHandler']>;
    readonly synchronizer?: Partial<ConfidentialContractsSettings['synchronizer']>;
    readonly cache?: Partial<ConfidentialContractsSettings['cache']>;
  } = {},
): ConfidentialContractsSettings {
  const d = CONFIDENTIAL_CONTRACTS_DEFAULTS;
  return {
    ...d,
    inventoryHandler: { ...d.inventoryHandler, maxBufferTimeMs: 5, ...overrides.inventoryHandler },
    synchronizer: {
      ...d.synchronizer,
      initRetryDelayMs: 50,
      inventoryRequestDelayMs: 50,
      inventoryStreamTimeoutMs: 200,
      requestTimeoutMs: 500,
      ...overrides.synchronizer,
    },
    cache: { ...d.cache, ...overrides.cache },
  };
}

function network(tls: boolean, settings: ConfidentialContractsSettings = fast()): TestNet {
  const owners = new Map(NAMES.map((n) => [n, p.crypto.keyPairFromSeedPhrase(`weft confidential replication ${n}`)]));
  const address = (n: string) => p.addresses.fromPublicKey(owners.get(n)!.publicKey);
  const state = ContractTestState.create(p);
  for (const k of owners.values()) state.putParticipant(p.addresses.fromPublicKey(k.publicKey).bytes, { publicKey: k.publicKey, nodeName: null });
  const create = confidentialCreate(p, {
    sender: developer,
    timestamp: BLOCK.timestamp,
    isConfidential: true,
    participants: ['A', 'B', 'C'].map(address),
    owners: [address('A')],
  });
  state.putContract(contractInfoOfCreate(create));
  const board = new Switchboard(tls, () => p.crypto.generateKeyPair());
  const storages = new Map<string, ConfidentialStorage>();
  const replications = new Map<string, ConfidentialReplication>();
  const warnings = new Map<string, string[]>();
  const directories = new Map<string, string>();
  const boardNodes = new Map<string, BoardNode>();
  const startNode = (name: string): void => {
    const storage = ConfidentialStorage.open(directories.get(name)!, p);
    opened.push(storage);
    const warned = warnings.get(name)!;
    const log = { debug: () => undefined, warn: (_details: object, message: string) => void warned.push(message) };
    const replication = new ConfidentialReplication({
      protocol: p,
      storage,
      owner: owners.get(name)!,
      state: () => state,
      peers: boardNodes.get(name)!.peers,
      transport: transportEncryptionFor('waves'),
      log,
      settings,
    });
    replication.start();
    started.push(replication);
    storages.set(name, storage);
    replications.set(name, replication);
  };
  for (const name of NAMES) {
    boardNodes.set(name, board.add(name, address(name).bytes));
    directories.set(name, tempDir(`weft-confidential-replication-${name}-`));
    warnings.set(name, []);
    startNode(name);
  }
  const restart = async (name: string): Promise<void> => {
    replications.get(name)!.stop();
    const storage = storages.get(name)!;
    opened.splice(opened.indexOf(storage), 1);
    await storage.close();
    startNode(name);
  };
  return { board, storages, replications, owners, contractId: create.id, warnings, nodes: boardNodes, restart };
}

function unit(contractId: Uint8Array, entries: DataEntry[], salt = 1): ConfidentialDataUnit {
  const commitmentKey = new Uint8Array(32).fill(salt);
  return { commitment: entriesCommitment(entries, commitmentKey, p), txId: new Uint8Array(32).fill(salt + 1), contractId, commitmentKey, entries };
}

/** The 105 V4 (mined by A) of a call with `input`, whose output is `output`. */
function executedFor(net: TestNet, input: ConfidentialDataUnit, output: ConfidentialDataUnit): Transaction {
  const miner = net.owners.get('A')!;
  const call = confidentialCall(p, miner, net.contractId, input.commitment, BLOCK.timestamp);
  return p.sign(
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
}

/** The shared bounded wait (devkit/wait.ts), for a condition checked every 10 ms. */
const until = async (what: string, check: () => boolean): Promise<void> => void (await waitUntil(what, () => (check() ? true : undefined), 15_000, 10));

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
    const executed = executedFor(net, input, output);
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
    // B learns of the unit from A, then A's answer carries other entries: A's own replication
    // is stopped, so the forgery is the one answer B gets.
    net.replications.get('A')!.stop();
    const peerOfB: ConfidentialPeer = net.board.peer('A', 'B');
    const inventory = encodeInventory(signInventory(p, a, { contractId: net.contractId, commitment: real.commitment, type: 'input' }));
    peerOfB.send(ConfidentialMessageCode.Inventory, inventory);
    // The forgery comes once B wants the unit (after a fixed 20 ms a loaded machine could still be
    // batching the inventory, and the forgery would be dropped unread as unasked for).
    await until('B to ask A for the unit', () => net.board.log.some((d) => d.from === 'B' && d.to === 'A' && d.code === ConfidentialMessageCode.DataRequest));
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
    await until('B to read the forgery', () => net.warnings.get('B')!.includes('confidential data that does not match its commitment dropped'));
    assert.equal(net.storages.get('B')!.has('input', real.commitment), false);
  });

  it('answers "no data" for a unit too large for one ConfidentialDataResponse, instead of an answer the connection drops', async () => {
    const net = network(false);
    // 40 entries of 30 000 bytes: 1.2 MB of entries, beyond the 53's cap of 1 MiB and 65 bytes.
    const big = unit(
      net.contractId,
      Array.from({ length: 40 }, (_, i) => ({ key: `part${i}`, type: 'binary' as const, value: new Uint8Array(30_000).fill(i) })),
      19,
    );
    net.storages.get('A')!.save('input', big);
    const answers: ConfidentialDataResponse[] = [];
    net.nodes.get('B')!.peers.onMessage((_, code, payload) => {
      if (code === ConfidentialMessageCode.DataResponse) answers.push(decodeDataResponse(payload));
    });
    net.board.peer('B', 'A').send(ConfidentialMessageCode.DataRequest, encodeDataId({ contractId: net.contractId, commitment: big.commitment, type: 'input' }));
    await until("A's answer", () => answers.length > 0);
    assert.equal(answers[0]!.kind, 'no-data', 'B can ask another holder at once instead of waiting out its request timeout');
    assert.ok(
      net.warnings.get('A')!.some((w) => w.startsWith('a confidential data unit is too large for a ConfidentialDataResponse')),
      net.warnings.get('A')!.join('; '),
    );
  });

  it('forgets the units of a rolled-back 105: they hold the contract back no more, and are not fetched', async () => {
    const net = network(false);
    const input = unit(net.contractId, [{ key: 'amount', type: 'integer', value: 9n }], 23);
    const output = unit(net.contractId, [{ key: 'total', type: 'integer', value: 9n }], 23);
    const executed = executedFor(net, input, output);
    const b = net.replications.get('B')!;
    b.noteTransactions([executed]);
    await until('B to ask the group for holders', () => net.board.log.some((d) => d.from === 'B' && d.code === ConfidentialMessageCode.InventoryRequest));
    b.noteRollback([executed]);
    assert.equal(b.missingOutputs(net.contractId), false, 'a rolled-back output holds no call back');
    assert.deepEqual(net.storages.get('B')!.wanted.pending(), [], 'nothing left to fetch after a restart either');
    // Its downloads stopped: B asks the group no more (an attempt every 300 ms or so while it fetched).
    const asked = (): number => net.board.log.filter((d) => d.from === 'B' && d.code === ConfidentialMessageCode.InventoryRequest).length;
    const before = asked();
    await new Promise((r) => setTimeout(r, 700));
    assert.equal(asked(), before);
  });

  it('a node restarted while it fetches units resumes and gets them', async () => {
    const net = network(false);
    const input = unit(net.contractId, [{ key: 'amount', type: 'integer', value: 8n }], 17);
    const output = unit(net.contractId, [{ key: 'total', type: 'integer', value: 8n }], 17);
    net.replications.get('B')!.noteTransactions([executedFor(net, input, output)]);
    // No one holds them yet: B asks the group who does, again and again.
    await until(
      'B to ask the group for holders',
      () => net.board.log.filter((d) => d.from === 'B' && d.code === ConfidentialMessageCode.InventoryRequest).length >= 2,
    );
    await net.restart('B');
    // Then A holds them, announcing nothing, and the chain names them no more: only what B kept across its restart brings them.
    net.storages.get('A')!.save('input', input);
    net.storages.get('A')!.save('output', output);
    const b = net.replications.get('B')!;
    assert.equal(b.missingOutputs(net.contractId), true, 'the output is still wanted after the restart');
    await until(
      'B holds both after its restart',
      () => net.storages.get('B')!.has('output', output.commitment) && net.storages.get('B')!.has('input', input.commitment),
    );
    assert.equal(b.missingOutputs(net.contractId), false);
  });
});

describe('node.confidential-contracts settings', () => {
  const read = async (text: string): Promise<ConfidentialContractsSettings> =>
    CONFIDENTIAL_CONTRACTS_TABLE.read(new ConfigSection(await parseHoconText(text), '').section('node.confidential-contracts'), undefined);

  it("are WE's keys, with WE's defaults", async () => {
    assert.deepEqual(await read('node {}'), CONFIDENTIAL_CONTRACTS_DEFAULTS);
    const set = await read(`node.confidential-contracts {
      replier.parallelism = 3
      cache { max-size = 7, expire-after = 1m }
      inventory-handler { max-buffer-time = 1s, max-buffer-size = 4, max-cache-size = 9, expiration-time = 2m, replier-parallelism = 2 }
      synchronizer { request-timeout = 10s, init-retry-delay = 1s, inventory-stream-timeout = 3s, inventory-request-delay = 2s, inventory-timestamp-threshold = 5m,
                     crawling-parallelism = 5, max-attempt-count = 3, lost-data-processing-delay = 1m, failed-peers-cache-size = 6, failed-peers-cache-expire-timeout = 30s }
    }`);
    assert.deepEqual(set, {
      replier: { parallelism: 3 },
      cache: { maxSize: 7, expireAfterMs: 60_000 },
      inventoryHandler: { maxBufferTimeMs: 1000, maxBufferSize: 4, maxCacheSize: 9, expirationTimeMs: 120_000, replierParallelism: 2 },
      synchronizer: {
        requestTimeoutMs: 10_000,
        initRetryDelayMs: 1000,
        inventoryStreamTimeoutMs: 3000,
        inventoryRequestDelayMs: 2000,
        inventoryTimestampThresholdMs: 300_000,
        crawlingParallelism: 5,
        maxAttemptCount: 3,
        lostDataProcessingDelayMs: 60_000,
        failedPeersCacheSize: 6,
        failedPeersCacheExpireTimeoutMs: 30_000,
      },
    });
    await assert.rejects(
      read('node.confidential-contracts.synchronizer.max-attempt-count = 0'),
      (e: ConfigError) => e.path === 'node.confidential-contracts.synchronizer.max-attempt-count',
    );
    await assert.rejects(
      read('node.confidential-contracts.cache.expire-after = soon'),
      (e: ConfigError) => e.path === 'node.confidential-contracts.cache.expire-after',
    );
  });

  it('inventories are handled in batches of inventory-handler.max-buffer-size (max-buffer-time long)', async () => {
    const net = network(false, fast({ inventoryHandler: { maxBufferTimeMs: 3_600_000, maxBufferSize: 2 } }));
    const first = unit(net.contractId, [{ key: 'amount', type: 'integer', value: 1n }], 7);
    const second = unit(net.contractId, [{ key: 'amount', type: 'integer', value: 2n }], 8);
    net.storages.get('A')!.save('input', first);
    net.replications.get('A')!.announce('input', first);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(net.storages.get('B')!.has('input', first.commitment), false, 'one inventory waits for its batch');
    net.storages.get('A')!.save('input', second);
    net.replications.get('A')!.announce('input', second);
    await until('B holds both', () => net.storages.get('B')!.has('input', first.commitment) && net.storages.get('B')!.has('input', second.commitment));
  });

  it('a unit no one holds is lost after synchronizer.max-attempt-count attempts, and stays missing', async () => {
    const net = network(false, fast({ synchronizer: { maxAttemptCount: 2, lostDataProcessingDelayMs: 3_600_000 } }));
    const input = unit(net.contractId, [{ key: 'amount', type: 'integer', value: 5n }], 11);
    const output = unit(net.contractId, [{ key: 'total', type: 'integer', value: 5n }], 11);
    const b = net.replications.get('B')!;
    b.noteTransactions([executedFor(net, input, output)]);
    await until('both units lost', () => b.lostCount === 2);
    assert.equal(b.missingOutputs(net.contractId), true, "a lost output still holds the contract's calls back");
    // Asked again (and fetched) once the chain names it anew and someone holds it.
    net.storages.get('A')!.save('input', input);
    net.storages.get('A')!.save('output', output);
    b.noteTransactions([executedFor(net, input, output)]);
    await until('B holds both', () => net.storages.get('B')!.has('output', output.commitment) && net.storages.get('B')!.has('input', input.commitment));
    assert.equal(b.lostCount, 0);
  });

  it('units served to peers are kept ready in a cache of cache.max-size', async () => {
    const net = network(false, fast({ cache: { maxSize: 1 } }));
    const input = unit(net.contractId, [{ key: 'amount', type: 'integer', value: 5n }], 13);
    const output = unit(net.contractId, [{ key: 'total', type: 'integer', value: 5n }], 13);
    net.storages.get('A')!.save('input', input);
    net.storages.get('A')!.save('output', output);
    net.replications.get('B')!.noteTransactions([executedFor(net, input, output)]);
    await until('B holds both', () => net.storages.get('B')!.has('output', output.commitment) && net.storages.get('B')!.has('input', input.commitment));
    assert.equal(net.replications.get('A')!.servedCacheSize, 1);
  });
});
