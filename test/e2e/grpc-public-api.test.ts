/**
 * WE 1.14's public gRPC API over the wire: one dev-chain node process (`start`, privacy on,
 * its gRPC port from dev-accounts.json's `grpcAddress`), every method of every public service
 * called once with the official generated clients of @wavesenterprise/js-contract-grpc-client
 * 1.10.0 (ContractPublicService, absent from the package, with a grpc-js client of
 * src/api/grpc/public-api-1.14.ts's definition), each answer checked against the REST answer
 * of the same thing:
 *
 * - NodeConfig / NodeOwner vs /node/config and /node/owner — in 1.14's form (crypto type at
 *   field 13) and as the 1.10 stub reads it (its enum at field 2 stays UNKNOWN_CRYPTO_TYPE);
 *   GetNodeTime vs /utils/time;
 * - a transfer broadcast over gRPC read over REST, and one broadcast over REST read over gRPC
 *   (same id, same JSON); BroadcastWithCerts; UnconfirmedTransactionInfo vs
 *   /transactions/unconfirmed/info; UtxInfo's first message vs /transactions/unconfirmed/size;
 * - an alias created over gRPC read both ways; a data transaction, then GetAddressData and
 *   GetAddressDataByKey vs /addresses/data; GetAddresses vs /addresses;
 * - a WASM contract paid WEST: GetContractBalances vs /contracts/balance, its execution
 *   statuses, read by transaction id and live (ContractsExecutionEvents), and an unknown
 *   transaction's (UNKNOWN, WE's 605 text) vs /contracts/status; the 1.10 stub cannot carry a
 *   v7 create's WASM code (no `stored_contract`), so those two go over REST;
 * - SubscribeOn from genesis: the first event is block 1 as /blocks/at/1 shows it;
 * - confidential data with the privacy key in `X-API-Key`: SendData and its DATA_ACQUIRED
 *   event, GetPolicyItemData/Info/DataExists, Recipients/Owners/Hashes, SendLargeData and
 *   GetPolicyItemLargeData of a few MB, ForceSync — each vs its /privacy route; without the
 *   key UNAUTHENTICATED 618, with a wrong one PERMISSION_DENIED 614.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import Long from 'long';
import { AddressPublicServiceClient } from '@wavesenterprise/js-contract-grpc-client/address/address_public_service.js';
import { AliasPublicServiceClient } from '@wavesenterprise/js-contract-grpc-client/alias/alias_public_service.js';
import type { ContractBalancesResponse } from '@wavesenterprise/js-contract-grpc-client/contract/contract_contract_service.js';
import type { DataEntry as DataEntryMessage } from '@wavesenterprise/js-contract-grpc-client/data_entry.js';
import { CryptoType } from '@wavesenterprise/js-contract-grpc-client/constants.js';
import { Transaction as TransactionMessage } from '@wavesenterprise/js-contract-grpc-client/managed/transaction.js';
import { BlockchainEventsServiceClient } from '@wavesenterprise/js-contract-grpc-client/messagebroker/messagebroker_blockchain_events_service.js';
import type { BlockchainEvent } from '@wavesenterprise/js-contract-grpc-client/messagebroker/messagebroker_blockchain_event.js';
import {
  PrivacyEvent_EventType,
  PrivacyEventsServiceClient,
  type PrivacyEvent,
} from '@wavesenterprise/js-contract-grpc-client/privacy/privacy_events_service.js';
import {
  PrivacyPublicServiceClient,
  type PolicyItemDataResponse,
  type SendDataMetadata,
  type SendDataResponse,
} from '@wavesenterprise/js-contract-grpc-client/privacy/privacy_public_service.js';
import { TransactionPublicServiceClient, type UtxSize } from '@wavesenterprise/js-contract-grpc-client/transaction/transaction_public_service.js';
import {
  ContractExecutionResponse_Status,
  ContractStatusServiceClient,
  type ContractExecutionResponse,
} from '@wavesenterprise/js-contract-grpc-client/util/util_contract_status_service.js';
import { NodeInfoServiceClient } from '@wavesenterprise/js-contract-grpc-client/util/util_node_info_service.js';
import { UtilPublicServiceClient } from '@wavesenterprise/js-contract-grpc-client/util/util_public_service.js';
import type { SubscribeOnRequest } from '@wavesenterprise/js-contract-grpc-client/util/events/util_events_subscribe_on_request.js';
import { CONTRACT_PUBLIC_SERVICE_DEFINITION, NODE_INFO_SERVICE_DEFINITION, type NodeConfigMessage } from '../../src/api/grpc/public-api-1.14.js';
import { DEV_API_KEY, devAccounts, devProtocol, type DevAccount } from '../../src/cli/dev.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { parseJson, stringifyJson } from '../../src/protocol/json.js';
import { transactionFromProto, transactionToProto } from '../../src/protocol/proto/transactions.js';
import type { Protocol } from '../../src/protocol/protocol.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { callV7, createV7, timestampsFrom } from '../../devkit/contracts/engine.js';
import { wasmFixture } from '../../devkit/contracts/wasm-fixtures.js';
import { messageTxId } from '../../devkit/api/event-indexer.js';
import { download, PrivacyClient } from '../../devkit/privacy-client.js';
import { call, refusal, withKey, type UnaryMethod } from '../api/grpc-public.js';
import { signedTransferTx } from '../support/transfers.js';
import { NodeFleet, until, type DevNode } from './support.js';

const MB = 1_000_000;
const empty = {};
const insecure = grpc.credentials.createInsecure();
const PRIVACY_KEY = (): grpc.Metadata => withKey(DEV_API_KEY);
const sha = (data: Uint8Array): string => encodeBase58(createHash('sha256').update(data).digest());

const fleet = new NodeFleet();
let node: DevNode;
let address: string;
let p: Protocol;
let accounts: DevAccount[];
let nonce = 0;
const clients: grpc.Client[] = [];

/** An official client of the node's gRPC port, closed at the end. */
function client<C extends grpc.Client>(Ctor: new (address: string, credentials: grpc.ChannelCredentials) => C): C {
  const c = new Ctor(address, insecure);
  clients.push(c);
  return c;
}

