/**
 * The node config: a realistic WE node.conf (test/fixtures/node-example.conf, shaped like
 * we-node's configs/node-example.conf), every value syntax WE accepts, and for each invalid
 * or missing value an error naming its full key path.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { decodeBase58, encodeBase58 } from '../../src/crypto/encoding.js';
import { DEFAULT_FEES } from '../../src/chain/settings.js';
import { genesisBlock, signGenesisBlock } from '../../src/protocol/blocks.js';
import { apiKeyHash, blockchainFromConfig, loadNodeConfig, nodeConfigFromHocon, withOverrides, type NodeConfig } from '../../src/node/config.js';
import { ConfigError, parseBoolean, parseDuration, parseInt32, parseLong, parseSize } from '../../src/config/values.js';
import { parseHoconText } from '../../src/config/hocon.js';
import { parseAmount } from '../../src/chain/settings-keys.js';
import { rewriteGenesisLines } from '../../src/cli/cli.js';
import { renderNodeConfig } from '../../src/node/config-render.js';
import { stringifyJson } from '../../src/protocol/json.js';
import { nodePrivatePaths } from '../../src/node/contracts-wiring.js';
import { tempDir } from '../../devkit/tmp.js';

const FIXTURE = new URL('../../../test/fixtures/node-example.conf', import.meta.url);
const fixtureText = readFileSync(FIXTURE, 'utf8');

/** The fixture with lines appended and its genesis signed (block timestamp kept), as `generate genesis` would leave it. */
async function signedFixture(...extra: string[]): Promise<string> {
  const text = [fixtureText, ...extra].join('\n');
  const { protocol, chain, consensusType } = await blockchainFromConfig(await parseHoconText(text), { requireSignedGenesis: false });
  const signer = protocol.crypto.keyPairFromSeedPhrase('weft config fixture genesis signer');
  const block = signGenesisBlock(protocol, chain.genesis, consensusType, signer.privateKey);
  return rewriteGenesisLines(text, {
    blockTimestamp: chain.genesis.blockTimestamp,
    genesisPublicKey: encodeBase58(signer.publicKey),
    signature: encodeBase58(block.signature),
  });
}

let signedText = '';

before(async () => {
  signedText = await signedFixture();
});

/** The signed fixture with HOCON lines appended (later keys override earlier ones). */
async function configWith(...lines: string[]): Promise<NodeConfig> {
  return nodeConfigFromHocon(await parseHoconText([signedText, ...lines].join('\n')));
}

async function expectConfigError(lines: string[], path: string, message: RegExp | string): Promise<void> {
  await assert.rejects(configWith(...lines), (e: unknown) => {
    assert.ok(e instanceof ConfigError, `expected a ConfigError, got ${String(e)}`);
    assert.equal(e.path, path, e.message);
    assert.ok(e.message.startsWith(`${path}: `), e.message);
    if (typeof message === 'string') assert.equal(e.message, `${path}: ${message}`);
    else assert.match(e.message, message);
    return true;
  });
}

