/**
 * The settings key tables (config/key-table.ts): each table's rendering of what it read reads
 * back to the same settings, and every key a table knows is rendered — so a key added to a
 * table is both read and written back, never one without the other.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigSection, isObject, type RawObject } from '../../src/config/section.js';
import { parseHoconText, readHoconFile } from '../../src/config/hocon.js';
import type { HoconObject, KeyTable } from '../../src/config/key-table.js';
import { Address } from '../../src/crypto/address.js';
import { CHAIN_ID_KEY, CHAIN_TABLE, CRYPTO_TYPE_KEY, UTX_TABLE } from '../../src/chain/settings-keys.js';
import { MINER_TABLE } from '../../src/consensus/settings-keys.js';
import { API_TABLE } from '../../src/api/settings-keys.js';
import { NETWORK_TABLE } from '../../src/network/settings-keys.js';
import { PRIVACY_TABLE } from '../../src/privacy/settings-keys.js';
import { CONFIDENTIAL_CONTRACTS_TABLE } from '../../src/contracts/confidential/settings-keys.js';
import { CONTRACTS_TABLE } from '../../src/contracts/settings-keys.js';
import { ANCHORING_TABLE } from '../../src/anchoring/settings-keys.js';
import { PKI_TABLE } from '../../src/pki/settings-keys.js';
import { LICENCES_TABLE } from '../../src/licences/settings-keys.js';
import { CONFIDENTIAL_CONTRACTS_DEFAULTS } from '../../src/contracts/confidential/settings.js';
import { FEATURES_TABLE, METRICS_TABLE, NODE_TABLE, type NodeConfig } from '../../src/node/config.js';
import { renderNodeConfig } from '../../src/node/config-render.js';
import { devNodeConfig } from '../../src/cli/dev.js';
import { prepareDevnet } from '../../src/cli/devnet.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { stringifyJson } from '../../src/protocol/json.js';
import { tempDir } from '../../devkit/tmp.js';

const CHEAP = { scrypt: { N: 1024, r: 8, p: 1 } };

/** A table, the section of `node` it reads, and what it is read with. */
interface TableCase {
  readonly name: string;
  readonly table: KeyTable<unknown, unknown>;
  /** Path of its section under the document root. */
  readonly section: string;
  readonly context: (protocol: Protocol) => unknown;
  /** Whether a document carries the section (absent: the table is not read from it). */
  readonly present?: (node: ConfigSection) => boolean;
}

const TABLES: readonly TableCase[] = [
  { name: 'node', table: NODE_TABLE, section: 'node', context: (p) => p },
  { name: 'chain', table: CHAIN_TABLE, section: 'node', context: (protocol) => ({ protocol }) },
  { name: 'pki', table: PKI_TABLE, section: 'node', context: (p) => ({ crypto: p.crypto.type, tlsEnabled: true }) },
  { name: 'licences', table: LICENCES_TABLE, section: 'node.licenses', context: (p) => ({ publicKeyLength: p.crypto.publicKeyLength }) },
  { name: 'features', table: FEATURES_TABLE, section: 'node.features', context: () => undefined },
  { name: 'miner', table: MINER_TABLE, section: 'node.miner', context: () => undefined },
  { name: 'utx', table: UTX_TABLE, section: 'node.utx', context: () => undefined },
  { name: 'api', table: API_TABLE, section: 'node.api', context: () => ({ watcher: false, pkiMode: 'OFF' }) },
  { name: 'metrics', table: METRICS_TABLE, section: 'node.metrics', context: () => undefined },
  { name: 'network', table: NETWORK_TABLE, section: 'node.network', context: () => undefined },
  { name: 'privacy', table: PRIVACY_TABLE, section: 'node.privacy', context: () => undefined },
  {
    name: 'confidential contracts',
    table: CONFIDENTIAL_CONTRACTS_TABLE,
    section: 'node.confidential-contracts',
    context: () => undefined,
    present: (node) => node.has('confidential-contracts.replier'),
  },
  { name: 'contracts', table: CONTRACTS_TABLE, section: 'node', context: () => ({ dataDirectory: '/data' }), present: (node) => node.has('contracts') },
  { name: 'anchoring', table: ANCHORING_TABLE, section: 'node.anchoring', context: () => undefined, present: (node) => node.bool('anchoring.enable', false) },
];

