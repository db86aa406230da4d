/**
 * The dev chain's defaults: deterministic on a data directory (the genesis is fixed at the
 * first start and kept), a genesis that verifies, every account in the keystore under its
 * documented password, and dev-accounts.json exactly as the README describes it.
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createRequire } from 'node:module';
import { Address } from '../../src/crypto/address.js';
import { decodeBase58, encodeBase58 } from '../../src/crypto/encoding.js';
import { DEFAULT_FEES, IMPLEMENTED_FEATURES } from '../../src/chain/settings.js';
import { genesisBlock, UNITS_IN_WEST } from '../../src/protocol/blocks.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { apiKeyHash, type NodeConfig } from '../../src/node/config.js';
import {
  DEV_API_KEY,
  DEV_CHAIN_ID,
  DEV_GENESIS_SIGNER_SEED,
  DEV_OWNER_ROLES,
  DEV_SEEDS,
  devAccountsFile,
  devKeystorePassword,
  devNodeConfig,
  writeDevAccounts,
} from '../../src/cli/dev.js';
import { Keystore, type KeystoreOptions } from '../../src/keystore/keystore.js';
import { resolveStartConfig } from '../../src/cli/start.js';
import { tempDir } from '../../devkit/tmp.js';

const devNet = await Protocol.create({ crypto: 'waves', chainId: DEV_CHAIN_ID });
function accountsOf(seed: string): { publicKey: string; address: string } {
  const kp = devNet.crypto.keyPairFromSeedPhrase(seed);
  return { publicKey: encodeBase58(kp.publicKey), address: devNet.addresses.fromPublicKey(kp.publicKey).toString() };
}

const CHEAP: KeystoreOptions = { scrypt: { N: 1024, r: 8, p: 1 } };
const T0 = 1_700_000_000_000n;

/** Comparable form: addresses as text, byte arrays as Base58, maps as entry lists. */
function plain(v: unknown): unknown {
  if (v instanceof Address) return v.toString();
  if (v instanceof Uint8Array) return encodeBase58(v);
  if (v instanceof Map) return [...v.entries()].map(([k, x]) => [plain(k), plain(x)]);
  if (Array.isArray(v)) return v.map(plain);
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

describe('dev chain defaults', () => {
  it('are the same on every call for a data directory: the genesis is fixed at the first start', async () => {
    const dir = tempDir('weft-dev-');
    const first = await devNodeConfig({ dataDir: dir, now: () => T0, keystore: CHEAP });
    const second = await devNodeConfig({ dataDir: dir, now: () => T0 + 123_456n, keystore: CHEAP });
    assert.deepEqual(plain(second), plain(first));
    assert.equal(first.chain.genesis.blockTimestamp, T0);
    // Another directory, another time: another chain.
    const other = await devNodeConfig({ dataDir: tempDir('weft-dev-'), now: () => T0 + 1n, keystore: CHEAP });
    assert.equal(other.chain.genesis.blockTimestamp, T0 + 1n);
    assert.notDeepEqual(other.chain.genesis.signature, first.chain.genesis.signature);
    // Ports are the only thing the options change.
    const ports = await devNodeConfig({ dataDir: dir, restPort: 7001, p2pPort: 7002, keystore: CHEAP });
    // (With another REST port the contract gRPC API takes any free port.)
    const grpc = ports.contracts!;
    assert.equal(grpc.grpc.port, 0);
    assert.equal(grpc.dockerEngine.grpcServer.port, 0, 'contracts are told the port the API listens on');
    const contracts = {
      ...grpc,
      grpc: { ...grpc.grpc, port: 6865 },
      dockerEngine: { ...grpc.dockerEngine, grpcServer: { ...grpc.dockerEngine.grpcServer, port: 6865 } },
    };
    assert.deepEqual(plain({ ...ports, api: { ...ports.api, port: 6862 }, network: { ...ports.network, port: 6864 }, contracts }), plain(first));
  });

  it('have a genesis that verifies, signed by the documented signer, with the documented accounts and roles', async () => {
    const config = await devNodeConfig({ dataDir: tempDir('weft-dev-'), now: () => T0, keystore: CHEAP });
    const protocol = await Protocol.create({ crypto: 'waves', chainId: 'T' });
    const g = config.chain.genesis;
    const block = genesisBlock(protocol, g, 'poa');
    assert.ok(block.hasValidSignature());
    assert.deepEqual(block.generator, protocol.crypto.keyPairFromSeedPhrase(DEV_GENESIS_SIGNER_SEED).publicKey);
    assert.ok(DEV_SEEDS.length >= 5);
    const addresses = DEV_SEEDS.map((seed) => protocol.addresses.fromPublicKey(protocol.crypto.keyPairFromSeedPhrase(seed).publicKey).toString());
    assert.deepEqual(
      g.transactions.map((t) => t.recipient.toString()),
      addresses,
    );
    assert.equal(
      g.transactions.reduce((s, t) => s + t.amount, 0n),
      g.initialBalance,
    );
    // Account 0 holds most tokens and every role but sender (disabled) and banned.
    assert.ok(g.transactions[0]!.amount * 2n > g.initialBalance);
    assert.ok(g.transactions.slice(1).every((t) => t.amount > 0n));
    assert.equal(g.senderRoleEnabled, false);
    assert.deepEqual([...g.networkParticipants[0]!.roles].sort(), [...DEV_OWNER_ROLES].sort());
    assert.deepEqual([...DEV_OWNER_ROLES].sort(), [
      'blacklister',
      'connection_manager',
      'contract_developer',
      'contract_validator',
      'dex',
      'issuer',
      'miner',
      'permissioner',
    ]);
    assert.equal(config.node.ownerAddress.toString(), addresses[0]);
    assert.equal(g.transactions[0]!.amount, 9_600_000n * UNITS_IN_WEST);
  });

  it('derive the same keys and addresses from the dev seeds as the official client', () => {
    const require = createRequire(import.meta.url);
    const sdkDir = require.resolve('@wavesenterprise/js-sdk/package.json').replace(/\/package\.json$/, '');
    const sg = require(`${sdkDir}/node_modules/@wavesenterprise/signature-generator`);
    sg.config.set({ networkByte: DEV_CHAIN_ID.charCodeAt(0), crypto: 'waves' });
    for (const seed of DEV_SEEDS) {
      const theirs = sg.Seed.fromExistingPhrase(seed);
      const ours = accountsOf(seed);
      assert.equal(ours.publicKey, theirs.keyPair.publicKey);
      assert.equal(ours.address, theirs.address);
    }
  });

  it('are a PoA chain with short rounds, WE fees and every implemented feature active at height 0', async () => {
    const c = await devNodeConfig({ dataDir: tempDir('weft-dev-'), now: () => T0, keystore: CHEAP });
    assert.equal(c.chain.chainId, DEV_CHAIN_ID);
    assert.equal(c.chain.crypto, 'waves');
    assert.equal(c.consensusType, 'poa');
    assert.ok(c.chain.consensus.type === 'poa' && c.chain.consensus.roundDurationMs + c.chain.consensus.syncDurationMs <= 5000);
    assert.ok(c.miner.microBlockIntervalMs <= 1000 && c.miner.enabled);
    assert.equal(c.chain.fees, DEFAULT_FEES);
    assert.deepEqual(
      [...c.chain.functionality.preActivatedFeatures],
      [...IMPLEMENTED_FEATURES.keys()].map((id) => [id, 0]),
    );
    assert.equal(c.api.bindAddress, '127.0.0.1');
    assert.equal(c.api.port, 6862);
    assert.equal(c.network.port, 6864);
    const protocol = await Protocol.create({ crypto: 'waves', chainId: 'T' });
    const hash = decodeBase58(apiKeyHash(protocol.crypto, DEV_API_KEY));
    assert.deepEqual(c.api.auth, { type: 'api-key', apiKeyHash: hash, privacyApiKeyHash: hash, confidentialContractsApiKeyHash: hash });
  });

  it('put every account in the keystore under its documented password', async () => {
    const dir = tempDir('weft-dev-');
    const c = await devNodeConfig({ dataDir: dir, now: () => T0, keystore: CHEAP });
    const protocol = await Protocol.create({ crypto: 'waves', chainId: 'T' });
    const ks = Keystore.open(c.node.wallet.file, protocol.addresses);
    assert.equal(c.node.wallet.file, join(dir, 'keystore.json'));
    DEV_SEEDS.forEach((seed, i) => {
      const kp = protocol.crypto.keyPairFromSeedPhrase(seed);
      const address = protocol.addresses.fromPublicKey(kp.publicKey).toString();
      assert.deepEqual(ks.keyPair(address, devKeystorePassword(i)).privateKey, kp.privateKey);
    });
    assert.equal(ks.addresses().length, DEV_SEEDS.length);
    assert.equal(c.node.ownerPassword, devKeystorePassword(0));
    assert.equal(statSync(c.node.wallet.file).mode & 0o777, 0o600);
  });

  it('write dev-accounts.json exactly as the README describes it', async () => {
    const dir = tempDir('weft-dev-');
    const c: NodeConfig = await devNodeConfig({ dataDir: dir, restPort: 16862, now: () => T0, keystore: CHEAP });
    const file = await writeDevAccounts(c, 16865);
    assert.equal(file, join(dir, 'dev-accounts.json'));
    const doc = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    assert.deepEqual(Object.keys(doc), ['restUrl', 'grpcAddress', 'apiKey', 'chainId', 'crypto', 'accounts']);
    assert.equal(doc['crypto'], 'waves');
    assert.equal(doc['restUrl'], 'http://127.0.0.1:16862');
    assert.equal(doc['grpcAddress'], '127.0.0.1:16865');
    assert.equal(doc['apiKey'], DEV_API_KEY);
    assert.equal(doc['chainId'], 'T');
    const accounts = doc['accounts'] as Array<Record<string, unknown>>;
    assert.equal(accounts.length, DEV_SEEDS.length);
    const protocol = await Protocol.create({ crypto: 'waves', chainId: 'T' });
    accounts.forEach((a, i) => {
      assert.deepEqual(Object.keys(a), ['seed', 'address', 'publicKey', 'keystorePassword', 'roles']);
      const kp = protocol.crypto.keyPairFromSeedPhrase(a['seed'] as string);
      assert.equal(a['publicKey'], encodeBase58(kp.publicKey));
      assert.equal(a['address'], protocol.addresses.fromPublicKey(kp.publicKey).toString());
      assert.equal(a['keystorePassword'], devKeystorePassword(i));
      assert.deepEqual(a['roles'], i === 0 ? [...DEV_OWNER_ROLES] : []);
    });
    assert.deepEqual(await devAccountsFile(c, 16865), doc);
  });

  it('run on GOST crypto with `crypto: gost`: 64-byte keys, Streebog addresses, a GOST-signed genesis, and never on a waves directory', async () => {
    const dir = tempDir('weft-dev-');
    const c = await devNodeConfig({ dataDir: dir, now: () => T0, keystore: CHEAP, crypto: 'gost' });
    assert.equal(c.chain.crypto, 'gost');
    const gost = await Protocol.create({ crypto: 'gost', chainId: 'T' });
    const kp = gost.crypto.keyPairFromSeedPhrase(DEV_SEEDS[0]!);
    assert.equal(kp.publicKey.length, 64);
    assert.equal(c.node.ownerAddress.toString(), gost.addresses.fromPublicKey(kp.publicKey).toString());
    assert.equal(c.chain.genesis.genesisPublicKey!.length, 64);
    const again = await devNodeConfig({ dataDir: dir, keystore: CHEAP, crypto: 'gost' });
    assert.deepEqual(again.chain.genesis.signature, c.chain.genesis.signature);
    assert.equal((await devAccountsFile(c)).crypto, 'gost');
    await assert.rejects(devNodeConfig({ dataDir: dir, keystore: CHEAP }), /it is a "gost" chain, not a waves one/);
    const wavesDir = tempDir('weft-dev-');
    await devNodeConfig({ dataDir: wavesDir, now: () => T0, keystore: CHEAP });
    await assert.rejects(devNodeConfig({ dataDir: wavesDir, keystore: CHEAP, crypto: 'gost' }), /it is a "waves" chain, not a gost one/);
  });

  it('refuse a data directory whose stored genesis does not verify', async () => {
    const dir = tempDir('weft-dev-');
    await devNodeConfig({ dataDir: dir, now: () => T0, keystore: CHEAP });
    const file = join(dir, 'dev-genesis.json');
    const doc = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    writeFileSync(file, JSON.stringify({ ...doc, blockTimestamp: String(T0 + 1n) }));
    await assert.rejects(devNodeConfig({ dataDir: dir, keystore: CHEAP }), /does not verify.*remove it to start a new one/);
    writeFileSync(file, JSON.stringify({ ...doc, chainId: 'E' }));
    await assert.rejects(devNodeConfig({ dataDir: dir, keystore: CHEAP }), /chain id "E" is not 'T'/);
  });

  it('are what `start` resolves to without --config', async () => {
    const dir = tempDir('weft-dev-');
    const { config, dev } = await resolveStartConfig({ dataDir: dir, restPort: 16999 }, { env: {}, askSecret: undefined, out: () => undefined });
    assert.equal(dev, true);
    assert.equal(config.api.port, 16999);
    assert.equal(config.node.directory, dir);
    const gost = await resolveStartConfig({ dataDir: tempDir('weft-dev-'), crypto: 'gost' }, { env: {}, askSecret: undefined, out: () => undefined });
    assert.equal(gost.config.chain.crypto, 'gost');
    await assert.rejects(
      resolveStartConfig({ config: 'node.conf', crypto: 'gost' }, { env: {}, askSecret: undefined, out: () => undefined }),
      /--crypto is for the dev chain only/,
    );
  });
});
