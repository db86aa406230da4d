/**
 * `/debug/configInfo`'s rendering of the settings in WE's HOCON layout: read back by the
 * node's own config reader, it gives the same settings (so every key is WE's name and
 * every value its syntax).
 */
import { CONFIDENTIAL_CONTRACTS_DEFAULTS } from '../../src/contracts/confidential/settings.js';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { Address } from '../../src/crypto/address.js';
import { nodeConfigFromHocon, type NodeConfig } from '../../src/node/config.js';
import { parseHoconText } from '../../src/config/hocon.js';
import { durationText, renderNodeConfig } from '../../src/node/config-render.js';
import { devNodeConfig } from '../../src/cli/dev.js';
import { stringifyJson } from '../../src/protocol/json.js';
import { tempDir } from '../../devkit/tmp.js';

/**
 * Rendered and read back. WE requires `genesis.average-block-delay` whatever the consensus,
 * but Weft keeps it only for PoS (where it is the block delay): a PoA or CFT config gets it back here.
 */
async function roundTrip(config: NodeConfig): Promise<NodeConfig> {
  const rendered = renderNodeConfig(config) as { node: { blockchain: { custom: { genesis: Record<string, unknown> } } } };
  const genesis = rendered.node.blockchain.custom.genesis;
  if (config.chain.consensus.type !== 'pos') {
    assert.equal(genesis['average-block-delay'], undefined);
    genesis['average-block-delay'] = '60s';
  }
  const root = await parseHoconText(stringifyJson(rendered));
  return nodeConfigFromHocon(root, { env: config.node.ownerPassword === undefined ? {} : { WE_NODE_OWNER_PASSWORD: config.node.ownerPassword } });
}

/** Plain JSON of a config: addresses as text (they cache it lazily), maps as entries, bytes as hex, pkiMode OFF when unset. */
function plain(config: NodeConfig): unknown {
  const withPki = { ...config, source: null, api: { ...config.api, pkiMode: config.api.pkiMode ?? 'OFF' } };
  return JSON.parse(
    JSON.stringify(withPki, (_k, v: unknown) => {
      if (v instanceof Address) return `address:${v.toString()}`;
      if (v instanceof Map) return [...v.entries()];
      if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
      if (typeof v === 'bigint') return `${v}n`;
      return v;
    }),
  );
}

