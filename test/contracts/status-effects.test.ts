/**
 * What execution statuses do besides being served (WE's ContractExecutionMessagesCache;
 * reference contracts.md §1.7): `contract-error-quorum` Error statuses from distinct nodes
 * take an executable transaction out of the pool; `ignore-successful` keeps Success
 * statuses off the wire; a node that executes no contracts drops a transaction from its
 * pool on a peer's non-Success status.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { decodeStatusMessage, encodeStatusMessage, ExecutionStatusBook, statusMessageBytes } from '../../src/contracts/statuses.js';
import { removeErroredExecutables } from '../../src/contracts/utx-cleanup.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import type { KeyPair } from '../../src/crypto/suite.js';
import { ContractStatusMessages } from '../../src/network/contract-status-messages.js';
import { MessageCode, type Peer } from '../../src/network/types.js';
import { ConfigError } from '../../src/config/values.js';
import { ConfigSection } from '../../src/config/section.js';
import { parseHoconText } from '../../src/config/hocon.js';
import { CONTRACTS_TABLE } from '../../src/contracts/settings-keys.js';
import { gossipContractStatuses } from '../../src/node/contracts-wiring.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { callTx, createTx, protocol } from '../../devkit/contracts/engine.js';

const HASH = 'cd'.repeat(32);
const nodes = [0, 1, 2].map((i) => protocol.crypto.keyPairFromSeedPhrase(`weft status node ${i}`));
const book = (key: KeyPair): ExecutionStatusBook => new ExecutionStatusBook({ protocol, node: key, now: () => 1_000n, maxSize: 100, expireAfterMs: 60_000 });

/** A pool of the given transactions. */
function poolOf(txs: Transaction[]): { all(): readonly Transaction[]; remove(id: Uint8Array): boolean; ids(): string[] } {
  const held = new Map(txs.map((t) => [t.idBase58, t]));
  return {
    all: () => [...held.values()],
    remove: (id) => held.delete(encodeBase58(id)),
    ids: () => [...held.keys()],
  };
}

describe('contract-execution-messages-cache settings', () => {
  const cacheOf = async (text: string) =>
    CONTRACTS_TABLE.read(new ConfigSection(await parseHoconText(text), '').section('node'), { dataDirectory: '/data' }).dockerEngine.executionMessagesCache;

  it("WE's defaults, and the node.docker-engine keys", async () => {
    assert.deepEqual(await cacheOf('node {}'), {
      maxSize: 100_000,
      expireAfterMs: 3_600_000,
      utxCleanupIntervalMs: 60_000,
      contractErrorQuorum: 2,
      ignoreSuccessful: false,
    });
    const set = await cacheOf(
      'node.docker-engine.contract-execution-messages-cache { utx-cleanup-interval = 5s, contract-error-quorum = 3, ignore-successful = yes }',
    );
    assert.deepEqual([set.utxCleanupIntervalMs, set.contractErrorQuorum, set.ignoreSuccessful], [5000, 3, true]);
    await assert.rejects(
      cacheOf('node.docker-engine.contract-execution-messages-cache.contract-error-quorum = 0'),
      (e: ConfigError) => e.path === 'node.docker-engine.contract-execution-messages-cache.contract-error-quorum',
    );
  });
});

describe('contract-error-quorum', () => {
  it('an executable transaction leaves the pool once that many distinct nodes recorded an Error', () => {
    const create = createTx('kv:1', HASH, {});
    const call = callTx(create.id, {});
    const pool = poolOf([create, call]);
    const mine = book(nodes[0]!);
    mine.record(create.id, { status: 'Error', code: 2, message: 'no' });
    mine.record(create.id, { status: 'Error', code: 2, message: 'no again' });
    mine.record(call.id, { status: 'Failure', code: 1, message: 'later' });
    assert.deepEqual(removeErroredExecutables(pool, mine, 2, protocol), [], 'one node twice is not a quorum');
    assert.equal(mine.accept(book(nodes[1]!).record(call.id, { status: 'Failure', code: 1, message: 'later' })), 'new');
    assert.deepEqual(removeErroredExecutables(pool, mine, 2, protocol), [], 'Failures do not count');
    assert.equal(mine.accept(book(nodes[1]!).record(create.id, { status: 'Error', code: 2, message: 'no' })), 'new');
    const removed = removeErroredExecutables(pool, mine, 2, protocol);
    const from = [nodes[0]!, nodes[1]!].map((k) => protocol.addresses.fromPublicKey(k.publicKey).toString()).join(', ');
    assert.deepEqual(removed, [{ txId: create.idBase58, reason: `Received >= '2' statuses with contract execution business error from: '${from}'` }]);
    assert.deepEqual(pool.ids(), [call.idBase58]);
  });
});

