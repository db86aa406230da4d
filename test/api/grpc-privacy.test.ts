/**
 * PrivacyPublicService and PrivacyEventsService of the public gRPC API, driven by the
 * official generated clients against a real node (seeded-node.ts: a policy of accounts 0 and
 * 1, a small and a large item stored on the embedded storage and anchored): each method's
 * answer, the privacy key rule (none → UNAUTHENTICATED 618, wrong → PERMISSION_DENIED 614),
 * WE's refusals, large data streamed both ways in chunks, and the events — history from
 * genesis, live acquisitions, invalidation by a rollback, filters refused, the stream limit.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import Long from 'long';
import {
  PrivacyPublicServiceClient,
  type PolicyItemDataResponse,
  type SendDataMetadata,
  type SendDataResponse,
} from '@wavesenterprise/js-contract-grpc-client/privacy/privacy_public_service.js';
import {
  PrivacyEventsServiceClient,
  PrivacyEvent_EventType,
  type PrivacyEvent,
} from '@wavesenterprise/js-contract-grpc-client/privacy/privacy_events_service.js';
import type { SubscribeOnRequest } from '@wavesenterprise/js-contract-grpc-client/util/events/util_events_subscribe_on_request.js';
import { LARGE_DATA_MESSAGE_BYTES, privacyPublicService } from '../../src/api/grpc/privacy-service.js';
import { privacyEventsService } from '../../src/api/grpc/privacy-events-service.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import type { DevAccount } from '../../src/cli/dev.js';
import { seededNode, type SeededNode } from '../../devkit/api/seeded-node.js';
import { until } from '../../devkit/wait.js';
import { call, GRPC_PRIVACY_KEY, refusal, servePublicGrpc, testDeps, withKey, type PublicGrpcServer } from './grpc-public.js';

const hashOf = (data: Uint8Array): string => encodeBase58(createHash('sha256').update(data).digest());
const insecure = grpc.credentials.createInsecure();
const KEY = (): grpc.Metadata => withKey(GRPC_PRIVACY_KEY);
/** Each client on its own connection. */
const OWN_CONNECTION = { 'grpc.use_local_subchannel_pool': 1 };
const MAX_EVENT_STREAMS = 2;

let s: SeededNode;
let server: PublicGrpcServer;
let client: PrivacyPublicServiceClient;
let owner: DevAccount;
let policyId: string;

before(async () => {
  s = await seededNode();
  owner = s.accounts[0]!;
  policyId = s.seed.policy.idBase58;
  const deps = testDeps(s.services);
  server = await servePublicGrpc([privacyPublicService(deps), privacyEventsService(deps, { maxConnections: MAX_EVENT_STREAMS })]);
  client = new PrivacyPublicServiceClient(server.address, insecure, OWN_CONNECTION);
});
after(async () => {
  client?.close();
  await server?.close();
  await s?.close();
});

function metadataFor(data: Uint8Array, over: Partial<SendDataMetadata> = {}): SendDataMetadata {
  return {
    senderAddress: owner.address,
    policyId,
    dataHash: hashOf(data),
    info: { filename: 'g.bin', size: data.length, timestamp: Long.fromString(String(s.now())), author: 'grpc', comment: '' },
    fee: Long.fromNumber(5_000_000),
    feeAssetId: undefined,
    atomicBadge: undefined,
    password: owner.keystorePassword,
    broadcastTx: false,
    certificates: [],
    ...over,
  };
}

/** A whole GetPolicyItemLargeData stream: its messages. */
function readLarge(hash: string, metadata = KEY()): Promise<PolicyItemDataResponse[]> {
  return new Promise((resolve, reject) => {
    const out: PolicyItemDataResponse[] = [];
    const stream = client.getPolicyItemLargeData({ policyId, dataHash: hash }, metadata);
    stream.on('data', (m: PolicyItemDataResponse) => out.push(m));
    stream.on('error', reject);
    stream.on('end', () => resolve(out));
  });
}

/** SendLargeData with these messages, in order. */
function sendLarge(messages: ReadonlyArray<{ metadata?: SendDataMetadata; file?: { content: Uint8Array } }>, metadata = KEY()): Promise<SendDataResponse> {
  return new Promise((resolve, reject) => {
    const stream = client.sendLargeData(metadata, (error, response) => (error === null ? resolve(response) : reject(error)));
    for (const m of messages) stream.write({ metadata: m.metadata, file: m.file });
    stream.end();
  });
}