describe('a realistic WE node.conf', () => {
  it('reads the unsigned genesis for the generator', async () => {
    const { chain, consensusType } = await blockchainFromConfig(await parseHoconText(fixtureText), { requireSignedGenesis: false });
    assert.equal(consensusType, 'poa');
    assert.equal(chain.genesis.signature?.length, 0);
    assert.equal(chain.genesis.genesisPublicKey?.length, 0);
    await assert.rejects(
      nodeConfigFromHocon(await parseHoconText(fixtureText)),
      /^ConfigError: node\.blockchain\.custom\.genesis\.genesis-public-key-base-58: the genesis block is not signed yet/,
    );
  });

  it('reads every section into typed settings', async () => {
    const c = await configWith();
    assert.equal(c.node.ownerAddress.toString(), '3G9GdoaYnFeYodBTNguVMcGojSnD8S1zoH4');
    assert.equal(c.node.directory, '/node');
    assert.equal(c.node.dataDirectory, '/node/data');
    assert.deepEqual(c.node.wallet, { file: '/node/keystore.dat', password: 'some string as password' });
    assert.equal(c.node.loggingLevel, 'DEBUG');
    assert.equal(c.node.ownerPassword, undefined);

    assert.equal(c.chain.crypto, 'waves');
    assert.equal(c.chain.chainId, 'E');
    assert.deepEqual(c.chain.consensus, {
      type: 'poa',
      roundDurationMs: 17_000,
      syncDurationMs: 3000,
      banDurationBlocks: 100,
      warningsForBan: 3,
      maxBansPercentage: 40,
    });
    assert.deepEqual(c.chain.fees, { enabled: false, base: new Map(), additional: new Map() });
    assert.equal(c.chain.functionality.featureCheckBlocksPeriod, 1500);
    assert.equal(c.chain.functionality.blocksForFeatureActivation, 1000);
    assert.deepEqual(
      [...c.chain.functionality.preActivatedFeatures.keys()].sort((a, b) => a - b),
      [2, 3, 4, 5, 6, 7, 9, 10, 100, 101, 119, 120, 130, 140, 160, 162, 173, 180],
    );
    assert.ok([...c.chain.functionality.preActivatedFeatures.values()].every((h) => h === 0));
    assert.equal(c.chain.maxRollbackDepth, 2000);

    const g = c.chain.genesis;
    assert.equal(g.blockTimestamp, 1573472578702n);
    assert.equal(g.initialBalance, 3_000_000n * 100_000_000n);
    assert.equal(g.initialBaseTarget, 153722867n);
    assert.deepEqual(
      g.transactions.map((t) => [t.recipient.toString(), t.amount]),
      [
        ['3G9GdoaYnFeYodBTNguVMcGojSnD8S1zoH4', 100_000_000_000_000n],
        ['3FurtdtQs6oxBvxH5NnG2d6dBLWydXMnRtR', 150_000_000_000_000n],
        ['3GAk1YoeGCCDRTwbBadMkSM8e5x5UiCdfPE', 50_000_000_000_000n],
      ],
    );
    assert.deepEqual(
      g.networkParticipants.map((p) => [encodeBase58(p.publicKey), p.roles]),
      [
        ['AgRz5PYx75x76VpEs7CoNbjDmqCZJi3SBWaAiLs2YwLB', ['permissioner', 'miner', 'connection_manager', 'contract_developer', 'issuer']],
        ['6EFnfMoMTL33Nx2BpBQFstP54JSohyezwQi1LBekmZJc', ['miner']],
        ['5rpHdVKY2aK3qBoor8865fKpRDLazyTjkagKfuGjH6v6', []],
      ],
    );
    const { Protocol } = await import('../../src/protocol/protocol.js');
    const protocol = await Protocol.create({ crypto: 'waves', chainId: 'E' });
    assert.ok(genesisBlock(protocol, g, c.consensusType).hasValidSignature());

    // node.miner: three values set, the rest WE's defaults.
    assert.deepEqual(c.miner, {
      enabled: true,
      quorum: 1,
      intervalAfterLastBlockThenGenerationIsAllowedMs: 86_400_000,
      noQuorumMiningDelayMs: 5000,
      microBlockIntervalMs: 5000,
      minimalBlockGenerationOffsetMs: 200,
      maxBlockSizeInBytes: 1_048_576,
      maxTransactionsInMicroBlock: 500,
      minMicroBlockAgeMs: 3000,
      pullingBufferSize: 100,
      utxCheckDelayMs: 1000,
    });
    assert.deepEqual(c.utx, {
      memoryLimitBytes: 100 * 1024 * 1024,
      cleanupIntervalMs: 300_000,
      allowTransactionsFromSmartAccounts: true,
      txExpireTimeoutMs: 7_200_000,
      rebroadcastThresholdMs: 300_000,
      rebroadcastIntervalMs: 300_000,
    });
    assert.deepEqual(c.api, {
      enabled: true,
      bindAddress: '0.0.0.0',
      port: 6862,
      cors: true,
      corsAllowedOrigins: [],
      connectionLimits: { maxConnections: 1024, headerTimeoutMs: 10_000, requestTimeoutMs: 60_000, idleTimeoutMs: 30_000 },
      transactionsByAddressLimit: 10_000,
      distributionAddressLimit: 1000,
      grpc: { enabled: true, blockchainEventsMaxConnections: 5, privacyEventsMaxConnections: 5 },
      watcher: false,
      pkiMode: 'OFF',
      auth: {
        type: 'api-key',
        apiKeyHash: decodeBase58('AWUhyXUX6Jam852Gy1DibK7wYNXSMbhtDsKzribM6iLR'),
        privacyApiKeyHash: decodeBase58('86GJVSoboK12zXHYJFzoucAKaFS1yyXA2NztWSt9tGiX'),
        confidentialContractsApiKeyHash: decodeBase58('H6nsiifwYKYEx6YzYD7woP1XCn72RVvx6tC1zjjLXqsu'),
      },
    });
    assert.equal(c.network.port, 6864);
    assert.equal(c.network.bindAddress, '0.0.0.0');
    assert.deepEqual(c.network.knownPeers, [
      { host: 'node-1.example.com', port: 6864 },
      { host: '10.0.0.3', port: 6864 },
    ]);
    assert.equal(c.network.nodeName, 'node-0');
    assert.deepEqual(c.network.declaredAddress, { host: '0.0.0.0', port: 6864 });
    assert.equal(c.network.mode, 'default');
    assert.deepEqual(c.features, { autoSupportImplementedFeatures: true, autoShutdownOnUnsupportedFeature: true, supported: [] });
  });

  it('loads from a file, resolving includes next to it and the owner password from the environment', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'node.conf'), `${signedText}\ninclude "api.conf"\n`);
    writeFileSync(join(dir, 'api.conf'), 'node.api.rest { port = 7000, bind-address = "127.0.0.1" }\n');
    const c = await loadNodeConfig(join(dir, 'node.conf'), { env: { WE_NODE_OWNER_PASSWORD: 'secret' } });
    assert.equal(c.source, join(dir, 'node.conf'));
    assert.equal(c.api.port, 7000);
    assert.equal(c.api.bindAddress, '127.0.0.1');
    assert.equal(c.node.ownerPassword, 'secret');
    const empty = await loadNodeConfig(join(dir, 'node.conf'), { env: { WE_NODE_OWNER_PASSWORD_EMPTY: 'true', WE_NODE_OWNER_PASSWORD: 'x' } });
    assert.equal(empty.node.ownerPassword, '');
    await assert.rejects(loadNodeConfig(join(dir, 'nope.conf')), /Configuration file '.*nope\.conf' does not exist/);
  });

  it('defaults the directories from ${user.home} as application.conf does, and substitutes them', async () => {
    const c = await configWith('node.directory = null', 'node.data-directory = null', 'node.wallet.file = null', 'node.x = ${user.home}"/elsewhere"');
    assert.equal(c.node.directory, join(homedir(), 'node'));
    assert.equal(c.node.dataDirectory, join(homedir(), 'node', 'data'));
    assert.equal(c.node.wallet.file, join(homedir(), 'node', 'wallet', 'wallet.dat'));
    const moved = await configWith('node.directory = "/srv/we"', 'node.data-directory = null');
    assert.equal(moved.node.dataDirectory, '/srv/we/data');
    const sub = await configWith('node.directory = ${user.home}"/we"');
    assert.equal(sub.node.directory, join(homedir(), 'we'));
  });

  it("merges fee overrides into WE's default table", async () => {
    const c = await configWith('node.blockchain.fees { enabled = yes, base.transfer = "0.5 WEST", base.issue = 7, additional.data = 0.02 WEST }');
    assert.equal(c.chain.fees.enabled, true);
    assert.equal(c.chain.fees.base.get(4), 50_000_000n);
    assert.equal(c.chain.fees.base.get(3), 7n);
    assert.equal(c.chain.fees.base.get(5), DEFAULT_FEES.base.get(5));
    assert.equal(c.chain.fees.base.size, DEFAULT_FEES.base.size);
    assert.equal(c.chain.fees.additional.get(12), 2_000_000n);
    assert.equal(c.chain.fees.additional.get(11), 1_000_000n);
  });

  it('reads PoS, the watcher mode, an OAuth2 key and command-line overrides', async () => {
    // The consensus type is part of the genesis block's signature.
    await assert.rejects(configWith('node.blockchain.consensus { type = PoS }'), /genesis\.signature: Passed genesis signature is not valid/);
    const pos = await nodeConfigFromHocon(await parseHoconText(await signedFixture('node.blockchain.consensus { type = PoS }')));
    assert.deepEqual(pos.chain.consensus, { type: 'pos', averageBlockDelayMs: 60_000, initialBaseTarget: 153722867n });
    const watcher = await configWith('node.network.mode = WATCHER');
    assert.equal(watcher.api.watcher, true);

    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const der = publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    const oauth = await configWith(`node.api.auth { type = oauth2, public-key = "${der}" }`);
    assert.equal(oauth.api.auth.type, 'oauth2');
    assert.equal(oauth.api.auth.type === 'oauth2' && oauth.api.auth.publicKeyPem, publicKey.export({ format: 'pem', type: 'spki' }).toString());

    const o = withOverrides(await configWith(), { dataDir: '/tmp/x', restPort: 1234, p2pPort: 5678 });
    assert.equal(o.node.dataDirectory, '/tmp/x');
    assert.equal(o.api.port, 1234);
    assert.equal(o.network.port, 5678);
  });
});