/** Plain JSON of settings: addresses as text, maps as entries, bytes as hex, bigints marked. */
function plain(settings: unknown): unknown {
  return JSON.parse(
    JSON.stringify(settings, (_k, v: unknown) => {
      if (v instanceof Address) return `address:${v.toString()}`;
      if (v instanceof Map) return [...v.entries()];
      if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
      if (typeof v === 'bigint') return `${v}n`;
      return v;
    }),
  );
}

/** The value at a dotted path of a rendered object. */
function at(rendered: HoconObject, path: string): unknown {
  let v: unknown = rendered;
  for (const part of path.split('.')) v = isObject(v) ? v[part] : undefined;
  return v;
}

const devnetDirs: string[] = [];
after(() => {
  for (const dir of devnetDirs) rmSync(dir, { recursive: true, force: true });
});

/** Node config documents between them naming every key: the dev chain's, one with every optional key set, the variants of each choice, and a GOST devnet's with a genesis PKI. */
async function documents(): Promise<RawObject[]> {
  const dev = await devNodeConfig({ dataDir: tempDir('weft-tables-'), keystore: CHEAP });
  const target = await Protocol.create({ crypto: 'waves', chainId: 'K' });
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const anchoring: NonNullable<NodeConfig['anchoring']> = {
    heightRange: 5,
    heightAbove: 3,
    threshold: 2,
    targetnet: {
      auth: { type: 'oauth2', authorizationToken: 'static', authorizationServiceUrl: 'https://auth.example/token', tokenUpdateIntervalMs: 420_000 },
      schemeByte: 'K',
      nodeAddress: 'https://target.example/node-1',
      nodeRecipientAddress: target.addresses.fromPublicKey(target.crypto.keyPairFromSeedPhrase('tables target').publicKey).toString(),
      privateKeyPassword: 'pw',
      wallet: { file: '/var/lib/weft/targetnet.json', password: 'small' },
      fee: 500_000n,
    },
    sidechainFee: 600_000n,
    txMiningCheckDelayMs: 2000,
    txMiningCheckCount: 7,
    retryDelayMs: 250,
    heightPollIntervalMs: 1500,
  };
  const full: NodeConfig = {
    ...dev,
    api: {
      ...dev.api,
      auth: { type: 'oauth2', publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString() },
      corsAllowedOrigins: ['https://wallet.example'],
    },
    network: {
      ...dev.network,
      nodeName: 'tables',
      nonce: 12345n,
      knownPeers: [{ host: '::1', port: 6865 }],
      declaredAddress: { host: 'node.example', port: 6864 },
      tls: { keyFile: '/k.pem', certFile: '/c.pem', caFile: '/ca.pem' },
    },
    node: { ...dev.node, confidentialDataDirectory: '/srv/confidential', verifierThreads: 2 },
    confidentialContracts: CONFIDENTIAL_CONTRACTS_DEFAULTS,
    contracts: {
      ...dev.contracts!,
      instances: 2,
      isolateNetwork: false,
      firstUserId: 5000,
      maxFailedExecutions: 4,
      wasmExecution: { timeoutMs: 1500, memoryLimitBytes: 96 * 2 ** 20, threads: 3 },
      grpc: { ...dev.contracts!.grpc, contractStatusMaxConnections: 9, contractStatusMaxConnectionsPerChannel: 3 },
      dockerEngine: {
        ...dev.contracts!.dockerEngine,
        dockerHost: 'unix:///run/docker.sock',
        defaultRegistryDomain: 'registry.example',
        remoteRegistries: [{ domain: 'registry.example', username: 'u', password: '' }],
        grpcServer: { host: 'node.example', port: 6865 },
      },
      packages: [
        {
          image: 'registry.local/kv:1',
          runtime: 'process',
          source: '/opt/kv',
          command: ['node', 'main.js'],
          env: { A: '1' },
          maxInFlight: 2,
          instances: 3,
          isolateNetwork: true,
        },
      ],
    },
    licences: { issuers: [dev.chain.genesis.networkParticipants[0]!.publicKey], onExpiry: 'stop-mining' },
    privacy: {
      ...dev.privacy!,
      storage: {
        vendor: 'postgres',
        url: 'jdbc:postgresql://db/privacy',
        user: 'weft',
        password: 'secret',
        schema: 'c',
        connectionTimeoutMs: 7000,
        poolSize: 4,
        uploadChunkSize: 2 ** 21,
      },
    },
    anchoring,
  };
  const variants: NodeConfig[] = [
    dev,
    full,
    {
      ...dev,
      chain: {
        ...dev.chain,
        consensus: { type: 'pos', averageBlockDelayMs: 30_000, initialBaseTarget: 153_722_867n },
        functionality: { ...dev.chain.functionality, preActivatedFeatures: new Map([[1, 0]]) },
      },
    },
    {
      ...dev,
      anchoring: { ...anchoring, targetnet: { ...anchoring.targetnet, auth: { type: 'api-key' } } },
      privacy: { ...dev.privacy!, storage: { vendor: 'embedded', directory: '/srv/privacy' } },
    },
    { ...dev, privacy: { ...dev.privacy!, storage: { vendor: 'none' } } },
    {
      ...dev,
      privacy: {
        ...dev.privacy!,
        storage: {
          vendor: 's3',
          url: 'http://127.0.0.1:9000/',
          bucket: 'b',
          region: 'r',
          accessKeyId: 'a',
          secretAccessKey: 's',
          pathStyleAccessEnabled: false,
          connectionTimeoutMs: 1500,
          connectionAcquisitionTimeoutMs: 2000,
          maxConcurrency: 8,
          readTimeoutMs: 0,
          uploadChunkSize: 2 ** 23,
        },
      },
    },
  ];
  const docs: RawObject[] = [];
  for (const config of variants) {
    const rendered = renderNodeConfig(config);
    // WE requires the genesis block delay whatever the consensus; PoA settings do not carry it.
    const genesis = (rendered.node['blockchain'] as { custom: { genesis: HoconObject } }).custom.genesis;
    genesis['average-block-delay'] ??= '60s';
    docs.push(await parseHoconText(stringifyJson(rendered)));
  }
  const dir = mkdtempSync(join(tmpdir(), 'weft-tables-gost-'));
  devnetDirs.push(dir);
  const gost = (await readHoconFile(
    (await prepareDevnet({ nodes: 1, dir, crypto: 'gost', pki: 'TEST', keystore: CHEAP, basePort: 0 })).nodes[0]!.configFile,
  )) as {
    node: HoconObject;
  };
  gost.node['pki'] = { 'tsp-server': 'http://tsp.example/' };
  docs.push(await parseHoconText(stringifyJson(gost)));
  // CFT's keys: a CFT devnet's config, with the optional full-vote-set-timeout added.
  const cftDir = mkdtempSync(join(tmpdir(), 'weft-tables-cft-'));
  devnetDirs.push(cftDir);
  const cft = (await readHoconFile((await prepareDevnet({ nodes: 2, dir: cftDir, consensus: 'cft', keystore: CHEAP, basePort: 0 })).nodes[0]!.configFile)) as {
    node: { blockchain: { consensus: HoconObject } };
  };
  cft.node.blockchain.consensus['full-vote-set-timeout'] = '2s';
  docs.push(await parseHoconText(stringifyJson(cft)));
  return docs;
}