describe('PrivacyPublicService: policy reads (no key)', () => {
  it("answer a policy's recipients, owners and anchored hashes", async () => {
    const [a0, a1] = s.accounts as [DevAccount, DevAccount];
    assert.deepEqual(await call(client.recipients.bind(client), { policyId }), { addresses: [a0.address, a1.address] });
    assert.deepEqual(await call(client.owners.bind(client), { policyId }), { addresses: [a0.address] });
    const { small, large } = s.seed.privacyItems;
    assert.deepEqual((await call(client.hashes.bind(client), { policyId })).hashes.sort(), [small.hash, large.hash].sort());
  });

  it('refuse an undecodable policy id (199) and an unknown one (612)', async () => {
    assert.deepEqual(await refusal(call(client.owners.bind(client), { policyId: '0OIl' })), {
      code: grpc.status.INVALID_ARGUMENT,
      errorCode: '199',
      message: "Failed to decode policyId: '0OIl'",
    });
    const unknown = encodeBase58(randomBytes(32));
    const r = await refusal(call(client.hashes.bind(client), { policyId: unknown }));
    assert.deepEqual([r.code, r.errorCode], [grpc.status.INVALID_ARGUMENT, '612']);
  });
});

describe('PrivacyPublicService: items (privacy key)', () => {
  it('refuse a call without the privacy key (UNAUTHENTICATED 618) and with a wrong one (PERMISSION_DENIED 614)', async () => {
    const { small } = s.seed.privacyItems;
    const none = await refusal(call(client.getPolicyItemData.bind(client), { policyId, dataHash: small.hash }));
    assert.deepEqual([none.code, none.errorCode], [grpc.status.UNAUTHENTICATED, '618']);
    const wrong = await refusal(call(client.getPolicyItemInfo.bind(client), { policyId, dataHash: small.hash }, withKey('not-the-key')));
    assert.deepEqual([wrong.code, wrong.errorCode], [grpc.status.PERMISSION_DENIED, '614']);
    for (const stream of [readLarge(s.seed.privacyItems.large.hash, new grpc.Metadata())]) {
      const r = await refusal(stream);
      assert.deepEqual([r.code, r.errorCode], [grpc.status.UNAUTHENTICATED, '618']);
    }
    const send = await refusal(sendLarge([{ metadata: metadataFor(Buffer.from('x')) }], withKey('bad')));
    assert.deepEqual([send.code, send.errorCode], [grpc.status.PERMISSION_DENIED, '614']);
    const sync = await refusal(call(client.forceSync.bind(client), { policyId }));
    assert.deepEqual([sync.code, sync.errorCode], [grpc.status.UNAUTHENTICATED, '618']);
  });

  it("serve a small item's data, an item's info and whether the storage holds it", async () => {
    const { small } = s.seed.privacyItems;
    const data = await call(client.getPolicyItemData.bind(client), { policyId, dataHash: small.hash }, KEY());
    assert.deepEqual(Buffer.from(data.data), small.data);
    const info = await call(client.getPolicyItemInfo.bind(client), { policyId, dataHash: small.hash }, KEY());
    assert.equal(info.senderAddress, owner.address);
    assert.equal(info.policyId, policyId);
    assert.equal(info.dataHash, small.hash);
    assert.deepEqual([info.info?.filename, info.info?.size, info.info?.author], ['small.txt', small.data.length, 'seeder']);
    assert.deepEqual(await call(client.policyItemDataExists.bind(client), { policyId, dataHash: small.hash }, KEY()), { exists: true });
    assert.deepEqual(await call(client.policyItemDataExists.bind(client), { policyId, dataHash: hashOf(randomBytes(8)) }, KEY()), { exists: false });
  });

  it('refuse a large item by GetPolicyItemData (647), a small one by the stream (647), an unknown one (646; its info 617)', async () => {
    const { small, large } = s.seed.privacyItems;
    const big = await refusal(call(client.getPolicyItemData.bind(client), { policyId, dataHash: large.hash }, KEY()));
    assert.deepEqual([big.code, big.errorCode], [grpc.status.INVALID_ARGUMENT, '647']);
    const little = await refusal(readLarge(small.hash));
    assert.deepEqual([little.code, little.errorCode], [grpc.status.INVALID_ARGUMENT, '647']);
    const unknown = await refusal(call(client.getPolicyItemData.bind(client), { policyId, dataHash: hashOf(randomBytes(8)) }, KEY()));
    assert.deepEqual([unknown.code, unknown.errorCode], [grpc.status.NOT_FOUND, '646']);
    const noInfo = await refusal(call(client.getPolicyItemInfo.bind(client), { policyId, dataHash: hashOf(randomBytes(8)) }, KEY()));
    assert.deepEqual([noInfo.code, noInfo.errorCode], [grpc.status.INVALID_ARGUMENT, '617']);
  });

  it('streams a large item in messages of at most 1 MiB', async () => {
    const { large } = s.seed.privacyItems;
    const messages = await readLarge(large.hash);
    assert.deepEqual(Buffer.concat(messages.map((m) => m.data)), large.data);
    assert.ok(messages.every((m) => m.data.length <= LARGE_DATA_MESSAGE_BYTES));
  });

  it('SendData stores the data and answers its version-3 PolicyDataHash in protobuf form', async () => {
    const data = randomBytes(1000);
    const answer = await call(client.sendData.bind(client), { metadata: metadataFor(data), data }, KEY());
    assert.equal(answer.txVersion, 3);
    const tx = answer.tx!;
    assert.equal(encodeBase58(tx.dataHash), hashOf(data));
    assert.equal(encodeBase58(tx.policyId), policyId);
    assert.equal(encodeBase58(tx.senderAddress), owner.address);
    assert.equal(tx.fee.toString(), '5000000');
    assert.equal(tx.proofs.length, 1);
    const read = await call(client.getPolicyItemData.bind(client), { policyId, dataHash: hashOf(data) }, KEY());
    assert.deepEqual(Buffer.from(read.data), data);
  });

  it("SendData refuses a request without metadata (199 'Empty metadata') or without info (199), and a wrong hash (199)", async () => {
    const none = await refusal(call(client.sendData.bind(client), { metadata: undefined, data: Buffer.from('x') }, KEY()));
    assert.deepEqual(none, { code: grpc.status.INVALID_ARGUMENT, errorCode: '199', message: 'Empty metadata' });
    const noInfo = await refusal(
      call(client.sendData.bind(client), { metadata: metadataFor(Buffer.from('y'), { info: undefined }), data: Buffer.from('y') }, KEY()),
    );
    assert.deepEqual(noInfo, { code: grpc.status.INVALID_ARGUMENT, errorCode: '199', message: 'Empty data info' });
    const mismatch = await refusal(call(client.sendData.bind(client), { metadata: metadataFor(Buffer.from('z')), data: Buffer.from('other') }, KEY()));
    assert.deepEqual([mismatch.code, mismatch.errorCode], [grpc.status.INVALID_ARGUMENT, '199']);
  });

  it('SendLargeData streams chunks into the storage and the item reads back whole', async () => {
    const data = randomBytes(3 * 1024 * 1024 + 17);
    const chunks = [];
    for (let at = 0; at < data.length; at += 256 * 1024) chunks.push({ file: { content: data.subarray(at, at + 256 * 1024) } });
    const answer = await sendLarge([{ metadata: metadataFor(data) }, ...chunks]);
    assert.equal(answer.txVersion, 3);
    assert.equal(encodeBase58(answer.tx!.dataHash), hashOf(data));
    const back = await readLarge(hashOf(data));
    assert.ok(Buffer.concat(back.map((m) => m.data)).equals(data));
    assert.ok(back.length >= 4, 'in messages of at most 1 MiB');
  });

  it('SendLargeData refuses data before the metadata, an empty first chunk, a bad connection-id (643); nothing is stored', async () => {
    const data = randomBytes(100);
    const first = await refusal(sendLarge([{ file: { content: data } }]));
    assert.deepEqual(first, { code: grpc.status.INVALID_ARGUMENT, errorCode: '199', message: 'Metadata part must be in the head of the stream' });
    const empty = await refusal(sendLarge([{ metadata: metadataFor(data) }, { file: { content: new Uint8Array(0) } }]));
    assert.deepEqual(empty, { code: grpc.status.INVALID_ARGUMENT, errorCode: '199', message: 'Empty data stream' });
    const named = KEY();
    named.set('connection-id', 'x'.repeat(17));
    const id = await refusal(sendLarge([{ metadata: metadataFor(data) }, { file: { content: data } }], named));
    assert.deepEqual([id.code, id.errorCode], [grpc.status.INVALID_ARGUMENT, '643']);
    assert.deepEqual(await call(client.policyItemDataExists.bind(client), { policyId, dataHash: hashOf(data) }, KEY()), { exists: false });
  });

  it("ForceSync queues the policy's items for download and answers how many", async () => {
    const answer = await call(client.forceSync.bind(client), { policyId }, KEY());
    assert.equal(typeof answer.forceRestarted, 'number');
    const r = await refusal(call(client.forceSync.bind(client), { policyId: encodeBase58(randomBytes(32)) }, KEY()));
    assert.deepEqual([r.code, r.errorCode], [grpc.status.INVALID_ARGUMENT, '612']);
  });
});

