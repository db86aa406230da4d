/**
 * The read services of the public gRPC API — NodeInfoService, UtilPublicService,
 * AddressPublicService, AliasPublicService, ContractPublicService — driven by the official
 * generated clients of `@wavesenterprise/js-contract-grpc-client` (ContractPublicService,
 * absent from it, by a client of WE 1.14's definition) against a real node's services
 * (seeded-node.ts) and, for contract balances, a contract state built by real executions.
 * Each answer is compared with what the REST route of the same meaning answers.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { AddressPublicServiceClient } from '@wavesenterprise/js-contract-grpc-client/address/address_public_service.js';
import { AliasPublicServiceClient } from '@wavesenterprise/js-contract-grpc-client/alias/alias_public_service.js';
import { NodeInfoServiceClient } from '@wavesenterprise/js-contract-grpc-client/util/util_node_info_service.js';
import { UtilPublicServiceClient } from '@wavesenterprise/js-contract-grpc-client/util/util_public_service.js';
import { addressPublicService } from '../../src/api/grpc/address-service.js';
import { aliasPublicService } from '../../src/api/grpc/alias-service.js';
import { contractPublicService } from '../../src/api/grpc/contract-public-service.js';
import { nodeInfoService } from '../../src/api/grpc/node-info-service.js';
import { CONTRACT_PUBLIC_SERVICE_DEFINITION, NODE_INFO_SERVICE_DEFINITION, type NodeConfigMessage } from '../../src/api/grpc/public-api-1.14.js';
import { utilPublicService } from '../../src/api/grpc/util-service.js';
import type { ApiServices } from '../../src/api/services.js';
import { contractsService } from '../../src/contracts/service.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { createV7, fund, startTestEngine, type TestEngine } from '../../devkit/contracts/engine.js';
import { wasmFixture } from '../../devkit/contracts/wasm-fixtures.js';
import { SEED_ALIAS, seededNode, type SeededNode } from '../../devkit/api/seeded-node.js';
import { inject } from './inject.js';
import { call, refusal, servePublicGrpc, testDeps, type PublicGrpcServer, type UnaryMethod } from './grpc-public.js';

const insecure = grpc.credentials.createInsecure();
const empty = {};

let s: SeededNode;
let server: PublicGrpcServer;
let te: TestEngine;
let contractId: string;

const counterWasm = await wasmFixture('counter');

before(async () => {
  s = await seededNode();
  te = await startTestEngine();
  fund(te.state);
  const create = createV7({ engine: 'wasm', bytecode: counterWasm, bytecodeHash: createHash('sha256').update(counterWasm).digest('hex') }, [
    { key: 'start', type: 'integer', value: 7n },
  ]);
  assert.equal(te.mine(create, await te.execute(create)).kind, 'built');
  contractId = create.idBase58;
  te.state.addBalance(create.id, null, 12_345n);
  // The node's services, its contract state that of the engine's executions.
  const services: ApiServices = { ...s.services, contracts: contractsService(() => te.state, te.engine.statuses) };
  const deps = testDeps(services);
  server = await servePublicGrpc([
    nodeInfoService(deps),
    utilPublicService(deps),
    addressPublicService(deps),
    aliasPublicService(deps),
    contractPublicService(deps),
  ]);
});
after(async () => {
  await server?.close();
  await te?.close();
  await s?.close();
});

describe('NodeInfoService', () => {
  it("answers NodeConfig in 1.14's form: the settings /node/config shows, durations as Duration, chain id as its code, crypto type at field 13, no block timing", async () => {
    const NodeInfo = grpc.makeGenericClientConstructor(NODE_INFO_SERVICE_DEFINITION, 'NodeInfoService');
    const client = new NodeInfo(server.address, insecure) as unknown as {
      nodeConfig: UnaryMethod<object, NodeConfigMessage & { blockTiming?: string }>;
      close(): void;
    };
    const config = await call(client.nodeConfig.bind(client), empty);
    client.close();
    const rest = (await inject(s.app, 'GET', '/node/config')).json;
    assert.equal(config.version, rest.version);
    assert.equal(config.chainId, rest.chainId.charCodeAt(0));
    assert.equal(config.cryptoType, rest.cryptoType);
    assert.equal(config.consensus, { POA: 1, POS: 2, CFT: 3 }[rest.consensus as string]);
    assert.equal(config.pkiMode, { ON: 1, OFF: 2, TEST: 3 }[rest.pkiMode as string]);
    assert.deepEqual(
      Object.fromEntries(Object.entries(config.minimumFee).map(([k, v]) => [k, Number(v)])),
      Object.fromEntries(Object.entries(rest.minimumFee as Record<string, number>).map(([k, v]) => [k, Number(v)])),
    );
    assert.equal(config.maxTransactionsInMicroBlock, rest.maxTransactionsInMicroBlock);
    const ms = (d: { seconds: bigint; nanos: number }): number => Number(d.seconds) * 1000 + d.nanos / 1_000_000;
    assert.equal(ms(config.minMicroBlockAge), rest.minMicroBlockAge);
    assert.equal(ms(config.microBlockInterval), rest.microBlockInterval);
    assert.equal(config.crlCheckEnabled, rest.crlChecksEnabled);
    assert.equal(config.blockTiming, undefined, '1.14 does not fill block_timing');
  });

  it('is read by the 1.10 generated client too (every field but the crypto type), and answers NodeOwner', async () => {
    const client = new NodeInfoServiceClient(server.address, insecure);
    try {
      const config = await call(client.nodeConfig.bind(client), empty);
      assert.equal(config.chainId, s.services.protocol.chainId);
      assert.equal(config.maxTransactionsInMicroBlock, (await inject(s.app, 'GET', '/node/config')).json.maxTransactionsInMicroBlock);
      const owner = await call(client.nodeOwner.bind(client), empty);
      assert.deepEqual(owner, (await inject(s.app, 'GET', '/node/owner')).json);
    } finally {
      client.close();
    }
  });
});

describe('UtilPublicService', () => {
  it('answers the machine clock and the node time', async () => {
    const client = new UtilPublicServiceClient(server.address, insecure);
    try {
      const before = BigInt(Date.now());
      const time = await call(client.getNodeTime.bind(client), empty);
      assert.ok(BigInt(time.system.toString()) >= before - 1000n);
      assert.equal(BigInt(time.ntp.toString()), s.now(), 'the node time is the node clock (NTP-corrected in WE)');
    } finally {
      client.close();
    }
  });
});

describe('AddressPublicService', () => {
  let client: AddressPublicServiceClient;
  before(() => {
    client = new AddressPublicServiceClient(server.address, insecure);
  });
  after(() => client.close());
  const holder = (): string => s.seed.data.toJson()['sender'] as string;

  it("lists the node keystore's addresses", async () => {
    assert.deepEqual((await call(client.getAddresses.bind(client), empty)).addresses, (await inject(s.app, 'GET', '/addresses')).json);
  });

  it("reads an account's entries sorted by key, paged by offset and limit", async () => {
    const all = await call(client.getAddressData.bind(client), { address: holder(), offset: undefined, limit: undefined });
    assert.deepEqual(
      all.entries.map((e) => e.key),
      ['blob', 'count', 'flag', 'name'],
    );
    assert.equal(all.entries[1]!.intValue!.toString(), '42');
    assert.deepEqual(Buffer.from(all.entries[0]!.binaryValue!), Buffer.from([1, 2, 3]));
    assert.equal(all.entries[2]!.boolValue, true);
    assert.equal(all.entries[3]!.stringValue, 'seeded');
    const page = await call(client.getAddressData.bind(client), { address: holder(), offset: 1, limit: 2 });
    assert.deepEqual(
      page.entries.map((e) => e.key),
      ['count', 'flag'],
    );
    const zeroOffset = await call(client.getAddressData.bind(client), { address: holder(), offset: 0, limit: 1 });
    assert.deepEqual(
      zeroOffset.entries.map((e) => e.key),
      ['blob'],
    );
  });

  it('refuses a negative offset, a limit of 0 or less (both named in one 199) and a bad address (102)', async () => {
    const both = await refusal(call(client.getAddressData.bind(client), { address: holder(), offset: -1, limit: 0 }));
    assert.deepEqual(both, {
      code: grpc.status.INVALID_ARGUMENT,
      errorCode: '199',
      message: "Invalid parameters: ['-1' must be non-negative, '0' must be positive]",
    });
    const limit = await refusal(call(client.getAddressData.bind(client), { address: holder(), offset: undefined, limit: -5 }));
    assert.deepEqual([limit.code, limit.errorCode, limit.message], [grpc.status.INVALID_ARGUMENT, '199', "Invalid parameters: ['-5' must be positive]"]);
    const address = await refusal(call(client.getAddressData.bind(client), { address: 'not-an-address', offset: undefined, limit: undefined }));
    assert.deepEqual([address.code, address.errorCode], [grpc.status.INVALID_ARGUMENT, '102']);
  });

  it('reads one entry by key; a missing key is NOT_FOUND 304', async () => {
    const one = await call(client.getAddressDataByKey.bind(client), { address: holder(), key: 'name' });
    assert.deepEqual(
      one.entries.map((e) => [e.key, e.stringValue]),
      [['name', 'seeded']],
    );
    const missing = await refusal(call(client.getAddressDataByKey.bind(client), { address: holder(), key: 'nothing' }));
    assert.deepEqual(missing, { code: grpc.status.NOT_FOUND, errorCode: '304', message: 'no data for this key: nothing' });
    const noKey = await refusal(call(client.getAddressDataByKey.bind(client), { address: holder(), key: undefined }));
    assert.deepEqual([noKey.code, noKey.errorCode], [grpc.status.NOT_FOUND, '304']);
  });
});

describe('AliasPublicService', () => {
  let client: AliasPublicServiceClient;
  before(() => {
    client = new AliasPublicServiceClient(server.address, insecure);
  });
  after(() => client.close());

  it("resolves a bare alias name of the node's chain and lists an address's aliases", async () => {
    const owner = s.seed.alias.toJson()['sender'] as string;
    assert.deepEqual(await call(client.addressByAlias.bind(client), { alias: SEED_ALIAS }), { address: owner });
    assert.deepEqual(await call(client.aliasesByAddress.bind(client), { address: owner }), {
      aliases: [`alias:${String.fromCharCode(s.services.protocol.chainId)}:${SEED_ALIAS}`],
    });
  });

  it('answers an unknown alias with NOT_FOUND 302, an invalid name with 199, a bad address with 102', async () => {
    const unknown = await refusal(call(client.addressByAlias.bind(client), { alias: 'nobody-here' }));
    assert.deepEqual(unknown, {
      code: grpc.status.NOT_FOUND,
      errorCode: '302',
      message: `alias 'alias:${String.fromCharCode(s.services.protocol.chainId)}:nobody-here' doesn't exist`,
    });
    const invalid = await refusal(call(client.addressByAlias.bind(client), { alias: 'A' }));
    assert.deepEqual([invalid.code, invalid.errorCode], [grpc.status.INVALID_ARGUMENT, '199']);
    const address = await refusal(call(client.aliasesByAddress.bind(client), { address: '3xyz' }));
    assert.deepEqual([address.code, address.errorCode], [grpc.status.INVALID_ARGUMENT, '102']);
  });
});

describe('ContractPublicService', () => {
  type Balances = { assetsBalances: Array<{ assetId: string | undefined; amount: { toString(): string }; decimals: number }> };
  let client: grpc.Client & { getContractBalances: UnaryMethod<object, Balances> };
  before(() => {
    const Contracts = grpc.makeGenericClientConstructor(CONTRACT_PUBLIC_SERVICE_DEFINITION, 'ContractPublicService');
    client = new Contracts(server.address, insecure) as unknown as typeof client;
  });
  after(() => client.close());

  it('answers one balance per asset id asked, an empty or absent id meaning WEST', async () => {
    const answer = await call(client.getContractBalances.bind(client), { contractId, assetsIds: ['', undefined] });
    assert.deepEqual(
      answer.assetsBalances.map((b) => [b.assetId, b.amount.toString(), b.decimals]),
      [
        [undefined, '12345', 8],
        [undefined, '12345', 8],
      ],
    );
  });

  it('answers an unknown contract with NOT_FOUND 600, an unknown asset with 118', async () => {
    const unknown = encodeBase58(new Uint8Array(32).fill(9));
    const noContract = await refusal(call(client.getContractBalances.bind(client), { contractId: unknown, assetsIds: [''] }));
    assert.deepEqual([noContract.code, noContract.errorCode], [grpc.status.NOT_FOUND, '600']);
    const noAsset = await refusal(call(client.getContractBalances.bind(client), { contractId, assetsIds: [contractId] }));
    assert.deepEqual([noAsset.code, noAsset.errorCode], [grpc.status.INVALID_ARGUMENT, '118']);
  });
});