describe('value syntaxes', () => {
  it('durations: HOCON units, Scala words, a bare number is milliseconds', () => {
    const cases: Array<[unknown, number]> = [
      ['17s', 17_000],
      ['3 seconds', 3000],
      ['1m', 60_000],
      ['2 minute', 120_000],
      ['500ms', 500],
      ['500 millis', 500],
      ['1d', 86_400_000],
      ['2h', 7_200_000],
      ['1.5s', 1500],
      ['10000us', 10],
      ['250', 250],
      [1000, 1000],
      ['0s', 0],
    ];
    for (const [v, ms] of cases) assert.equal(parseDuration(v, 'k'), ms, String(v));
    for (const bad of ['abc', '5 parsecs', '-1s', '', true, [], {}]) {
      assert.throws(
        () => parseDuration(bad, 'a.b'),
        (e: unknown) => e instanceof ConfigError && e.message.startsWith('a.b: expected a'),
      );
    }
  });

  it('sizes: binary and decimal units, "3m" is 3 MiB, a bare number is bytes', () => {
    const cases: Array<[unknown, number]> = [
      ['100MiB', 100 * 2 ** 20],
      ['3m', 3 * 2 ** 20],
      ['50MB', 50_000_000],
      ['1536 KiB', 1536 * 1024],
      ['1k', 1024],
      ['2kB', 2000],
      ['1G', 2 ** 30],
      [4096, 4096],
      ['10', 10],
    ];
    for (const [v, bytes] of cases) assert.equal(parseSize(v, 'k'), bytes, String(v));
    for (const bad of ['lots', '1 parsec', '-1MiB', false]) assert.throws(() => parseSize(bad, 'k'), /^ConfigError: k: expected a/);
  });

  it('amounts: units or "<decimal> WEST", at most 8 decimals and 10 billion WEST', () => {
    assert.equal(parseAmount(1_000, 'k'), 1000n);
    assert.equal(parseAmount('1000', 'k'), 1000n);
    assert.equal(parseAmount('0.01 WEST', 'k'), 1_000_000n);
    assert.equal(parseAmount('16250000 WEST', 'k'), 1_625_000_000_000_000n);
    assert.equal(parseAmount('0.00000001 WEST', 'k'), 1n);
    assert.equal(parseAmount('1.10000000000 WEST', 'k'), 110_000_000n);
    assert.equal(parseAmount('100000000000000000', 'k'), 100_000_000_000_000_000n);
    assert.equal(parseAmount('10000000000 WEST', 'k'), 10n ** 18n);
    assert.throws(() => parseAmount('0.000000001 WEST', 'a.fee'), /^ConfigError: a\.fee: Only 8 decimal units are allowed in WEST$/);
    assert.throws(() => parseAmount('10000000001 WEST', 'a.fee'), /^ConfigError: a\.fee: WEST amounts greater than 10 billion are not allowed$/);
    assert.throws(() => parseAmount('1 WAVES', 'a.fee'), /^ConfigError: a\.fee: Failed to parse '1 WAVES' as WEST Amount$/);
    assert.throws(() => parseAmount(-5, 'a.fee'), /^ConfigError: a\.fee: /);
  });

  it('booleans: true/false/yes/no/on/off', () => {
    for (const v of [true, 'true', 'yes', 'on', 'YES']) assert.equal(parseBoolean(v, 'k'), true);
    for (const v of [false, 'false', 'no', 'off', 'Off']) assert.equal(parseBoolean(v, 'k'), false);
    for (const v of ['maybe', 1, 0, '']) assert.throws(() => parseBoolean(v, 'x.y'), /^ConfigError: x\.y: expected a boolean/);
  });

  it('integers: numbers or numeric strings, 32-bit with ranges; longs take strings beyond 2^53', () => {
    assert.equal(parseInt32(5, 'k'), 5);
    assert.equal(parseInt32('42', 'k'), 42);
    assert.throws(() => parseInt32(1.5, 'k'), /^ConfigError: k: expected an integer, got 1\.5$/);
    assert.throws(() => parseInt32(2 ** 31, 'k'), /expected an integer/);
    assert.throws(() => parseInt32(101, 'k', { min: 0, max: 100 }), /^ConfigError: k: expected an integer from 0 to 100, got 101$/);
    assert.equal(parseLong('9223372036854775807', 'k'), 2n ** 63n - 1n);
    assert.throws(() => parseLong('9223372036854775808', 'k'), /expected a 64-bit integer/);
  });

  it('HOCON: unquoted values, concatenation, env substitution', async () => {
    process.env['WEFT_CONFIG_TEST_PORT'] = '7777';
    const raw = await parseHoconText('a { b = 17s, c = 1 WEST, d = yes, e = ${WEFT_CONFIG_TEST_PORT}, f = ${?WEFT_CONFIG_TEST_UNSET} }');
    assert.deepEqual(raw, { a: { b: '17s', c: '1 WEST', d: 'yes', e: '7777' } });
  });
});