describe('PrivacyEventsService.SubscribeOn', () => {
  const subscribe = (request: Partial<SubscribeOnRequest>, metadata = KEY()) => {
    const events = new PrivacyEventsServiceClient(server.address, insecure, OWN_CONNECTION);
    const stream = events.subscribeOn({ genesisBlock: undefined, blockSignature: undefined, currentEvent: undefined, eventsFilters: [], ...request }, metadata);
    const received: PrivacyEvent[] = [];
    let error: grpc.ServiceError | undefined;
    stream.on('data', (e: PrivacyEvent) => received.push(e));
    stream.on('error', (e: grpc.ServiceError) => (error = e));
    return {
      received,
      error: () => error,
      close: () => {
        stream.cancel();
        events.close();
      },
    };
  };

  it('refuses any events filter (INVALID_ARGUMENT), no start point (INVALID_ARGUMENT), an unknown block (NOT_FOUND 301), no key (618)', async () => {
    const cases: Array<[Partial<SubscribeOnRequest>, grpc.Metadata, grpc.status, string]> = [
      [
        { genesisBlock: {}, eventsFilters: [{ filterIn: {}, filterOut: undefined, txTypeFilter: { txTypes: [114] }, contractIdFilter: undefined }] },
        new grpc.Metadata(),
        grpc.status.INVALID_ARGUMENT,
        '199',
      ],
      [{}, KEY(), grpc.status.INVALID_ARGUMENT, '199'],
      [{ blockSignature: { lastBlockSignature: randomBytes(64) } }, KEY(), grpc.status.NOT_FOUND, '301'],
      [{ genesisBlock: {} }, new grpc.Metadata(), grpc.status.UNAUTHENTICATED, '618'],
    ];
    for (const [request, metadata, code, errorCode] of cases) {
      const sub = subscribe(request, metadata);
      await until('the events', () => sub.error() !== undefined || undefined, 10_000);
      assert.deepEqual([sub.error()!.code, String(sub.error()!.metadata.get('error-code')[0])], [code, errorCode], JSON.stringify(request));
      sub.close();
    }
  });

  it('sends one DATA_ACQUIRED per PolicyDataHash in blocks from genesis, then live acquisitions; the next stream past max-connections is UNAVAILABLE 642', async () => {
    const history = subscribe({ genesisBlock: {} });
    const live = subscribe({ currentEvent: {} });
    try {
      const { small, large } = s.seed.privacyItems;
      await until('the events', () => history.received.length >= 2 || undefined, 10_000);
      assert.deepEqual(
        history.received.map((e) => [e.policyId, e.dataHash, e.eventType]).sort(),
        [
          [policyId, small.hash, PrivacyEvent_EventType.DATA_ACQUIRED],
          [policyId, large.hash, PrivacyEvent_EventType.DATA_ACQUIRED],
        ].sort(),
      );
      const third = subscribe({ currentEvent: {} });
      await until('the events', () => third.error() !== undefined || undefined, 10_000);
      assert.deepEqual([third.error()!.code, String(third.error()!.metadata.get('error-code')[0])], [grpc.status.UNAVAILABLE, '642']);
      third.close();
      const data = randomBytes(50);
      await call(client.sendData.bind(client), { metadata: metadataFor(data), data }, KEY());
      const acquired = (e: PrivacyEvent): boolean => e.dataHash === hashOf(data) && e.eventType === PrivacyEvent_EventType.DATA_ACQUIRED;
      await until('the events', () => (live.received.some(acquired) && history.received.some(acquired)) || undefined, 10_000);
    } finally {
      history.close();
      live.close();
    }
  });

  it('sends DATA_INVALIDATED for each PolicyDataHash a rollback removes', async () => {
    const live = subscribe({ currentEvent: {} });
    try {
      const anchoring = s.services.chain.transaction(s.seed.policy.id)!.height;
      await new Promise((resolve) => setTimeout(resolve, 200));
      s.services.admin.rollback(anchoring, false);
      const { small, large } = s.seed.privacyItems;
      await until('the events', () => live.received.filter((e) => e.eventType === PrivacyEvent_EventType.DATA_INVALIDATED).length >= 2 || undefined, 10_000);
      assert.deepEqual(
        live.received
          .filter((e) => e.eventType === PrivacyEvent_EventType.DATA_INVALIDATED)
          .map((e) => e.dataHash)
          .sort(),
        [small.hash, large.hash].sort(),
      );
    } finally {
      live.close();
    }
  });
});