/** A transaction's REST JSON as the node would write it (no height). */
const jsonOf = (tx: Transaction): unknown => JSON.parse(stringifyJson(tx.toJson()));

/** The official client's Transaction message of one of ours, and back. */
const asMessage = (tx: Transaction): TransactionMessage => TransactionMessage.decode(transactionToProto(tx));
const fromMessage = (m: TransactionMessage): Transaction => transactionFromProto(p, TransactionMessage.encode(m).finish());

/** A fresh signed transfer between dev accounts 1…4. */
function transfer(): Transaction {
  const i = nonce++;
  return signedTransferTx(p, accounts[1 + (i % 4)]!, accounts[1 + ((i + 1) % 4)]!, 10_000n + BigInt(i), BigInt(Date.now()) + BigInt(i));
}

/** The REST answer of a confirmed transaction, waited for. */
function confirmed(id: string): Promise<Record<string, unknown>> {
  return until(
    `transaction ${id} confirmed`,
    async () => {
      const r = await node.get(`/transactions/info/${id}`);
      return r.status === 200 ? (r.json as Record<string, unknown>) : undefined;
    },
    30_000,
    200,
  );
}

/** A REST answer without its `height`. */
function withoutHeight(j: Record<string, unknown>): Record<string, unknown> {
  const { height: _height, ...rest } = j;
  return rest;
}

/** A transaction signed by the node's keystore (`/transactions/sign`), not broadcast. */
async function signedByNode(body: Record<string, unknown>): Promise<Transaction> {
  const r = await node.post('/transactions/sign', body);
  assert.equal(r.status, 200, r.text);
  return p.transactionFromJson(parseJson(r.text));
}

/** A DataEntry message as REST JSON writes the entry. */
function entryJson(e: DataEntryMessage): Record<string, unknown> {
  if (e.intValue !== undefined) return { key: e.key, type: 'integer', value: Number(e.intValue.toString()) };
  if (e.boolValue !== undefined) return { key: e.key, type: 'boolean', value: e.boolValue };
  if (e.binaryValue !== undefined) return { key: e.key, type: 'binary', value: `base64:${Buffer.from(e.binaryValue).toString('base64')}` };
  return { key: e.key, type: 'string', value: e.stringValue };
}

const subscribeRequest = (r: Partial<SubscribeOnRequest>): SubscribeOnRequest => ({
  genesisBlock: undefined,
  blockSignature: undefined,
  currentEvent: undefined,
  eventsFilters: [],
  ...r,
});

/** The first message of a server stream (then cancelled), or its refusal. */
function firstOf<T>(stream: grpc.ClientReadableStream<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    stream.once('data', (m: T) => {
      resolve(m);
      stream.cancel();
    });
    stream.once('error', (e: grpc.ServiceError) => {
      if (e.code !== grpc.status.CANCELLED) reject(e);
    });
  });
}