describe('settings key tables', () => {
  it('each reads back what it rendered of what it read, and renders every key it knows', async () => {
    const docs = await documents();
    const rendered = new Map<string, HoconObject[]>();
    for (const doc of docs) {
      const root = new ConfigSection(doc, '');
      const node = root.section('node');
      const protocol = await Protocol.create({ crypto: CRYPTO_TYPE_KEY.read(node, undefined), chainId: CHAIN_ID_KEY.read(node, undefined) });
      for (const c of TABLES) {
        if (c.present !== undefined && !c.present(node)) continue;
        const context = c.context(protocol);
        const settings = c.table.read(root.section(c.section), context);
        const text = c.table.render(settings);
        const again = c.table.read(new ConfigSection(await parseHoconText(stringifyJson(text)), c.section), context);
        assert.deepEqual(plain(again), plain(settings), c.name);
        rendered.set(c.name, [...(rendered.get(c.name) ?? []), text]);
      }
    }
    for (const c of TABLES) {
      const texts = rendered.get(c.name) ?? [];
      assert.ok(texts.length > 0, `${c.name}: read from no document`);
      for (const path of c.table.paths)
        assert.ok(
          texts.some((text) => at(text, path) !== undefined),
          `${c.name}: ${path} is read but never rendered`,
        );
    }
  });
});