describe('invalid and missing values name their path', () => {
  const cases: Array<[string[], string, RegExp | string]> = [
    [['node.blockchain.consensus.round-duration = "abc"'], 'node.blockchain.consensus.round-duration', 'expected a duration, got "abc"'],
    [['node.blockchain.consensus.round-duration = null'], 'node.blockchain.consensus.round-duration', 'required, but not set'],
    [['node.blockchain.consensus.sync-duration = -3s'], 'node.blockchain.consensus.sync-duration', /expected a non-negative duration/],
    [['node.blockchain.consensus.max-bans-percentage = 101'], 'node.blockchain.consensus.max-bans-percentage', 'expected an integer from 0 to 100, got 101'],
    [['node.blockchain.consensus.type = raft'], 'node.blockchain.consensus.type', 'expected one of poa, pos, cft, got "raft"'],
    [['node.blockchain.consensus.type = cft'], 'node.blockchain.consensus.max-validators', 'required, but not set'],
    [
      ['node.blockchain.consensus { type = cft, max-validators = 0, finalization-timeout = 2s }'],
      'node.blockchain.consensus.max-validators',
      'expected an integer ≥ 1, got 0',
    ],
    [['node.blockchain.consensus { type = cft, max-validators = 3 }'], 'node.blockchain.consensus.finalization-timeout', 'required, but not set'],
    [
      ['node.blockchain.consensus { type = cft, max-validators = 3, finalization-timeout = 17s }'],
      'node.blockchain.consensus.finalization-timeout',
      'The finalization-timeout must be less than the round-duration (17s ≥ 17s)',
    ],
    [
      ['node.blockchain.consensus { type = cft, max-validators = 3, finalization-timeout = 2s, full-vote-set-timeout = 5001ms }'],
      'node.blockchain.consensus.full-vote-set-timeout',
      'The full-vote-set-timeout should not exceed the finalization-timeout + sync-duration (5001ms > 2s + 3s)',
    ],
    [['node.blockchain.type = MAINNET'], 'node.blockchain.type', /only CUSTOM blockchains are supported/],
    [['node.crypto.type = RSA'], 'node.crypto.type', 'expected one of WAVES, GOST, got "RSA"'],
    [['node.blockchain.custom.address-scheme-character = "EE"'], 'node.blockchain.custom.address-scheme-character', 'expected one ASCII character, got "EE"'],
    [
      ['node.blockchain.custom.functionality.feature-check-blocks-period = 1'],
      'node.blockchain.custom.functionality.feature-check-blocks-period',
      'must be greater than 1, got 1',
    ],
    [
      ['node.blockchain.custom.functionality.blocks-for-feature-activation = 2000'],
      'node.blockchain.custom.functionality.blocks-for-feature-activation',
      'must be in range 1 to 1500, got 2000',
    ],
    [
      ['node.blockchain.custom.functionality.pre-activated-features = { 2 = soon }'],
      'node.blockchain.custom.functionality.pre-activated-features.2',
      'expected an integer, got "soon"',
    ],
    [
      ['node.blockchain.fees.base.transfr = 1'],
      'node.blockchain.fees.base.transfr',
      /^node\.blockchain\.fees\.base\.transfr: unknown transaction type name 'transfr'/,
    ],
    [['node.blockchain.fees.base.transfer = "0.1 WAVES"'], 'node.blockchain.fees.base.transfer', "Failed to parse '0.1 WAVES' as WEST Amount"],
    [['node.blockchain.custom.genesis.initial-balance = "lots"'], 'node.blockchain.custom.genesis.initial-balance', "Failed to parse 'lots' as WEST Amount"],
    [
      ['node.blockchain.custom.genesis.block-timestamp = 1000'],
      'node.blockchain.custom.genesis.block-timestamp',
      "Genesis block timestamp '1000' should be no less than '1559260800000'",
    ],
    [['node.blockchain.custom.genesis.average-block-delay = soon'], 'node.blockchain.custom.genesis.average-block-delay', 'expected a duration, got "soon"'],
    [
      [
        'node.blockchain.custom.genesis.transactions = [{ recipient: "3G9GdoaYnFeYodBTNguVMcGojSnD8S1zoH4", amount: 1 }, { recipient: "3G9GdoaYnFeYodBTNguVMcGojSnD8S1zoH5", amount: 1 }]',
      ],
      'node.blockchain.custom.genesis.transactions(1).recipient',
      /invalid address/,
    ],
    [
      ['node.blockchain.custom.genesis.network-participants = [{ public-key: "AgRz5PYx75x76VpEs7CoNbjDmqCZJi3SBWaAiLs2YwLB", roles: [king] }]'],
      'node.blockchain.custom.genesis.network-participants(0).roles',
      /unknown role name 'king/,
    ],
    [['node.blockchain.custom.genesis.sender-role-enabled = perhaps'], 'node.blockchain.custom.genesis.sender-role-enabled', /expected a boolean/],
    [
      ['node.blockchain.custom.genesis.sender-role-enabled = yes'],
      'node.blockchain.custom.genesis.sender-role-enabled',
      'Sender role is only supported in genesis version 2',
    ],
    [['node.blockchain.custom.genesis.signature = "abc"'], 'node.blockchain.custom.genesis.signature', "Incorrect signature length: '3', expected '64'"],
    [['node.blockchain.custom.genesis.block-timestamp = 1573472578703'], 'node.blockchain.custom.genesis.signature', 'Passed genesis signature is not valid'],
    [['node.owner-address = ""'], 'node.owner-address', /^node\.owner-address: required/],
    [['node.owner-address = "3Mv61qe6egMSjRDZiiuvJDnf3Q1qW9tTZDB"'], 'node.owner-address', /invalid address: Data from other network/],
    [['node.miner.enable = maybe'], 'node.miner.enable', 'expected a boolean (true/false, yes/no, on/off), got "maybe"'],
    [['node.miner.max-transactions-in-micro-block = 6001'], 'node.miner.max-transactions-in-micro-block', 'expected an integer from 1 to 6000, got 6001'],
    [['node.miner.utx-check-delay = 50ms'], 'node.miner.utx-check-delay', 'must be ≥ 100ms, got 50ms'],
    [['node.utx.memory-limit = lots'], 'node.utx.memory-limit', 'expected a memory size (e.g. "100MiB"), got "lots"'],
    [['node.utx.tx-expire-timeout = 1m'], 'node.utx.tx-expire-timeout', 'should be between 5 minutes and 96 hours, got 60000ms'],
    [['node.api.rest.port = 70000'], 'node.api.rest.port', 'expected an integer from 0 to 65535, got 70000'],
    [['node.api.auth.api-key-hash = ""'], 'node.api.auth.api-key-hash', "'node.api.auth.api-key-hash' setting is empty"],
    [['node.api.auth.privacy-api-key-hash = "0OIl"'], 'node.api.auth.privacy-api-key-hash', "Failed to decode privacy-api-key-hash: '0OIl'"],
    [['node.api.auth { type = oauth2, public-key = "bm90IGEga2V5" }'], 'node.api.auth.public-key', /Failed to decode authorization public key/],
    [['node.api.auth.type = tls-whitelist'], 'node.api.auth.type', /'tls-whitelist' is not supported/],
    [['node.network.known-peers = ["nohost"]'], 'node.network.known-peers(0)', 'expected "host:port", got "nohost"'],
    [['node.network.known-peers = "a:1"'], 'node.network.known-peers', 'expected a list, got "a:1"'],
    [['node.network.handshake-timeout = 0s'], 'node.network.handshake-timeout', 'must be > 0'],
    [['node.network.tls = true'], 'node.network.tls', /reads TLS keys from PEM files/],
    [['node.network.tls { cert-file = "c.pem" }'], 'node.network.tls.key-file', /required/],
    [['node.logging-level = LOUD'], 'node.logging-level', 'expected one of TRACE, DEBUG, INFO, WARN, ERROR, got "LOUD"'],
    [['node.blockchain.consensus = 5'], 'node.blockchain.consensus', 'expected an object, got 5'],
  ];
  for (const [lines, path, message] of cases) {
    it(`${lines.join('; ')}`, async () => {
      await expectConfigError(lines, path, message);
    });
  }

  it('an EC key is not an OAuth2 key', async () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const der = publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    await expectConfigError([`node.api.auth { type = oauth2, public-key = "${der}" }`], 'node.api.auth.public-key', 'expected an RSA public key, got a ec key');
  });

  it('refuses integer literals beyond 2^53, which the parser cannot keep, and takes them as strings', async () => {
    await expectConfigError(
      ['node.blockchain.custom.genesis.initial-balance = 100000000000000001'],
      'node.blockchain.custom.genesis.initial-balance',
      /beyond 2\^53 .*cannot be read without losing digits; write it as a string .* or, for an amount, as "<n> WEST"/,
    );
    await expectConfigError(
      ['node.blockchain.custom.genesis.transactions = [{ recipient: "3G9GdoaYnFeYodBTNguVMcGojSnD8S1zoH4", amount: 9007199254740993 }]'],
      'node.blockchain.custom.genesis.transactions(0).amount',
      /beyond 2\^53/,
    );
    await expectConfigError(['node.network.nonce = -9007199254740993'], 'node.network.nonce', /beyond 2\^53/);
    // Exactly representable integers up to 2^53 − 1 are fine, and strings keep every digit.
    const c = await configWith('node.network.nonce = 9007199254740991');
    assert.equal(c.network.nonce, 9007199254740991n);
    const s = await configWith('node.network.nonce = "9223372036854775807"');
    assert.equal(s.network.nonce, 2n ** 63n - 1n);
    const { chain } = await blockchainFromConfig(
      await parseHoconText(`${fixtureText}\nnode.blockchain.custom.genesis.initial-balance = "100000000000000001"`),
      { requireSignedGenesis: false },
    );
    assert.equal(chain.genesis.initialBalance, 100000000000000001n);
  });

  it('node.network.tls: off as WE writes it, or PEM files (off again with enable = false)', async () => {
    assert.equal((await configWith()).network.tls, undefined);
    assert.equal((await configWith('node.network.tls = false')).network.tls, undefined);
    assert.deepEqual((await configWith('node.network.tls { key-file = "k.pem", cert-file = "c.pem", ca-file = "ca.pem" }')).network.tls, {
      keyFile: 'k.pem',
      certFile: 'c.pem',
      caFile: 'ca.pem',
    });
    assert.deepEqual((await configWith('node.network.tls { key-file = "k.pem", cert-file = "c.pem" }')).network.tls, {
      keyFile: 'k.pem',
      certFile: 'c.pem',
      caFile: undefined,
    });
    assert.equal((await configWith('node.network.tls { enable = false, key-file = "k.pem", cert-file = "c.pem" }')).network.tls, undefined);
  });

  it("node.privacy: WE's keys and defaults, the embedded store unless storage.vendor names another", async () => {
    const plain = await configWith();
    assert.deepEqual(plain.privacy?.storage, { vendor: 'embedded', directory: undefined });
    assert.equal(plain.privacy?.service.requestBufferSize, 10 * 1024 * 1024);
    assert.equal(plain.privacy?.service.metaDataAccumulationTimeoutMs, 3000);
    assert.equal(plain.privacy?.synchronizer.maxAttemptCount, 24);
    assert.equal(plain.privacy?.synchronizer.initRetryDelayMs, 5000);
    assert.equal(plain.privacy?.replier.streamChunkSize, 1024 * 1024);
    assert.equal(plain.privacy?.inventoryHandler.maxCacheSize, 100_000);
    const tuned = await configWith(
      'node.privacy { service { request-buffer-size = 1MiB, meta-data-accumulation-timeout = 10s }, synchronizer.max-attempt-count = 3, storage { vendor = EMBEDDED, directory = "/tmp/p" } }',
    );
    assert.equal(tuned.privacy?.service.requestBufferSize, 1024 * 1024);
    assert.equal(tuned.privacy?.service.metaDataAccumulationTimeoutMs, 10_000);
    assert.equal(tuned.privacy?.synchronizer.maxAttemptCount, 3);
    assert.deepEqual(tuned.privacy?.storage, { vendor: 'embedded', directory: '/tmp/p' });
    assert.deepEqual((await configWith('node.privacy.storage.vendor = none')).privacy?.storage, { vendor: 'none' });
    const pg = await configWith(
      'node.privacy.storage { vendor = postgres, schema = "privacy", migration-dir = "db/migration", profile = "slick.jdbc.PostgresProfile$", upload-chunk-size = 2MiB',
      '  jdbc-config { url = "jdbc:postgresql://db:5432/privacy", driver = "org.postgresql.Driver", user = "user", password = "secret", connectionPool = HikariCP, connectionTimeout = 5000, connectionTestQuery = "SELECT 1", queueSize = 10000, numThreads = 20 } }',
    );
    assert.deepEqual(pg.privacy?.storage, {
      vendor: 'postgres',
      url: 'jdbc:postgresql://db:5432/privacy',
      user: 'user',
      password: 'secret',
      schema: 'privacy',
      connectionTimeoutMs: 5000,
      poolSize: 20,
      uploadChunkSize: 2 * 1024 * 1024,
    });
    const s3 = await configWith(
      'node.privacy.storage { vendor = s3, url = "http://localhost:9000/", bucket = "privacy", region = "aws-global", access-key-id = "minio", secret-access-key = "minio123", path-style-access-enabled = true, connection-timeout = 30s, connection-acquisition-timeout = 10s, max-concurrency = 200, read-timeout = 0s }',
    );
    assert.deepEqual(s3.privacy?.storage, {
      vendor: 's3',
      url: 'http://localhost:9000/',
      bucket: 'privacy',
      region: 'aws-global',
      accessKeyId: 'minio',
      secretAccessKey: 'minio123',
      pathStyleAccessEnabled: true,
      connectionTimeoutMs: 30_000,
      connectionAcquisitionTimeoutMs: 10_000,
      maxConcurrency: 200,
      readTimeoutMs: 0,
      uploadChunkSize: 5 * 1024 * 1024,
    });
    await expectConfigError(
      ['node.privacy.storage.vendor = postgre'],
      'node.privacy.storage.vendor',
      'expected one of embedded, postgres, s3, none, got "postgre"',
    );
    await expectConfigError(
      ['node.privacy.storage { vendor = s3, url = "http://x/", region = r, access-key-id = a, secret-access-key = s }'],
      'node.privacy.storage.bucket',
      'required, but not set',
    );
    await expectConfigError(
      ['node.privacy.storage { vendor = s3, url = "http://x/", bucket = b, region = r, access-key-id = a, secret-access-key = s, upload-chunk-size = 1MiB }'],
      'node.privacy.storage.upload-chunk-size',
      /must be from 5MiB to 5GiB/,
    );
    await expectConfigError(['node.privacy.storage { vendor = postgres, schema = x }'], 'node.privacy.storage.jdbc-config.url', 'required, but not set');
    await expectConfigError(
      ['node.privacy.replier.stream-max-peers-fullness-percentage = 101'],
      'node.privacy.replier.stream-max-peers-fullness-percentage',
      'expected an integer from 0 to 100, got 101',
    );
  });

  it('reports HOCON syntax errors with the file', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.conf'), 'node { x = [\n');
    await assert.rejects(loadNodeConfig(join(dir, 'bad.conf')), /bad\.conf: cannot parse HOCON/);
  });

  it('computes WE API-key hashes', async () => {
    const { createCryptoSuite } = await import('../../src/crypto/create-suite.js');
    const waves = await createCryptoSuite('waves');
    assert.equal(apiKeyHash(waves, 'ridethewaves!'), 'H6nsiifwYKYEx6YzYD7woP1XCn72RVvx6tC1zjjLXqsu');
  });
});

