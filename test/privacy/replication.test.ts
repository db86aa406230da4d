/**
 * Replication between nodes (inventories, replier, synchronizer) on an in-process
 * switchboard carrying the real encoded messages and streams: each node has its real
 * embedded storage and privacy state, and the chain state (a policy whose recipients are
 * some of the nodes) as real state layers. Over plain channels (encrypted with session
 * keys) and over "TLS" (in clear).
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { KeyPair } from '../../src/crypto/suite.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { isAtomic } from '../../src/protocol/transactions/atomic.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { Store } from '../../src/state/store.js';
import { MutableState } from '../../src/state/view.js';
import type { PolicyItemKey, PolicyItemMeta, PrivacyDataType } from '../../src/privacy/item.js';
import { readItemFrames } from '../../src/privacy/item-stream.js';
import {
  decodePrivateDataResponse,
  encodeInventory,
  encodeItemRequest,
  encodePrivateDataResponse,
  encodeStrictPayload,
  PrivacyMessageCode,
  signInventory,
  type PrivateDataResponse,
} from '../../src/privacy/messages.js';
import { PolicyUpdates } from '../../src/privacy/policy-updates.js';
import { PrivacyReplication } from '../../src/privacy/replicator.js';
import { idOfKey, type ReplicationParts } from '../../src/privacy/replication.js';
import { PRIVACY_DEFAULTS, type PrivacySettings } from '../../src/privacy/settings.js';
import { PrivacyState } from '../../src/privacy/state.js';
import { EmbeddedStorage } from '../../src/privacy/storage/embedded.js';
import { tempDir } from '../../devkit/tmp.js';
import { until } from '../../devkit/wait.js';
import { Switchboard } from './switchboard.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });

const SETTINGS: PrivacySettings = {
  storage: { vendor: 'embedded', directory: undefined },
  replier: { parallelism: 4, streamTimeoutMs: 5000, streamChunkSize: 64 * 1024, streamMaxPeersFullnessPercentage: 66 },
  synchronizer: {
    ...PRIVACY_DEFAULTS.synchronizer,
    requestTimeoutMs: 2000,
    initRetryDelayMs: 30,
    inventoryStreamTimeoutMs: 300,
    inventoryRequestDelayMs: 30,
    crawlingParallelism: 8,
    maxAttemptCount: 3,
    lostDataProcessingDelayMs: 300,
    networkStreamBufferSize: 4,
  },
  inventoryHandler: PRIVACY_DEFAULTS.inventoryHandler,
  cache: PRIVACY_DEFAULTS.cache,
  service: PRIVACY_DEFAULTS.service,
};

/** The chain every node sees: one policy, its members, registered participants. */
class Chain {
  readonly state: MutableState;
  readonly policyId = randomBytes(32);
  constructor(dir: string) {
    this.state = new MutableState(Store.open(dir, p));
  }
  register(owner: KeyPair): void {
    this.state.putParticipant(p.addresses.fromPublicKey(owner.publicKey).bytes, { publicKey: owner.publicKey, nodeName: null });
  }
  policy(recipients: KeyPair[]): void {
    const addresses = recipients.map((k) => p.addresses.fromPublicKey(k.publicKey).bytes);
    this.state.putPolicy(this.policyId, { owners: addresses.slice(0, 1), recipients: addresses });
  }
  anchor(hash: Uint8Array, txId = randomBytes(32)): void {
    this.state.addPolicyDataHash(this.policyId, hash, txId);
  }
}

interface TestNode {
  readonly name: string;
  readonly owner: KeyPair;
  readonly storage: EmbeddedStorage;
  state: PrivacyState;
  readonly dir: string;
  replication: PrivacyReplication;
  readonly updates: PolicyUpdates;
  parts: ReplicationParts;
  /** What the node warned of, in order. */
  readonly warnings: string[];
}

function item(data: Uint8Array, policyId: Uint8Array, over: Partial<PolicyItemMeta> = {}): PolicyItemMeta {
  return {
    policyId: encodeBase58(policyId),
    hash: encodeBase58(createHash('sha256').update(data).digest()),
    sender: 'sender',
    filename: 'файл.bin',
    size: data.length,
    timestamp: 1n,
    author: 'a',
    comment: '',
    ...over,
  };
}