/** Every message of a server stream until it ends. */
function allOf<T>(stream: grpc.ClientReadableStream<T>): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const out: T[] = [];
    stream.on('data', (m: T) => out.push(m));
    stream.on('error', reject);
    stream.on('end', () => resolve(out));
  });
}

before(async () => {
  p = await devProtocol();
  accounts = devAccounts(p);
  node = await fleet.start(fleet.tempDir('weft-e2e-grpc-api-'));
  const grpcAddress = node.accounts().grpcAddress;
  assert.ok(grpcAddress !== undefined, 'dev-accounts.json names the gRPC port');
  address = grpcAddress;
});
after(() => {
  for (const c of clients) c.close();
});

describe('WE 1.14 public gRPC API on a node process, official 1.10 clients', { timeout: 120_000 }, () => {
  it("NodeInfoService: NodeConfig in 1.14's form and as the 1.10 stub reads it, NodeOwner — as /node/config and /node/owner", async () => {
    const rest = (await node.get('/node/config')).json as Record<string, unknown>;
    const NodeInfo114 = grpc.makeGenericClientConstructor(NODE_INFO_SERVICE_DEFINITION, 'NodeInfoService');
    const c114 = client(NodeInfo114 as unknown as new (a: string, c: grpc.ChannelCredentials) => grpc.Client) as grpc.Client & {
      nodeConfig: UnaryMethod<object, NodeConfigMessage & { blockTiming?: string }>;
    };
    const config = await call(c114.nodeConfig.bind(c114), empty);
    const ms = (d: { seconds: bigint; nanos: number }): number => Number(d.seconds) * 1000 + d.nanos / 1_000_000;
    assert.deepEqual(
      {
        version: config.version,
        chainId: String.fromCharCode(config.chainId),
        cryptoType: config.cryptoType,
        consensus: config.consensus,
        pkiMode: config.pkiMode,
        minimumFee: Object.fromEntries(Object.entries(config.minimumFee).map(([k, v]) => [k, Number(v)])),
        additionalFee: Object.fromEntries(Object.entries(config.additionalFee).map(([k, v]) => [k, Number(v)])),
        maxTransactionsInMicroBlock: config.maxTransactionsInMicroBlock,
        minMicroBlockAge: ms(config.minMicroBlockAge),
        microBlockInterval: ms(config.microBlockInterval),
        requiredOids: config.requiredOids,
        crlChecksEnabled: config.crlCheckEnabled,
      },
      {
        version: rest['version'],
        chainId: rest['chainId'],
        cryptoType: rest['cryptoType'],
        consensus: { POA: 1, POS: 2, CFT: 3 }[rest['consensus'] as string],
        pkiMode: { ON: 1, OFF: 2, TEST: 3 }[rest['pkiMode'] as string],
        minimumFee: Object.fromEntries(Object.entries(rest['minimumFee'] as Record<string, number>).map(([k, v]) => [k, Number(v)])),
        additionalFee: Object.fromEntries(Object.entries(rest['additionalFee'] as Record<string, number>).map(([k, v]) => [k, Number(v)])),
        maxTransactionsInMicroBlock: rest['maxTransactionsInMicroBlock'],
        minMicroBlockAge: rest['minMicroBlockAge'],
        microBlockInterval: rest['microBlockInterval'],
        requiredOids: rest['requiredOids'],
        crlChecksEnabled: rest['crlChecksEnabled'],
      },
    );
    assert.equal(config.blockTiming, undefined, '1.14 fills no block timing');

    // The 1.10 stub: every field but the crypto type (its enum at field 2, which 1.14 leaves empty: field 13 is skipped).
    const c110 = client(NodeInfoServiceClient);
    const old = await call(c110.nodeConfig.bind(c110), empty);
    assert.equal(old.version, config.version);
    assert.equal(old.chainId, config.chainId);
    assert.equal(old.consensus, config.consensus);
    assert.equal(old.pkiMode, config.pkiMode);
    assert.equal(old.maxTransactionsInMicroBlock, config.maxTransactionsInMicroBlock);
    assert.deepEqual(
      Object.fromEntries(Object.entries(old.minimumFee).map(([k, v]) => [k, Number(v.toString())])),
      Object.fromEntries(Object.entries(config.minimumFee).map(([k, v]) => [k, Number(v)])),
    );
    assert.equal(Number(old.microBlockInterval!.seconds.toString()) * 1000 + old.microBlockInterval!.nanos / 1e6, rest['microBlockInterval']);
    assert.equal(old.cryptoType, CryptoType.UNKNOWN_CRYPTO_TYPE, 'the 1.10 client cannot read the crypto type of 1.14');
    assert.equal(old.poaRoundInfo, undefined);
    assert.equal(old.posRoundInfo, undefined);

    assert.deepEqual(await call(c110.nodeOwner.bind(c110), empty), (await node.get('/node/owner')).json);
    // A user service under API-key auth takes any key, as WE's WithoutProtection.
    assert.deepEqual(await call(c110.nodeOwner.bind(c110), empty, withKey('some other key')), (await node.get('/node/owner')).json);
  });

  it('UtilPublicService: GetNodeTime as /utils/time', async () => {
    const c = client(UtilPublicServiceClient);
    const before = (await node.get('/utils/time')).json as { system: number; NTP: number };
    const time = await call(c.getNodeTime.bind(c), empty);
    const afterRest = (await node.get('/utils/time')).json as { system: number; NTP: number };
    const system = Number(time.system.toString());
    const ntp = Number(time.ntp.toString());
    assert.ok(before.system <= system && system <= afterRest.system, `system ${system} within [${before.system}, ${afterRest.system}]`);
    assert.ok(before.NTP <= ntp && ntp <= afterRest.NTP, `ntp ${ntp} within [${before.NTP}, ${afterRest.NTP}]`);
  });

  describe('TransactionPublicService', () => {
    let c: TransactionPublicServiceClient;
    before(() => {
      c = client(TransactionPublicServiceClient);
    });

    it('Broadcast: a transfer sent over gRPC is the same transaction over REST (id and JSON)', async () => {
      const tx = transfer();
      const answer = await call(c.broadcast.bind(c), asMessage(tx));
      const admitted = fromMessage(answer);
      assert.equal(admitted.idBase58, tx.idBase58);
      const rest = await confirmed(tx.idBase58);
      assert.deepEqual(withoutHeight(rest), jsonOf(tx));
      assert.deepEqual(jsonOf(admitted), jsonOf(tx), "the answer is the transaction's protobuf form");
    });

    it('BroadcastWithCerts (no certificates on a chain without PKI): admitted and read over REST', async () => {
      const tx = transfer();
      const answer = await call(c.broadcastWithCerts.bind(c), { transaction: asMessage(tx), certificates: [] });
      assert.equal(fromMessage(answer).idBase58, tx.idBase58);
      assert.deepEqual(withoutHeight(await confirmed(tx.idBase58)), jsonOf(tx));
    });

    it('TransactionInfo: a transfer sent over REST read over gRPC — same id, JSON and height', async () => {
      const tx = transfer();
      const r = await node.post('/transactions/broadcast', stringifyJson(tx.toJson()));
      assert.equal(r.status, 200, r.text);
      const rest = await confirmed(tx.idBase58);
      const info = await call(c.transactionInfo.bind(c), { txId: tx.idBase58 });
      assert.equal(Number(info.height.toString()), rest['height']);
      assert.deepEqual(jsonOf(fromMessage(info.transaction!)), withoutHeight(rest));
      const unknown = await refusal(call(c.transactionInfo.bind(c), { txId: encodeBase58(randomBytes(32)) }));
      assert.deepEqual([unknown.code, unknown.errorCode], [grpc.status.INVALID_ARGUMENT, '199']);
    });

    it('UnconfirmedTransactionInfo as /transactions/unconfirmed/info while the transfer is in the pool', async () => {
      // The pool is drained by a micro-block every second: broadcast, then ask both ways at once, until one try catches it there.
      for (let attempt = 0; ; attempt++) {
        const tx = transfer();
        await call(c.broadcast.bind(c), asMessage(tx));
        const [grpcAnswer, rest] = await Promise.all([
          call(c.unconfirmedTransactionInfo.bind(c), { txId: tx.idBase58 }).catch((e: unknown) => e as grpc.ServiceError),
          node.get(`/transactions/unconfirmed/info/${tx.idBase58}`),
        ]);
        if (rest.status === 200 && !(grpcAnswer instanceof Error)) {
          assert.deepEqual(jsonOf(fromMessage(grpcAnswer)), rest.json);
          break;
        }
        assert.ok(attempt < 5, 'the transfer was in the pool for one of the tries');
      }
      const gone = await refusal(call(c.unconfirmedTransactionInfo.bind(c), { txId: encodeBase58(randomBytes(32)) }));
      assert.deepEqual([gone.code, gone.errorCode], [grpc.status.INVALID_ARGUMENT, '199']);
    });

    it("UtxInfo: the first message is the pool's size, as /transactions/unconfirmed/size", async () => {
      for (let attempt = 0; ; attempt++) {
        const before = (await node.get('/transactions/unconfirmed/size')).json as { size: number };
        const first = await firstOf<UtxSize>(c.utxInfo(empty));
        const afterRest = (await node.get('/transactions/unconfirmed/size')).json as { size: number };
        if (before.size === afterRest.size) {
          assert.equal(first.size, before.size);
          break;
        }
        assert.ok(attempt < 5, 'the pool held still for one of the tries');
      }
    });
  });

  it('AliasPublicService: an alias created over gRPC, read both ways', async () => {
    const fees = (await node.get('/node/config')).json.minimumFee as Record<string, number>;
    const owner = accounts[1]!;
    const name = `grpc-${randomBytes(3).toString('hex')}`;
    const tx = await signedByNode({ type: 10, version: 2, sender: owner.address, password: owner.keystorePassword, alias: name, fee: fees['10'] });
    const txs = client(TransactionPublicServiceClient);
    await call(txs.broadcast.bind(txs), asMessage(tx));
    await confirmed(tx.idBase58);
    const c = client(AliasPublicServiceClient);
    const byAlias = await call(c.addressByAlias.bind(c), { alias: name });
    assert.deepEqual(byAlias, (await node.get(`/alias/by-alias/${name}`)).json);
    assert.equal(byAlias.address, owner.address);
    const byAddress = await call(c.aliasesByAddress.bind(c), { address: owner.address });
    assert.deepEqual(byAddress.aliases, (await node.get(`/alias/by-address/${owner.address}`)).json);
    assert.ok(byAddress.aliases.includes(`alias:T:${name}`));
    const unknown = await refusal(call(c.addressByAlias.bind(c), { alias: 'nobody-here' }));
    const restUnknown = await node.get('/alias/by-alias/nobody-here');
    assert.deepEqual([unknown.code, unknown.errorCode, unknown.message], [grpc.status.NOT_FOUND, String(restUnknown.json.error), restUnknown.json.message]);
  });

  it('AddressPublicService: GetAddresses, and a data transaction read by GetAddressData and GetAddressDataByKey — as /addresses and /addresses/data', async () => {
    const c = client(AddressPublicServiceClient);
    assert.deepEqual((await call(c.getAddresses.bind(c), empty)).addresses, (await node.get('/addresses')).json);

    const config = (await node.get('/node/config')).json as { minimumFee: Record<string, number>; additionalFee: Record<string, number> };
    const holder = accounts[2]!;
    const data = [
      { key: 'b-int', type: 'integer', value: 42 },
      { key: 'a-str', type: 'string', value: 'over gRPC' },
      { key: 'c-bool', type: 'boolean', value: true },
      { key: 'd-bin', type: 'binary', value: `base64:${Buffer.from([1, 2, 3]).toString('base64')}` },
    ];
    const fee = config.minimumFee['12']! + 10 * (config.additionalFee['12'] ?? 0);
    const r = await node.post('/transactions/signAndBroadcast', {
      type: 12,
      version: 2,
      sender: holder.address,
      password: holder.keystorePassword,
      author: holder.address,
      data,
      fee,
    });
    assert.equal(r.status, 200, r.text);
    await confirmed(String(r.json.id));

    const all = await call(c.getAddressData.bind(c), { address: holder.address, offset: undefined, limit: undefined });
    const rest = (await node.get(`/addresses/data/${holder.address}`)).json as unknown[];
    assert.deepEqual(all.entries.map(entryJson), rest);
    assert.deepEqual(
      all.entries.map((e) => e.key),
      ['a-str', 'b-int', 'c-bool', 'd-bin'],
    );
    const page = await call(c.getAddressData.bind(c), { address: holder.address, offset: 1, limit: 2 });
    assert.deepEqual(page.entries.map(entryJson), (await node.get(`/addresses/data/${holder.address}?offset=1&limit=2`)).json);
    const one = await call(c.getAddressDataByKey.bind(c), { address: holder.address, key: 'b-int' });
    assert.deepEqual(one.entries.map(entryJson), [(await node.get(`/addresses/data/${holder.address}/b-int`)).json]);
    const missing = await refusal(call(c.getAddressDataByKey.bind(c), { address: holder.address, key: 'none' }));
    const restMissing = await node.get(`/addresses/data/${holder.address}/none`);
    assert.deepEqual([missing.code, missing.errorCode, missing.message], [grpc.status.NOT_FOUND, String(restMissing.json.error), restMissing.json.message]);
  });

  it('ContractPublicService and ContractStatusService: a WASM contract paid WEST — its balance and statuses as /contracts/balance and /contracts/status', async () => {
    const owner = accounts[0]!;
    timestampsFrom(BigInt(Date.now()));
    const bytecode = await wasmFixture('counter');
    const create = createV7(
      { engine: 'wasm', bytecode, bytecodeHash: createHash('sha256').update(bytecode).digest('hex') },
      [{ key: 'start', type: 'integer', value: 1n }],
      owner.keyPair,
    );
    const paid = callV7(create.id, 'wasm', 'increment', [{ key: 'by', type: 'integer', value: 2n }], [{ assetId: null, amount: 123_456n }], owner.keyPair);
    // The 1.10 stub has no `stored_contract`, `contract_engine` or `call_func` (1.14 fields of 103/104 v7): its message of
    // the create drops the WASM code, which the node refuses; such transactions go over REST (or a 1.14 stub).
    const txs = client(TransactionPublicServiceClient);
    const dropped = await refusal(call(txs.broadcast.bind(txs), asMessage(create)));
    assert.deepEqual([dropped.code, dropped.message], [grpc.status.INVALID_ARGUMENT, "Field 'storedContract' cannot be empty"]);
    // ContractsExecutionEvents from before the call: its status arrives live.
    const statuses = client(ContractStatusServiceClient);
    const live = statuses.contractsExecutionEvents(empty);
    const liveStatus = new Promise<ContractExecutionResponse>((resolve, reject) => {
      live.on('data', (m: ContractExecutionResponse) => {
        if (m.txId === paid.idBase58) resolve(m);
      });
      live.on('error', (e: grpc.ServiceError) => {
        if (e.code !== grpc.status.CANCELLED) reject(e);
      });
    });
    for (const tx of [create, paid]) {
      const r = await node.post('/transactions/broadcast', stringifyJson(tx.toJson()));
      assert.equal(r.status, 200, r.text);
      await confirmed(tx.idBase58);
    }

    // Read back, the 1.10 stub keeps the id and the common fields of the v7 call but not its engine or function.
    const callInfo = await call(txs.transactionInfo.bind(txs), { txId: paid.idBase58 });
    const callMessage = callInfo.transaction!.callContractTransaction!;
    assert.equal(encodeBase58(callMessage.id), paid.idBase58);
    assert.equal(callMessage.payments[0]!.amount.toString(), '123456');
    assert.equal((await confirmed(paid.idBase58))['callFunc'], 'increment');
    assert.ok(!('callFunc' in callMessage), 'the 1.10 stub has no call_func');

    const Contracts = grpc.makeGenericClientConstructor(CONTRACT_PUBLIC_SERVICE_DEFINITION, 'ContractPublicService');
    const contracts = client(Contracts as unknown as new (a: string, c: grpc.ChannelCredentials) => grpc.Client) as grpc.Client & {
      getContractBalances: UnaryMethod<object, ContractBalancesResponse>;
    };
    const balances = await call(contracts.getContractBalances.bind(contracts), { contractId: create.idBase58, assetsIds: [undefined] });
    const rest = (await node.get(`/contracts/balance/${create.idBase58}`)).json as { assetId: string; balance: string; decimals: number };
    assert.deepEqual(
      balances.assetsBalances.map((b) => ({ assetId: b.assetId ?? '', balance: b.amount.toString(), decimals: b.decimals })),
      [rest],
    );
    assert.equal(rest.balance, '123456');
    const unknownContract = encodeBase58(randomBytes(32));
    const none = await refusal(call(contracts.getContractBalances.bind(contracts), { contractId: unknownContract, assetsIds: [undefined] }));
    const restNone = await node.get(`/contracts/balance/${unknownContract}`);
    assert.deepEqual([none.code, none.errorCode, none.message], [grpc.status.NOT_FOUND, String(restNone.json.error), restNone.json.message]);

    const mine = await allOf<ContractExecutionResponse>(statuses.contractExecutionStatuses({ txId: paid.idBase58 }));
    const restStatuses = (await node.get(`/contracts/status/${paid.idBase58}`)).json as Array<Record<string, unknown>>;
    const asRest = (s: ContractExecutionResponse): Record<string, unknown> => ({
      sender: s.senderAddress,
      senderPublicKey: s.senderPublicKey,
      txId: s.txId,
      status: ContractExecutionResponse_Status[s.status],
      code: s.code ?? null,
      message: s.message,
      timestamp: Number(s.timestamp.toString()),
      signature: s.signature,
    });
    const restAsGrpc = restStatuses.map((s) => ({ ...s, status: String(s['status']).toUpperCase() }));
    assert.deepEqual(mine.map(asRest), restAsGrpc);
    assert.ok(mine.length > 0);
    assert.deepEqual(asRest(await liveStatus), restAsGrpc[0]);
    live.cancel();
    const unknownTx = encodeBase58(randomBytes(32));
    const noStatus = await allOf(statuses.contractExecutionStatuses({ txId: unknownTx })).then(
      () => assert.fail('an unknown transaction has no statuses'),
      (e: grpc.ServiceError) => e,
    );
    const restNoStatus = await node.get(`/contracts/status/${unknownTx}`);
    assert.equal(restNoStatus.json.error, 605);
    assert.deepEqual([noStatus.code, noStatus.details], [grpc.status.UNKNOWN, restNoStatus.json.message]);
  });

  it('BlockchainEventsService: SubscribeOn from genesis begins with block 1 as /blocks/at/1 shows it', async () => {
    const c = client(BlockchainEventsServiceClient);
    const first = await firstOf<BlockchainEvent>(c.subscribeOn(subscribeRequest({ genesisBlock: {} })));
    const block = (await node.get('/blocks/at/1')).json as { signature: string; reference: string; transactions: Array<{ id: string }> };
    const history = first.appendedBlockHistory;
    assert.ok(history !== undefined, 'the first event is an AppendedBlockHistory');
    assert.equal(Number(history.height.toString()), 1);
    assert.equal(encodeBase58(history.blockSignature), block.signature);
    assert.deepEqual(
      history.txs.map(messageTxId),
      block.transactions.map((t) => t.id),
    );
  });

  describe('PrivacyPublicService and PrivacyEventsService, with the privacy key', () => {
    let privacy: PrivacyClient;
    let c: PrivacyPublicServiceClient;
    let policyId: string;
    let owner: DevAccount;
    let fee114: number;

    before(async () => {
      owner = accounts[0]!;
      privacy = new PrivacyClient({
        url: node.url,
        apiKey: DEV_API_KEY,
        owner: { address: owner.address, password: owner.keystorePassword },
        other: { address: accounts[1]!.address, password: accounts[1]!.keystorePassword },
      });
      policyId = await privacy.createPolicy([owner.address, accounts[1]!.address]);
      fee114 = ((await node.get('/node/config')).json.minimumFee as Record<string, number>)['114']!;
      c = client(PrivacyPublicServiceClient);
    });

    const metadataFor = (data: Uint8Array, filename: string): SendDataMetadata => ({
      senderAddress: owner.address,
      policyId,
      dataHash: sha(data),
      info: { filename, size: data.length, timestamp: Long.fromNumber(Date.now()), author: 'grpc e2e', comment: 'über gRPC' },
      fee: Long.fromNumber(fee114),
      feeAssetId: undefined,
      atomicBadge: undefined,
      password: owner.keystorePassword,
      broadcastTx: true,
      certificates: [],
    });

    /** The 114 a send answered with, confirmed and read over REST. */
    async function anchoredAsRest(sent: SendDataResponse, data: Uint8Array): Promise<void> {
      const id = encodeBase58(sent.tx!.id);
      const rest = await confirmed(id);
      assert.deepEqual([rest['type'], rest['policyId'], rest['dataHash'], rest['sender']], [114, policyId, sha(data), owner.address]);
    }

    it('SendData, its DATA_ACQUIRED event, and GetPolicyItemData/Info/DataExists, Recipients/Owners/Hashes — as /privacy', async () => {
      const events = client(PrivacyEventsServiceClient);
      const subscription = events.subscribeOn(subscribeRequest({ currentEvent: {} }), PRIVACY_KEY());
      const acquired = new Promise<PrivacyEvent>((resolve, reject) => {
        subscription.on('data', (e: PrivacyEvent) => {
          if (e.policyId === policyId) resolve(e);
        });
        subscription.on('error', (e: grpc.ServiceError) => {
          if (e.code !== grpc.status.CANCELLED) reject(e);
        });
      });
      const data = randomBytes(20_000);
      const sent = await call(c.sendData.bind(c), { metadata: metadataFor(data, 'small.bin'), data }, PRIVACY_KEY());
      assert.equal(sent.txVersion, 3);
      assert.deepEqual(await acquired, { policyId, dataHash: sha(data), eventType: PrivacyEvent_EventType.DATA_ACQUIRED });
      subscription.cancel();
      await anchoredAsRest(sent, data);

      const item = { policyId, dataHash: sha(data) };
      const back = await call(c.getPolicyItemData.bind(c), item, PRIVACY_KEY());
      assert.ok(Buffer.from(back.data).equals(data));
      assert.ok(Buffer.from((await privacy.get(`/privacy/${policyId}/getData/${item.dataHash}`)).text, 'base64').equals(data));
      const info = await call(c.getPolicyItemInfo.bind(c), item, PRIVACY_KEY());
      const restInfo = (await privacy.get(`/privacy/${policyId}/getInfo/${item.dataHash}`)).json;
      assert.deepEqual(
        { sender: info.senderAddress, policy: info.policyId, hash: info.dataHash, info: { ...info.info, timestamp: Number(info.info!.timestamp.toString()) } },
        restInfo,
      );
      assert.deepEqual(await call(c.policyItemDataExists.bind(c), item, PRIVACY_KEY()), { exists: true });
      assert.deepEqual(await call(c.policyItemDataExists.bind(c), { policyId, dataHash: sha(randomBytes(8)) }, PRIVACY_KEY()), { exists: false });

      assert.deepEqual((await call(c.recipients.bind(c), { policyId })).addresses, (await privacy.get(`/privacy/${policyId}/recipients`)).json);
      assert.deepEqual((await call(c.owners.bind(c), { policyId })).addresses, (await privacy.get(`/privacy/${policyId}/owners`)).json);
      const hashes = (await call(c.hashes.bind(c), { policyId })).hashes;
      assert.deepEqual(hashes, (await privacy.get(`/privacy/${policyId}/hashes`)).json);
      assert.ok(hashes.includes(item.dataHash));
    });

    it('SendLargeData and GetPolicyItemLargeData of 6 MB, byte-identical with /privacy/getLargeData', async () => {
      const data = randomBytes(6 * MB);
      const hash = sha(data);
      const sent = await new Promise<SendDataResponse>((resolve, reject) => {
        const stream = c.sendLargeData(PRIVACY_KEY(), (error, response) => (error === null ? resolve(response) : reject(error)));
        stream.write({ metadata: metadataFor(data, 'large.bin'), file: undefined });
        for (let at = 0; at < data.length; at += 256 * 1024) stream.write({ metadata: undefined, file: { content: data.subarray(at, at + 256 * 1024) } });
        stream.end();
      });
      assert.equal(encodeBase58(sent.tx!.dataHash), hash);
      await anchoredAsRest(sent, data);

      const messages = await allOf<PolicyItemDataResponse>(c.getPolicyItemLargeData({ policyId, dataHash: hash }, PRIVACY_KEY()));
      assert.ok(messages.length > 1, 'streamed in several messages');
      assert.equal(sha(Buffer.concat(messages.map((m) => m.data))), hash);
      const rest = await download(privacy.target, `/privacy/${policyId}/getLargeData/${hash}`);
      assert.deepEqual([rest.status, rest.bytes, rest.hash], [200, data.length, hash]);
    });

    it('ForceSync as /privacy/forceSync/{policyId}', async () => {
      const forced = await call(c.forceSync.bind(c), { policyId }, PRIVACY_KEY());
      const rest = await privacy.get(`/privacy/forceSync/${policyId}`);
      assert.equal(rest.status, 200, rest.text);
      assert.deepEqual(forced, rest.json);
    });

    it('refuses the item methods and the event stream without the privacy key (UNAUTHENTICATED 618) and with a wrong one (PERMISSION_DENIED 614)', async () => {
      const item = { policyId, dataHash: sha(randomBytes(8)) };
      for (const attempt of [
        call(c.getPolicyItemData.bind(c), item),
        call(c.getPolicyItemInfo.bind(c), item),
        call(c.policyItemDataExists.bind(c), item),
        call(c.forceSync.bind(c), { policyId }),
        call(c.sendData.bind(c), { metadata: metadataFor(Buffer.from('x'), 'x'), data: Buffer.from('x') }),
        allOf(c.getPolicyItemLargeData(item, new grpc.Metadata())),
        firstOf(client(PrivacyEventsServiceClient).subscribeOn(subscribeRequest({ currentEvent: {} }), new grpc.Metadata())),
      ]) {
        const r = await refusal(attempt);
        assert.deepEqual([r.code, r.errorCode], [grpc.status.UNAUTHENTICATED, '618'], r.message);
      }
      const wrong = await refusal(call(c.getPolicyItemData.bind(c), item, withKey('not-the-key')));
      assert.deepEqual([wrong.code, wrong.errorCode], [grpc.status.PERMISSION_DENIED, '614']);
      const restWrong = await node.get(`/privacy/${policyId}/getData/${item.dataHash}`, { apiKey: 'not-the-key' });
      assert.equal(restWrong.json.error, 614);
    });
  });
});