describe('renderNodeConfig', () => {
  it('durations in HOCON form', () => {
    assert.equal(durationText(0), '0ms');
    assert.equal(durationText(250), '250ms');
    assert.equal(durationText(4000), '4s');
    assert.equal(durationText(90_000), '90s');
    assert.equal(durationText(300_000), '5m');
    assert.equal(durationText(7_200_000), '2h');
    assert.equal(durationText(86_400_000), '1d');
  });

  it('the dev config, rendered and read back, is the same config', async () => {
    const config = await devNodeConfig({ dataDir: tempDir('weft-render-'), keystore: { scrypt: { N: 1024, r: 8, p: 1 } } });
    assert.deepEqual(plain(await roundTrip(config)), plain(config));
  });

  it('other settings too: OAuth2, fees off, peers, a node name, protected metrics elsewhere, the confidential contracts directory, contract instances, WASM limits, failed executions and status streams', async () => {
    const dev = await devNodeConfig({ dataDir: tempDir('weft-render-'), keystore: { scrypt: { N: 1024, r: 8, p: 1 } } });
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const config: NodeConfig = {
      ...dev,
      chain: { ...dev.chain, fees: { enabled: false, base: new Map(), additional: new Map() }, maxRollbackDepth: 77 },
      api: {
        ...dev.api,
        auth: { type: 'oauth2', publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString() },
        cors: false,
        corsAllowedOrigins: ['https://wallet.example', 'http://localhost:3000'],
        connectionLimits: { maxConnections: 50, headerTimeoutMs: 2000, requestTimeoutMs: 15_000, idleTimeoutMs: 5000 },
      },
      network: {
        ...dev.network,
        nodeName: 'render-test',
        nonce: 12345n,
        knownPeers: [
          { host: '10.0.0.2', port: 6864 },
          { host: '::1', port: 6865 },
        ],
        declaredAddress: { host: 'node.example', port: 6864 },
      },
      miner: { ...dev.miner, enabled: false, microBlockIntervalMs: 1500 },
      metrics: { enabled: true, path: '/ops/prometheus', protected: true },
      node: { ...dev.node, confidentialDataDirectory: tempDir('weft-render-confidential-'), verifierThreads: 0 },
      confidentialContracts: {
        replier: { parallelism: 4 },
        cache: { maxSize: 7, expireAfterMs: 60_000 },
        inventoryHandler: { maxBufferTimeMs: 250, maxBufferSize: 20, maxCacheSize: 1000, expirationTimeMs: 120_000, replierParallelism: 3 },
        synchronizer: { ...CONFIDENTIAL_CONTRACTS_DEFAULTS.synchronizer, initRetryDelayMs: 2000, maxAttemptCount: 5 },
      },
      contracts: {
        ...dev.contracts!,
        instances: 2,
        wasmExecution: { timeoutMs: 1500, memoryLimitBytes: 96 * 2 ** 20, threads: 3 },
        maxFailedExecutions: 4,
        grpc: { ...dev.contracts!.grpc, contractStatusMaxConnections: 9, contractStatusMaxConnectionsPerChannel: 3 },
        packages: [{ image: 'registry.local/kv:1', runtime: 'process', source: '/opt/kv', command: undefined, env: {}, instances: 3 }],
      },
    };
    assert.deepEqual(plain(await roundTrip(config)), plain(config));
    const off: NodeConfig = { ...dev, metrics: { ...dev.metrics, enabled: false } };
    assert.deepEqual(plain(await roundTrip(off)), plain(off));
  });

  it('anchoring: off as enable = false, on with every key (OAuth2, Weft pacing)', async () => {
    const dev = await devNodeConfig({ dataDir: tempDir('weft-render-'), keystore: { scrypt: { N: 1024, r: 8, p: 1 } } });
    assert.deepEqual((renderNodeConfig(dev).node as Record<string, unknown>)['anchoring'], { enable: false });
    const { Protocol } = await import('../../src/protocol/protocol.js');
    const target = await Protocol.create({ crypto: 'waves', chainId: 'K' });
    const config: NodeConfig = {
      ...dev,
      anchoring: {
        heightRange: 5,
        heightAbove: 3,
        threshold: 2,
        targetnet: {
          auth: { type: 'oauth2', authorizationToken: 'static', authorizationServiceUrl: 'https://auth.example/token', tokenUpdateIntervalMs: 420_000 },
          schemeByte: 'K',
          nodeAddress: 'https://target.example/node-1',
          nodeRecipientAddress: target.addresses.fromPublicKey(target.crypto.keyPairFromSeedPhrase('render target').publicKey).toString(),
          privateKeyPassword: 'pw',
          wallet: { file: '/var/lib/weft/targetnet.json', password: 'small' },
          fee: 500_000n,
        },
        sidechainFee: 600_000n,
        txMiningCheckDelayMs: 2000,
        txMiningCheckCount: 7,
        retryDelayMs: 250,
        heightPollIntervalMs: 1500,
      },
    };
    assert.deepEqual(plain(await roundTrip(config)), plain(config));
  });

  it('node.privacy with each storage vendor and tuned settings', async () => {
    const dev = await devNodeConfig({ dataDir: tempDir('weft-render-'), keystore: { scrypt: { N: 1024, r: 8, p: 1 } } });
    const privacy = dev.privacy!;
    const storages: Array<NonNullable<NodeConfig['privacy']>['storage']> = [
      { vendor: 'none' },
      { vendor: 'embedded', directory: '/srv/privacy' },
      {
        vendor: 'postgres',
        url: 'jdbc:postgresql://db.example:5433/privacy',
        user: 'weft',
        password: 'pässword',
        schema: 'confidential',
        connectionTimeoutMs: 7000,
        poolSize: 4,
        uploadChunkSize: 2 * 1024 * 1024,
      },
      {
        vendor: 'postgres',
        url: 'jdbc:postgresql://db.example/privacy?user=u&password=p',
        user: undefined,
        password: undefined,
        schema: 'public',
        connectionTimeoutMs: 5000,
        poolSize: 20,
        uploadChunkSize: 1024 * 1024,
      },
      {
        vendor: 's3',
        url: 'http://127.0.0.1:9000/',
        bucket: 'privacy',
        region: 'eu-west-1',
        accessKeyId: 'minioadmin',
        secretAccessKey: 'minio secret',
        pathStyleAccessEnabled: false,
        connectionTimeoutMs: 1500,
        connectionAcquisitionTimeoutMs: 2000,
        maxConcurrency: 8,
        readTimeoutMs: 0,
        uploadChunkSize: 8 * 1024 * 1024,
      },
    ];
    for (const storage of storages) {
      const config: NodeConfig = {
        ...dev,
        privacy: {
          ...privacy,
          storage,
          replier: { ...privacy.replier, streamChunkSize: 512 * 1024 },
          synchronizer: { ...privacy.synchronizer, requestTimeoutMs: 90_500 },
          service: { ...privacy.service, requestBufferSize: 3 * 1024 * 1024 },
        },
      };
      assert.deepEqual(plain(await roundTrip(config)), plain(config), storage.vendor);
    }
  });

  it('PoS: the consensus type, and the block delay under the genesis', async () => {
    const dev = await devNodeConfig({ dataDir: tempDir('weft-render-'), keystore: { scrypt: { N: 1024, r: 8, p: 1 } } });
    const rendered = renderNodeConfig({
      ...dev,
      chain: { ...dev.chain, consensus: { type: 'pos', averageBlockDelayMs: 30_000, initialBaseTarget: 153_722_867n } },
    }) as {
      node: { blockchain: { consensus: unknown; custom: { genesis: Record<string, unknown> } } };
    };
    assert.deepEqual(rendered.node.blockchain.consensus, { type: 'pos' });
    assert.equal(rendered.node.blockchain.custom.genesis['average-block-delay'], '30s');
  });
});