describe('node.anchoring', () => {
  /** An address of the target network 'F' (WE's spec example scheme). */
  let targetAddress = '';
  before(async () => {
    const { Protocol } = await import('../../src/protocol/protocol.js');
    const p = await Protocol.create({ crypto: 'waves', chainId: 'F' });
    targetAddress = p.addresses.fromPublicKey(p.crypto.keyPairFromSeedPhrase('anchoring target').publicKey).toString();
  });

  /** WE's AnchoringSettingsSpecification api-key example, with `extra` HOCON lines inside `node.anchoring`. */
  const anchoring = (...extra: string[]): string =>
    `node.anchoring {
      enable = yes
      height-condition { range = 200, above = 6 }
      threshold = 100
      targetnet {
        auth { type = "api-key" }
        scheme-byte = "F"
        node-address = "http://node-1:6862/some/prefix"
        node-recipient-address = "${targetAddress}"
        private-key-password = "key pass"
        wallet { file = "targetnet-wallet.dat", password = "small" }
        fee = 10000
      }
      sidechain-fee = 666
      ${extra.join('\n')}
    }`;

  it('off unless enable = yes (the default)', async () => {
    assert.equal((await configWith()).anchoring, undefined);
    assert.equal((await configWith('node.anchoring { enable = no, threshold = 0 }')).anchoring, undefined);
  });

  it("reads WE's api-key example, with WE's defaults for the mining checks and Weft's pacing", async () => {
    const a = (await configWith(anchoring())).anchoring!;
    assert.deepEqual(a, {
      heightRange: 200,
      heightAbove: 6,
      threshold: 100,
      targetnet: {
        auth: { type: 'api-key' },
        schemeByte: 'F',
        nodeAddress: 'http://node-1:6862/some/prefix',
        nodeRecipientAddress: targetAddress,
        privateKeyPassword: 'key pass',
        wallet: { file: join(process.cwd(), 'targetnet-wallet.dat'), password: 'small' },
        fee: 10000n,
      },
      sidechainFee: 666n,
      txMiningCheckDelayMs: 5000,
      txMiningCheckCount: 20,
      retryDelayMs: 5000,
      heightPollIntervalMs: 30_000,
    });
    const paced = (await configWith(anchoring('tx-mining-check-delay = 2s', 'tx-mining-check-count = 3', 'retry-delay = 250ms', 'height-poll-interval = 1s')))
      .anchoring!;
    assert.deepEqual([paced.txMiningCheckDelayMs, paced.txMiningCheckCount, paced.retryDelayMs, paced.heightPollIntervalMs], [2000, 3, 250, 1000]);
  });

  it("reads WE's oauth2 block", async () => {
    const a = (
      await configWith(
        anchoring(),
        'node.anchoring.targetnet.auth { type = oauth2, authorization-token = "static", authorization-service-url = "http://localhost:3000", token-update-interval = "7 minutes" }',
      )
    ).anchoring!;
    assert.deepEqual(a.targetnet.auth, {
      type: 'oauth2',
      authorizationToken: 'static',
      authorizationServiceUrl: 'http://localhost:3000',
      tokenUpdateIntervalMs: 420_000,
    });
  });

  it('names the key of a missing or unusable value', async () => {
    await expectConfigError(
      [anchoring(), 'node.anchoring.targetnet.fee = null', 'node.anchoring.targetnet-fee = 500000'],
      'node.anchoring.targetnet.fee',
      /WE's sample key node\.anchoring\.targetnet-fee is not read: write targetnet\.fee/,
    );
    await expectConfigError([anchoring(), 'node.anchoring.sidechain-fee = null'], 'node.anchoring.sidechain-fee', 'required, but not set');
    await expectConfigError(
      [anchoring(), 'node.anchoring.height-condition.range = 0'],
      'node.anchoring.height-condition.range',
      'expected an integer ≥ 1, got 0',
    );
    await expectConfigError([anchoring(), 'node.anchoring.threshold = 0'], 'node.anchoring.threshold', 'expected an integer ≥ 1, got 0');
    await expectConfigError(
      [anchoring(), 'node.anchoring.targetnet.auth.type = "tls"'],
      'node.anchoring.targetnet.auth.type',
      /expected one of api-key, oauth2/,
    );
    await expectConfigError(
      [anchoring(), 'node.anchoring.targetnet.auth.type = oauth2'],
      'node.anchoring.targetnet.auth.token-update-interval',
      'required, but not set',
    );
    await expectConfigError(
      [anchoring(), 'node.anchoring.targetnet.node-address = "node-1:6862"'],
      'node.anchoring.targetnet.node-address',
      /expected an http or https URL/,
    );
    await expectConfigError(
      [anchoring(), 'node.anchoring.targetnet.scheme-byte = "T"'],
      'node.anchoring.targetnet.node-recipient-address',
      /not an address of the targetnet 'T'/,
    );
    await expectConfigError([anchoring(), 'node.anchoring.targetnet.wallet.file = null'], 'node.anchoring.targetnet.wallet.file', 'required, but not set');
    await expectConfigError([anchoring(), 'node.anchoring.targetnet.fee = 0'], 'node.anchoring.targetnet.fee', 'must be > 0, got 0');
  });
});