describe('status gossip', () => {
  const setup = (ignoreSuccessful: boolean, withRemoval: boolean) => {
    const sent: Array<{ to: string; code: number; payload: Uint8Array }> = [];
    const peer = (id: string): Peer => ({ id, send: (code: number, payload: Uint8Array) => (sent.push({ to: id, code, payload }), true) }) as unknown as Peer;
    const a = peer('a');
    const b = peer('b');
    const channel = new ContractStatusMessages(() => [a, b]);
    const mine = book(nodes[0]!);
    const removed: string[] = [];
    const stop = gossipContractStatuses(mine, channel, protocol, pino({ level: 'silent' }), {
      ignoreSuccessful,
      ...(withRemoval ? { removeFromPool: (txId: Uint8Array) => void removed.push(encodeBase58(txId)) } : {}),
    });
    return { sent, a, channel, mine, removed, stop };
  };
  const txId = new Uint8Array(32).fill(5);

  it('ignore-successful: Success statuses are kept but neither sent nor passed on; others travel', () => {
    const { sent, a, channel, mine, stop } = setup(true, false);
    mine.record(txId, { status: 'Success', code: null, message: 'Contract transaction successfully mined' });
    assert.equal(sent.length, 0);
    mine.record(txId, { status: 'Error', code: 2, message: 'no' });
    assert.deepEqual(
      sent.map((s) => [s.to, s.code]),
      [
        ['a', MessageCode.ContractExecutionMessage],
        ['b', MessageCode.ContractExecutionMessage],
      ],
    );
    sent.length = 0;
    const peerSuccess = book(nodes[1]!).record(txId, { status: 'Success', code: null, message: 'ok' });
    channel.handle(a, MessageCode.ContractExecutionMessage, encodeStatusMessage(peerSuccess));
    assert.equal(sent.length, 0, "a peer's Success is not passed on");
    assert.equal(mine.statuses(txId)?.length, 3, 'but kept');
    const peerError = book(nodes[2]!).record(txId, { status: 'Error', code: 2, message: 'no' });
    channel.handle(a, MessageCode.ContractExecutionMessage, encodeStatusMessage(peerError));
    assert.deepEqual(
      sent.map((s) => s.to),
      ['b'],
      'passed on to the other peers',
    );
    stop();
  });

  it('without ignore-successful every status travels', () => {
    const { sent, mine, stop } = setup(false, false);
    mine.record(txId, { status: 'Success', code: null, message: 'Contract transaction successfully mined' });
    assert.equal(sent.length, 2);
    stop();
  });

  it('without peers a status is sent nowhere, and it still carries a valid signature when read (and sent) later', () => {
    let connected: Peer[] = [];
    const sent: string[] = [];
    const peer = { id: 'late', send: () => (sent.push('late'), true) } as unknown as Peer;
    const channel = new ContractStatusMessages(() => connected);
    const mine = book(nodes[0]!);
    const stop = gossipContractStatuses(mine, channel, protocol, pino({ level: 'silent' }));
    mine.record(txId, { status: 'Error', code: 2, message: 'alone' });
    assert.deepEqual(sent, []);
    const [kept] = mine.statuses(txId) ?? [];
    assert.ok(kept !== undefined);
    assert.equal(protocol.crypto.verify(nodes[0]!.publicKey, statusMessageBytes(kept), kept.signature()), true);
    // Signatures are randomised (hedged nonce): a second signing would give other bytes.
    assert.deepEqual(mine.statuses(txId)?.[0]?.signature(), kept.signature(), 'signed once: the same signature on every read');
    connected = [peer];
    mine.record(txId, { status: 'Failure', code: 1, message: 'with a peer' });
    assert.deepEqual(sent, ['late']);
    const decoded = decodeStatusMessage(encodeStatusMessage(kept), protocol.crypto.publicKeyLength, protocol.crypto.signatureLength);
    assert.equal(book(nodes[1]!).accept(decoded), 'new', 'another node takes it: its signature holds');
    stop();
  });

  it('copying a status signs nothing; the copy answers the one signature, made on first ask', () => {
    let signings = 0;
    const counted = Object.create(protocol, {
      crypto: {
        value: Object.create(protocol.crypto, { sign: { value: (key: Uint8Array, message: Uint8Array) => (signings++, protocol.crypto.sign(key, message)) } }),
      },
    }) as typeof protocol;
    const mine = new ExecutionStatusBook({ protocol: counted, node: nodes[0]!, now: () => 1_000n, maxSize: 100, expireAfterMs: 60_000 });
    const recorded = mine.record(txId, { status: 'Success', code: null, message: 'Contract transaction successfully mined' });
    const copies = [{ ...recorded }, ...(mine.statuses(txId) ?? []).map((m) => ({ ...m, message: m.message }))];
    assert.equal(signings, 0, 'no signature for a copy');
    const signature = copies[0]!.signature();
    assert.equal(signings, 1);
    assert.deepEqual([recorded.signature(), copies[1]!.signature()], [signature, signature]);
    assert.equal(signings, 1, 'signed once');
    assert.equal(protocol.crypto.verify(nodes[0]!.publicKey, statusMessageBytes(recorded), signature), true);
  });

  it("a node that executes no contracts drops a transaction from its pool on a peer's non-Success status", () => {
    const { a, channel, removed, stop } = setup(false, true);
    channel.handle(
      a,
      MessageCode.ContractExecutionMessage,
      encodeStatusMessage(book(nodes[1]!).record(txId, { status: 'Success', code: null, message: 'ok' })),
    );
    assert.deepEqual(removed, []);
    channel.handle(
      a,
      MessageCode.ContractExecutionMessage,
      encodeStatusMessage(book(nodes[1]!).record(txId, { status: 'Failure', code: 1, message: 'later' })),
    );
    assert.deepEqual(removed, [encodeBase58(txId)]);
    stop();
  });
});