// eslint-disable-next-line @typescript-eslint/require-await -- an async source
async function* chunks(data: Uint8Array, size = 50_000): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < data.length; at += size) yield data.subarray(at, at + size);
}

/** A network of named nodes over one chain; closed at the end of the test. */
async function network(
  names: string[],
  options: { tls: boolean; recipients: string[]; features180?: boolean; now?: () => bigint; settings?: PrivacySettings },
) {
  const owners = new Map(names.map((n) => [n, p.crypto.keyPairFromSeedPhrase(`replication test ${n}`)]));
  const chain = new Chain(tempDir('weft-repl-chain-'));
  for (const k of owners.values()) chain.register(k);
  chain.policy(options.recipients.map((n) => owners.get(n)!));
  const board = new Switchboard(options.tls, () => p.crypto.generateKeyPair());
  const nodes = new Map<string, TestNode>();
  for (const name of names) {
    const owner = owners.get(name)!;
    const dir = tempDir(`weft-repl-${name}-`);
    const storage = await EmbeddedStorage.open(join(dir, 'storage'));
    const state = PrivacyState.open(join(dir, 'state'));
    const boardNode = board.add(name, p.addresses.fromPublicKey(owner.publicKey).bytes);
    const warnings: string[] = [];
    const parts: ReplicationParts = {
      protocol: p,
      settings: options.settings ?? SETTINGS,
      storage,
      state,
      chain: { state: () => chain.state, isFeatureActive: () => options.features180 ?? true },
      owner,
      peers: boardNode.peers,
      now: options.now ?? (() => BigInt(Date.now())),
      log: { debug: () => undefined, info: () => undefined, warn: (_details, message) => void warnings.push(message) },
    };
    const updates = new PolicyUpdates(
      p.addresses.fromPublicKey(owner.publicKey),
      () => chain.state,
      state,
      () => undefined,
    );
    const replication = new PrivacyReplication(parts, updates);
    nodes.set(name, { name, owner, storage, state, dir, replication, updates, parts, warnings });
  }
  after(async () => {
    for (const n of nodes.values()) {
      n.replication.close();
      await n.state.close();
      await n.storage.close();
    }
  });
  const node = (name: string): TestNode => nodes.get(name)!;
  /** Stores an item on a node as an upload does (data + descriptor), anchors its hash. */
  const upload = async (name: string, data: Uint8Array, type: PrivacyDataType): Promise<PolicyItemKey> => {
    const meta = item(data, chain.policyId);
    await node(name).storage.save(meta, type, type === 'large' ? chunks(data) : data);
    await node(name).state.putDescriptor(meta, type);
    chain.anchor(idOfKey(meta).dataHash);
    return { policyId: meta.policyId, hash: meta.hash };
  };
  return { board, chain, node, nodes, owners, upload };
}

async function stored(n: TestNode, key: PolicyItemKey): Promise<Uint8Array | undefined> {
  return n.storage.readData(key);
}