describe('node.metrics', () => {
  it('on by default at /metrics, open; each key read', async () => {
    assert.deepEqual((await configWith()).metrics, { enabled: true, path: '/metrics', protected: false });
    assert.deepEqual((await configWith('node.metrics { enable = no }')).metrics, { enabled: false, path: '/metrics', protected: false });
    assert.deepEqual((await configWith('node.metrics { path = "/prometheus/weft", protected = yes }')).metrics, {
      enabled: true,
      path: '/prometheus/weft',
      protected: true,
    });
  });

  it('refuses a path that is not plain segments, or one the REST API serves under', async () => {
    await expectConfigError(['node.metrics.path = "metrics"'], 'node.metrics.path', /expected a URL path of plain segments such as "\/metrics", got "metrics"/);
    await expectConfigError(['node.metrics.path = "/metrics/"'], 'node.metrics.path', /expected a URL path of plain segments/);
    await expectConfigError(['node.metrics.path = "/a/{b}"'], 'node.metrics.path', /expected a URL path of plain segments/);
    await expectConfigError(
      ['node.metrics.path = "/node/metrics"'],
      'node.metrics.path',
      '"/node/metrics" lies under /node, which the REST API serves; choose another path such as "/metrics"',
    );
    await expectConfigError(['node.metrics.path = "/explorer/metrics"'], 'node.metrics.path', /lies under \/explorer/);
    await expectConfigError(['node.metrics.protected = sometimes'], 'node.metrics.protected', /expected a boolean/);
  });
});

describe('node.crypto.verifier-threads', () => {
  it('absent: the node’s default (no setting); a count from 0 (the event loop verifies) up; refuses a negative, a fraction or a word', async () => {
    assert.equal((await configWith()).node.verifierThreads, undefined);
    assert.equal((await configWith('node.crypto.verifier-threads = 0')).node.verifierThreads, 0);
    assert.equal((await configWith('node.crypto { verifier-threads = 3 }')).node.verifierThreads, 3);
    await expectConfigError(['node.crypto.verifier-threads = -1'], 'node.crypto.verifier-threads', /0/);
    await expectConfigError(['node.crypto.verifier-threads = 1.5'], 'node.crypto.verifier-threads', /integer/);
    await expectConfigError(['node.crypto.verifier-threads = many'], 'node.crypto.verifier-threads', /integer/);
    await expectConfigError(['node.crypto.verifier-threads = 100000'], 'node.crypto.verifier-threads', /256/);
  });
});

describe('REST connection limits and CORS origins (node.api.rest)', () => {
  it('reads the cap, the timeouts and the listed origins; refuses a non-origin and a zero timeout', async () => {
    const c = await configWith(
      'node.api.rest { max-connections = 200, header-timeout = 5s, request-timeout = 20s, idle-timeout = 15s, cors-allowed-origins = ["https://wallet.example", "http://localhost:3000"] }',
    );
    assert.deepEqual(c.api.connectionLimits, { maxConnections: 200, headerTimeoutMs: 5000, requestTimeoutMs: 20_000, idleTimeoutMs: 15_000 });
    assert.deepEqual(c.api.corsAllowedOrigins, ['https://wallet.example', 'http://localhost:3000']);
    await expectConfigError(
      ['node.api.rest.cors-allowed-origins = ["https://wallet.example/app"]'],
      'node.api.rest.cors-allowed-origins(0)',
      /expected an origin/,
    );
    await expectConfigError(['node.api.rest.idle-timeout = 0s'], 'node.api.rest.idle-timeout', 'must be positive');
    await expectConfigError(['node.api.rest.max-connections = 0'], 'node.api.rest.max-connections', /1/);
  });
});