describe('replication between policy members', () => {
  for (const tls of [false, true]) {
    const channel = tls ? 'over TLS (in clear)' : 'over plain channels (encrypted with the session keys)';

    it(`a member fetches a small and a large item from the uploader ${channel}; the non-member receives nothing`, async () => {
      const net = await network(['A', 'B', 'C'], { tls, recipients: ['A', 'B'] });
      for (const n of net.nodes.values()) n.replication.start();
      const small = randomBytes(20_000);
      const large = randomBytes(700_000);
      const smallKey = await net.upload('A', small, 'default');
      const largeKey = await net.upload('A', large, 'large');
      net.node('A').replication.announcer.announce(idOfKey(smallKey), 'default', net.node('A').owner);
      net.node('A').replication.announcer.announce(idOfKey(largeKey), 'large', net.node('A').owner);
      await net.node('B').state.addToPending([smallKey, largeKey]);
      // An item leaves the pending set once it is stored and its descriptor written.
      await until('B to hold both items', () => (net.node('B').state.pending().length === 0 ? true : undefined), 10_000, 20);
      assert.ok(Buffer.from((await stored(net.node('B'), smallKey))!).equals(small));
      assert.ok(Buffer.from((await stored(net.node('B'), largeKey))!).equals(large));
      assert.equal(await net.node('B').storage.itemType(largeKey), 'large');
      assert.equal(net.node('B').state.descriptor(largeKey), 'large');
      // The non-member asks the holder directly: no answer, no announcement, no bytes.
      const a = net.board.peer('C', 'A');
      a.send(PrivacyMessageCode.PrivacyInventoryRequest, encodeItemRequest(idOfKey(smallKey)));
      const stream = a.receiveStream(4);
      a.send(PrivacyMessageCode.PrivateDataRequest, encodeItemRequest(idOfKey(largeKey)));
      a.send(PrivacyMessageCode.PrivateDataRequest, encodeItemRequest(idOfKey(smallKey)));
      // A has turned down all three (a fixed 200 ms wait let a loaded machine check before A read them).
      const refusals = (): number => net.node('A').warnings.filter((w) => w.includes("outside the policy's recipients")).length;
      await until('A to refuse the three requests', () => (refusals() >= 3 ? true : undefined), 10_000, 5);
      stream.cancel();
      assert.deepEqual(
        net.board.received('C').map((d) => d.code),
        [],
        'C got no inventory, no 31 and no stream frame',
      );
      assert.equal(await net.node('C').storage.exists(smallKey), false);
      assert.ok(
        net.board.log.some((d) => d.to === 'B' && (d.code === 31 || d.code === 'stream')),
        'the member got the data',
      );
    });
  }

  it("finds holders by asking the members (40) when no inventory came, and answers with the node owner's inventory", async () => {
    const net = await network(['A', 'B', 'D'], { tls: false, recipients: ['A', 'B', 'D'] });
    for (const n of net.nodes.values()) n.replication.start();
    const data = randomBytes(5000);
    const key = await net.upload('D', data, 'default');
    await net.node('B').state.addToPending([key]);
    await until('B to hold the item', async () => ((await net.node('B').storage.exists(key)) ? true : undefined), 10_000, 20);
    assert.ok(net.board.log.some((d) => d.from === 'B' && d.to === 'D' && d.code === PrivacyMessageCode.PrivacyInventoryRequest));
    assert.ok(
      net.board.log.some((d) => d.from === 'D' && d.to === 'B' && d.code === PrivacyMessageCode.PrivacyInventoryV2),
      'D answered with a V2 inventory',
    );
    assert.ok(
      !net.board.log.some((d) => d.from === 'A' && d.to === 'B' && d.code === PrivacyMessageCode.PrivacyInventoryV2),
      'A, without the item, stayed silent',
    );
  });

  it('announces the items of atomic PolicyDataHash V3s in its own micro-block (signed by the node owner), only those it stores', async () => {
    const net = await network(['A', 'B', 'C'], { tls: false, recipients: ['A', 'B', 'C'] });
    for (const n of net.nodes.values()) n.replication.start();
    const held = await net.upload('A', randomBytes(3000), 'large');
    const notHeld = encodeBase58(randomBytes(32));
    const sender = net.owners.get('A')!;
    const policyDataHash = (hash: string): Transaction =>
      p.sign(
        p.transactionFromJson(
          {
            type: 114,
            version: 3,
            senderPublicKey: encodeBase58(sender.publicKey),
            policyId: held.policyId,
            dataHash: hash,
            timestamp: 1_700_000_000_000,
            fee: 5_000_000,
            feeAssetId: null,
            atomicBadge: {},
            proofs: [],
          },
          { forBroadcast: false },
        ),
        sender.privateKey,
      );
    const container = p.sign(
      p.transactionFromJson({
        type: 120,
        version: 1,
        senderPublicKey: encodeBase58(sender.publicKey),
        timestamp: 1_700_000_000_001,
        transactions: [policyDataHash(held.hash).toJson(), policyDataHash(notHeld).toJson()],
        proofs: [],
      }),
      sender.privateKey,
    );
    assert.ok(isAtomic(container));
    await net.node('A').replication.announceAtomicItems([policyDataHash(notHeld), container]);
    await until(
      'B and C to hear of the held item',
      () => (['B', 'C'].every((n) => net.node(n).replication.inventories.knowsHolders(held)) ? true : undefined),
      5000,
      10,
    );
    const holders = net.node('B').replication.inventories.holdersOf(held);
    assert.deepEqual(
      holders.map((h) => [encodeBase58(h.address), h.type]),
      [[p.addresses.fromPublicKey(sender.publicKey).toString(), 'large']],
      "the holder is A's node owner, the type large",
    );
    assert.deepEqual(
      net.node('B').replication.inventories.holdersOf({ policyId: held.policyId, hash: notHeld }),
      [],
      'an item A does not store is not announced',
    );
    assert.equal(
      net.board.log.filter((d) => d.from === 'A' && d.code === PrivacyMessageCode.PrivacyInventoryV2).length,
      2,
      'one inventory to each other member, none for the top-level 114 or the missing item',
    );
  });

  it('before feature 180 announces small items with V1 inventories and serves every item as a strict answer', async () => {
    const net = await network(['A', 'B'], { tls: false, recipients: ['A', 'B'], features180: false });
    for (const n of net.nodes.values()) n.replication.start();
    const data = randomBytes(3000);
    const key = await net.upload('A', data, 'default');
    net.node('A').replication.announcer.announce(idOfKey(key), 'default', net.node('A').owner);
    await net.node('B').state.addToPending([key]);
    await until('B to hold the item', async () => ((await net.node('B').storage.exists(key)) ? true : undefined), 10_000, 20);
    assert.ok(net.board.log.some((d) => d.from === 'A' && d.code === PrivacyMessageCode.PrivacyInventoryV1));
    assert.ok(!net.board.log.some((d) => d.code === PrivacyMessageCode.PrivacyInventoryV2));
  });

  it('passes inventories on to the other members once, and drops forged ones', async () => {
    const net = await network(['A', 'B', 'D', 'C'], { tls: false, recipients: ['A', 'B', 'D'] });
    for (const n of net.nodes.values()) n.replication.start();
    const key = { policyId: encodeBase58(net.chain.policyId), hash: encodeBase58(randomBytes(32)) };
    const inv = signInventory(p, net.node('A').owner, idOfKey(key), 'default', 2);
    const toB = net.board.peer('A', 'B');
    toB.send(PrivacyMessageCode.PrivacyInventoryV2, encodeInventory(inv));
    toB.send(PrivacyMessageCode.PrivacyInventoryV2, encodeInventory(inv));
    await until('D to hear of the item', () => (net.node('D').replication.inventories.knowsHolders(key) ? true : undefined), 5000, 10);
    const forwarded = net.board.log.filter((d) => d.from === 'B' && d.code === PrivacyMessageCode.PrivacyInventoryV2);
    assert.deepEqual(
      forwarded.map((d) => d.to),
      ['D'],
      'once, to the other member only: not back to A, not to the non-member C',
    );
    const forged = { ...signInventory(p, net.node('A').owner, idOfKey({ ...key, hash: encodeBase58(randomBytes(32)) }), 'default', 2) };
    const bad = encodeInventory({ ...forged, signature: new Uint8Array(64).fill(1) });
    toB.send(PrivacyMessageCode.PrivacyInventoryV2, bad);
    await until(
      'B to drop the forged inventory',
      () => (net.node('B').warnings.includes('privacy inventory with a bad signature dropped') ? true : undefined),
      10_000,
      5,
    );
    assert.equal(net.node('B').replication.inventories.knowsHolders({ policyId: key.policyId, hash: encodeBase58(forged.dataHash) }), false);
  });

  it("neither records nor passes on a stranger's inventories, which push no member's holder out of the cache", async () => {
    // A cache of 50 items: had B taken C's 200 inventories, A's entry would have been pushed out.
    const settings: PrivacySettings = { ...SETTINGS, inventoryHandler: { ...SETTINGS.inventoryHandler, maxCacheSize: 50 } };
    const net = await network(['A', 'B', 'D', 'C'], { tls: false, recipients: ['A', 'B', 'D'], settings });
    for (const n of net.nodes.values()) n.replication.start();
    const policyId = encodeBase58(net.chain.policyId);
    const genuine = { policyId, hash: encodeBase58(randomBytes(32)) };
    net.node('A').replication.announcer.announce(idOfKey(genuine), 'default', net.node('A').owner);
    const b = net.node('B').replication.inventories;
    await until('B to know A holds the item', () => (b.knowsHolders(genuine) ? true : undefined), 5000, 5);
    // C, no member of the policy, claims the genuine item, 200 others of the policy and one of a policy that does not exist.
    const stranger = net.node('C').owner;
    const fromC = net.board.peer('C', 'B');
    const claims = [
      genuine,
      ...Array.from({ length: 200 }, () => ({ policyId, hash: encodeBase58(randomBytes(32)) })),
      { policyId: encodeBase58(randomBytes(32)), hash: encodeBase58(randomBytes(32)) },
    ];
    for (const claim of claims) fromC.send(PrivacyMessageCode.PrivacyInventoryV2, encodeInventory(signInventory(p, stranger, idOfKey(claim), 'default', 2)));
    // Then a member's inventory the same way: once B knows of it, B has taken C's before it.
    const last = { policyId, hash: encodeBase58(randomBytes(32)) };
    fromC.send(PrivacyMessageCode.PrivacyInventoryV2, encodeInventory(signInventory(p, net.node('D').owner, idOfKey(last), 'default', 2)));
    await until("B to take the member's inventory C passed on", () => (b.knowsHolders(last) ? true : undefined), 10_000, 5);
    const address = (name: string): string => encodeBase58(p.addresses.fromPublicKey(net.node(name).owner.publicKey).bytes);
    assert.deepEqual(
      b.holdersOf(genuine).map((h) => encodeBase58(h.address)),
      [address('A')],
      'A still holds the item, and C is not taken for a holder',
    );
    assert.deepEqual(
      claims.slice(1).filter((claim) => b.knowsHolders(claim)),
      [],
      "none of C's claims recorded",
    );
    const passedOn = net.board.log.filter((d) => d.from === 'B' && d.code === PrivacyMessageCode.PrivacyInventoryV2).map((d) => d.to);
    assert.deepEqual(passedOn.sort(), ['A', 'D', 'D'], "B passed on A's inventory (to D) and D's (to A and D), none of C's");
  });

  it('answers "no data" for a small item too large for one PrivateDataResponse, instead of an answer the connection drops', async () => {
    const net = await network(['A', 'B'], { tls: false, recipients: ['A', 'B'] });
    net.node('A').replication.start();
    // A 20 MiB small item (stored before sendData refused such sizes): with its metadata and encryption its 31 would exceed the 20 MiB + 128 B cap.
    const key = await net.upload('A', randomBytes(20 * 1024 * 1024), 'default');
    const answers: PrivateDataResponse[] = [];
    net.node('B').parts.peers.onMessage((peer, code, payload) => {
      if (code === PrivacyMessageCode.PrivateDataResponse) answers.push(decodePrivateDataResponse(payload, peer.sessionKeys === undefined ? undefined : 48));
    });
    net.board.peer('B', 'A').send(PrivacyMessageCode.PrivateDataRequest, encodeItemRequest(idOfKey(key)));
    await until("A's answer", () => (answers.length > 0 ? true : undefined), 10_000, 10);
    assert.equal(answers[0]!.kind, 'no-data', 'B can ask another holder at once instead of waiting out its request timeout');
    assert.ok(
      net.node('A').warnings.some((w) => w.startsWith('a small privacy item is too large for a PrivateDataResponse')),
      net.node('A').warnings.join('; '),
    );
  });

  it('moves on from a holder that sends other bytes than the hash names, to one that sends the item', async () => {
    const net = await network(['A', 'B', 'M'], { tls: true, recipients: ['A', 'B', 'M'] });
    const data = randomBytes(4000);
    const key = await net.upload('A', data, 'default');
    // M claims the item, and answers requests with other bytes under its name.
    net.node('M').parts.peers.onMessage((peer, code) => {
      if (code !== PrivacyMessageCode.PrivateDataRequest) return;
      const wrong = randomBytes(4000);
      peer.send(
        PrivacyMessageCode.PrivateDataResponse,
        encodePrivateDataResponse({
          ...idOfKey(key),
          kind: 'data',
          payload: encodeStrictPayload({ ...item(wrong, net.chain.policyId), hash: key.hash }, wrong),
        }),
      );
    });
    net.node('A').replication.start();
    net.node('B').replication.start();
    net.board.peer('M', 'B').send(PrivacyMessageCode.PrivacyInventoryV2, encodeInventory(signInventory(p, net.node('M').owner, idOfKey(key), 'default', 2)));
    net.node('A').replication.announcer.announce(idOfKey(key), 'default', net.node('A').owner);
    // B knows both holders before it starts (a fixed 50 ms wait left that to the machine's speed).
    await until('B to know M and A as holders', () => (net.node('B').replication.inventories.holdersOf(key).length === 2 ? true : undefined), 10_000, 5);
    await net.node('B').state.addToPending([key]);
    await until('B to hold the item', async () => ((await net.node('B').storage.exists(key)) ? true : undefined), 10_000, 20);
    assert.ok(Buffer.from((await stored(net.node('B'), key))!).equals(data), 'the item, not the forgery');
  });

  it('retries with back-off, marks the item lost after the attempts, and fetches it once a holder appears', async () => {
    const net = await network(['A', 'B'], { tls: false, recipients: ['A', 'B'] });
    const data = randomBytes(2000);
    const meta = item(data, net.chain.policyId);
    const key = { policyId: meta.policyId, hash: meta.hash };
    net.chain.anchor(idOfKey(key).dataHash);
    net.node('A').replication.start();
    net.node('B').replication.start();
    await net.node('B').state.addToPending([key]);
    await until('the item to be lost', () => (net.node('B').state.isLost(key) ? true : undefined), 10_000, 20);
    assert.equal(net.node('B').state.isPending(key), false);
    const asked = net.board.log.filter((d) => d.from === 'B' && d.code === PrivacyMessageCode.PrivacyInventoryRequest).length;
    assert.ok(asked >= 3, `one inventory request per attempt, max-attempt-count = 3 (then the lost passes): ${asked}`);
    await net.node('A').storage.save(meta, 'default', data);
    await until('the lost item to be fetched on a lost pass', async () => ((await net.node('B').storage.exists(key)) ? true : undefined), 10_000, 20);
    await until('the item to leave the lost set', () => (net.node('B').state.isLost(key) ? undefined : true), 5000, 10);
  });

  it('resumes the pending items after a restart', async () => {
    const net = await network(['A', 'B'], { tls: false, recipients: ['A', 'B'] });
    net.node('A').replication.start();
    const data = randomBytes(3000);
    const key = await net.upload('A', data, 'default');
    const b = net.node('B');
    await b.state.addToPending([key]);
    // B stops before fetching anything; its pending set is on disk.
    b.replication.close();
    await b.state.close();
    b.state = PrivacyState.open(join(b.dir, 'state'));
    assert.deepEqual(b.state.pending(), [key]);
    b.parts = { ...b.parts, state: b.state };
    b.replication = new PrivacyReplication(b.parts, b.updates);
    b.replication.start();
    await until('B to hold the item after its restart', async () => ((await b.storage.exists(key)) ? true : undefined), 10_000, 20);
    await until('the item to leave the pending set', () => (b.state.pending().length === 0 ? true : undefined), 5000, 10);
  });

  it("cancels a running download when the item's PolicyDataHash is rolled back, storing nothing", async () => {
    const net = await network(['A', 'B'], { tls: false, recipients: ['A', 'B'] });
    for (const n of net.nodes.values()) n.replication.start();
    const data = randomBytes(1_500_000);
    const key = await net.upload('A', data, 'large');
    net.node('A').replication.announcer.announce(idOfKey(key), 'large', net.node('A').owner);
    // The stream stops part-way until the test lets it go (on a 20 ms a frame delay a loaded
    // machine could finish the download before the rollback came).
    net.board.holdFramesAfter(4);
    const incoming = join(net.node('B').dir, 'storage', 'incoming');
    await net.node('B').state.addToPending([key]);
    await until(
      'the stream to be flowing',
      () => (net.board.log.filter((d) => d.to === 'B' && d.code === 'stream').length === 4 ? true : undefined),
      10_000,
      5,
    );
    await until('the partial download on disk', () => (readdirSync(incoming).length === 1 ? true : undefined), 10_000, 5);
    assert.equal(net.node('B').replication.synchronizer.active, 1);
    const tx = p.sign(
      p.transactionFromJson(
        {
          type: 114,
          version: 3,
          senderPublicKey: encodeBase58(net.node('A').owner.publicKey),
          policyId: key.policyId,
          dataHash: key.hash,
          timestamp: 1,
          fee: 5_000_000n,
          proofs: [],
        },
        { forBroadcast: false },
      ),
      net.node('A').owner.privateKey,
    );
    net.node('B').updates.handle({ kind: 'rollback', removed: [tx] });
    await until('the download to stop', () => (net.node('B').replication.synchronizer.active === 0 ? true : undefined), 5000, 10);
    // The partial file goes once the abort reaches the storage's writer.
    await until('the partial download to be removed', () => (readdirSync(incoming).length === 0 ? true : undefined), 10_000, 10);
    assert.equal(await net.node('B').storage.exists(key), false);
    // Its pending entry goes with the rollback's write to the privacy state.
    await until('the item to be no longer waiting to be fetched', () => (net.node('B').state.isPending(key) ? undefined : true), 10_000, 10);
    // The rest of the stream reaches a reader that is gone: it is dropped.
    net.board.releaseFrames();
    await until('A to send on', () => (net.board.log.filter((d) => d.to === 'B' && d.code === 'stream').length > 4 ? true : undefined), 10_000, 10);
    assert.equal(await net.node('B').storage.exists(key), false);
  });

  it('caps the streams a replier sends at once and answers the rest "overloaded"', async () => {
    const net = await network(['A', 'B', 'D', 'E'], { tls: true, recipients: ['A', 'B', 'D', 'E'] });
    net.node('A').replication.start();
    const key = await net.upload('A', randomBytes(2_000_000), 'large');
    // A has 3 peers: at most max(1, min(2, round(0.66 × 3))) = 2 streams at once. Nobody reads: they stay open.
    const answers: Array<Promise<string>> = [];
    for (const asker of ['B', 'D', 'E']) {
      const toA = net.board.peer(asker, 'A');
      const stream = toA.receiveStream(1);
      toA.send(PrivacyMessageCode.PrivateDataRequest, encodeItemRequest(idOfKey(key)));
      answers.push(readItemFrames(stream).then((r) => r.status));
      // The next asks once A is streaming to this one (after a fixed 50 ms a loaded machine could
      // still be opening the item, and the streams could be counted in another order).
      await until(
        `A to stream to ${asker}`,
        () => (net.board.log.some((d) => d.from === 'A' && d.to === asker && d.code === 'stream') ? true : undefined),
        10_000,
        5,
      );
    }
    assert.deepEqual(await Promise.all(answers), ['data', 'data', 'overloaded']);
  });

  it('re-announces a fetched item whose PolicyDataHash is recent, and answers forceSync with what it restarts', async () => {
    const now = 1_700_000_000_000n;
    const net = await network(['A', 'B', 'D'], { tls: false, recipients: ['A', 'B', 'D'], now: () => now });
    for (const n of net.nodes.values()) n.replication.start();
    const data = randomBytes(1000);
    const key = await net.upload('A', data, 'default');
    net.node('A').replication.announcer.announce(idOfKey(key), 'default', net.node('A').owner);
    await net.node('B').state.addToPending([{ ...key, txTimestamp: now - 1000n }]);
    await until(
      'B to announce what it fetched',
      () => (net.board.log.some((d) => d.from === 'B' && d.to === 'D' && d.code === PrivacyMessageCode.PrivacyInventoryV2) ? true : undefined),
      10_000,
      20,
    );
    // forceSync of the policy: every anchored hash not pending joins the pending set.
    const other = randomBytes(32);
    net.chain.anchor(other);
    const restarted = await net.node('D').replication.synchronizer.forceSyncPolicy(net.chain.policyId);
    assert.equal(restarted, 2, 'the two anchored items of the policy');
    assert.equal(net.node('D').replication.synchronizer.forceSync(), net.node('D').state.pending().length);
  });
});