describe('what of a node its contract processes do not see (nodePrivatePaths)', () => {
  it('the config file, the home, data and confidential folders, the keystore, the privacy storage, the P2P TLS key', async () => {
    const dir = tempDir('weft-private-paths-');
    const file = join(dir, 'node.conf');
    writeFileSync(
      file,
      [
        signedText,
        'node.wallet.file = "/secrets/keystore.json"',
        'node.confidential-contracts.data-directory = "/confidential"',
        'node.privacy.storage { vendor = embedded, directory = "/privacy" }',
        'node.network.tls { enable = true, key-file = "/tls/node.key", cert-file = "/tls/node.crt" }',
      ].join('\n'),
    );
    const paths = nodePrivatePaths(await loadNodeConfig(file));
    for (const path of [file, '/node', '/node/data', '/secrets/keystore.json', '/confidential', '/privacy', '/tls/node.key'])
      assert.ok(paths.includes(path), `${path} in ${paths.join(', ')}`);
    assert.ok(!paths.includes('/tls/node.crt'), 'a certificate is public');
  });
});

describe('CFT consensus settings (WE’s CftSettings)', () => {
  const CFT = 'node.blockchain.consensus { type = cft, max-validators = 3, finalization-timeout = 2s, full-vote-set-timeout = 5s }';

  it('reads PoA’s keys and the voting keys, with a CFT genesis', async () => {
    const root = await parseHoconText(await signedFixture(CFT));
    const c = await nodeConfigFromHocon(root);
    assert.deepEqual(c.chain.consensus, {
      type: 'cft',
      roundDurationMs: 17_000,
      syncDurationMs: 3_000,
      banDurationBlocks: 100,
      warningsForBan: 3,
      maxBansPercentage: 40,
      maxValidators: 3,
      fullVoteSetTimeoutMs: 5_000,
      finalizationTimeoutMs: 2_000,
    });
    // The genesis carries CFT consensus data: no votes, no skipped rounds.
    const { protocol } = await blockchainFromConfig(root, { requireSignedGenesis: true });
    const genesis = genesisBlock(protocol, c.chain.genesis, 'cft');
    assert.deepEqual(genesis.consensus, { type: 'cft', votes: [], overallSkippedRounds: 0n });
    assert.equal(genesis.hasValidSignature(), true);
    // full-vote-set-timeout is optional; WE leaves max-bans-percentage unchecked under CFT.
    const bare = await nodeConfigFromHocon(
      await parseHoconText(
        await signedFixture('node.blockchain.consensus { type = cft, max-validators = 1, finalization-timeout = 0s, max-bans-percentage = 150 }'),
      ),
    );
    assert.equal(bare.chain.consensus.type === 'cft' && bare.chain.consensus.fullVoteSetTimeoutMs, undefined);
    assert.equal(bare.chain.consensus.type === 'cft' && bare.chain.consensus.maxBansPercentage, 150);
  });

  it('renders in WE’s layout and reads back the same', async () => {
    const text = await signedFixture(CFT);
    const c = await nodeConfigFromHocon(await parseHoconText(text));
    const rendered = renderNodeConfig(c) as { node: { blockchain: { consensus: unknown } } };
    assert.deepEqual(rendered.node.blockchain.consensus, {
      type: 'cft',
      'round-duration': '17s',
      'sync-duration': '3s',
      'ban-duration-blocks': 100,
      'warnings-for-ban': 3,
      'max-bans-percentage': 40,
      'max-validators': 3,
      'full-vote-set-timeout': '5s',
      'finalization-timeout': '2s',
    });
    const back = await nodeConfigFromHocon(
      await parseHoconText([text, `node.blockchain.consensus = ${stringifyJson(rendered.node.blockchain.consensus)}`].join('\n')),
    );
    assert.deepEqual(back.chain.consensus, c.chain.consensus);
  });
});
