/**
 * First fixture: WE's Mainnet genesis block, rebuilt from the facts of we-node's
 * mainnet.conf (test/fixtures/mainnet-genesis.json) and checked against the real
 * signature recorded in that config. Any deviation in genesis transaction bytes, their
 * order or timestamps, or the v1 block layout breaks the signature.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parseJson, stringifyJson } from '../../src/protocol/json.js';
import { Protocol } from '../../src/protocol/protocol.js';
import {
  Block,
  checkGeneratorSettings,
  genesisBlock,
  genesisSettingsFromConfig,
  signGenesisBlock,
  unsignedGenesisBlock,
  type ConsensusType,
  type GenesisSettings,
} from '../../src/protocol/blocks.js';
import { WeError } from '../../src/errors/catalogue.js';

interface Fixture {
  'address-scheme-character': string;
  'consensus-type': ConsensusType;
  genesis: Record<string, unknown>;
  expected: { blockVersion: number; blockSize: number; signedSize: number; transactionCount: number; generatorAddress: string };
}

const fixture = parseJson(readFileSync(new URL('../../../test/fixtures/mainnet-genesis.json', import.meta.url), 'utf8')) as Fixture;
const p = await Protocol.create({ crypto: 'waves', chainId: fixture['address-scheme-character'] });
const settings = genesisSettingsFromConfig(p, fixture.genesis);
const consensus = fixture['consensus-type'];

function expectWeError(f: () => unknown, message: string | RegExp): void {
  assert.throws(f, (e: unknown) => {
    assert.ok(e instanceof WeError, String(e));
    if (typeof message === 'string') assert.equal(e.message, message);
    else assert.match(e.message, message);
    return true;
  });
}

describe('Mainnet genesis block', () => {
  const block = genesisBlock(p, settings, consensus);

  it('verifies the real signature from mainnet.conf under the genesis public key', () => {
    assert.ok(block.hasValidSignature());
    assert.equal(block.idBase58, fixture.genesis['signature']);
    assert.equal(block.generatorAddress, fixture.expected.generatorAddress);
  });

  it('has the expected size, version and transaction count', () => {
    assert.equal(block.version, fixture.expected.blockVersion);
    assert.equal(block.size, fixture.expected.blockSize);
    assert.equal(block.signedBytes.length, fixture.expected.signedSize);
    assert.equal(block.transactionCount, fixture.expected.transactionCount);
    assert.equal(
      block.reference.every((b) => b === 0xff),
      true,
    );
    assert.equal(block.bytes[0], 1);
  });

  it('orders transactions: transfers, then per participant 110 and its 101s at timestamp −1, −2, …', () => {
    const ts = settings.blockTimestamp;
    const types = block.transactions.map((t) => t.type);
    assert.deepEqual(types, [1, 1, 1, 1, 1, 1, 110, 101, 101, 110, 101, 110, 101, 110, 101, 110, 101, 110, 101]);
    const permitTimestamps = block.transactions.filter((t) => t.type === 101).map((t) => ts - t.timestamp);
    assert.deepEqual(permitTimestamps, [1n, 2n, 3n, 4n, 5n, 6n, 7n]);
    for (const t of block.transactions) if (t.type !== 101) assert.equal(t.timestamp, ts);
    const roles = block.transactions.filter((t) => t.type === 101).map((t) => (t.data as { role: string }).role);
    assert.deepEqual(roles, ['permissioner', 'connection_manager', 'miner', 'miner', 'miner', 'miner', 'miner']);
  });

  it('reads back from its bytes with the same id and JSON', () => {
    const back = Block.fromBytes(p, block.bytes);
    assert.ok(back.hasValidSignature());
    assert.deepEqual(back.bytes, block.bytes);
    assert.equal(stringifyJson(back.toJson()), stringifyJson(block.toJson()));
  });

  it('JSON of a v1 block: no features, no senderRoleEnabled, PoS consensus, fee 0', () => {
    const json = block.toJson();
    assert.deepEqual(Object.keys(json), [
      'version',
      'timestamp',
      'reference',
      'generator',
      'signature',
      'pos-consensus',
      'blocksize',
      'transactionCount',
      'fee',
      'transactions',
    ]);
    assert.equal(stringifyJson(json['pos-consensus']), '{"base-target":10000000000,"generation-signature":"11111111111111111111111111111111"}');
    assert.equal(json['blocksize'], 1051);
    assert.equal(json['fee'], 0n);
    assert.equal(json['generator'], fixture.expected.generatorAddress);
  });

  it('the signature no longer verifies after any change to the facts', () => {
    const variants: Array<[string, GenesisSettings, ConsensusType]> = [
      ['amount', { ...settings, transactions: settings.transactions.map((t, i) => (i === 2 ? { ...t, amount: t.amount + 1n } : t)) }, consensus],
      ['timestamp', { ...settings, blockTimestamp: settings.blockTimestamp + 1n }, consensus],
      ['base target', { ...settings, initialBaseTarget: settings.initialBaseTarget - 1n }, consensus],
      [
        'role order',
        {
          ...settings,
          networkParticipants: [
            { ...settings.networkParticipants[0]!, roles: ['connection_manager', 'permissioner'] },
            ...settings.networkParticipants.slice(1),
          ],
        },
        consensus,
      ],
      ['participant order', { ...settings, networkParticipants: [...settings.networkParticipants].reverse() }, consensus],
      ['consensus type', settings, 'poa'],
      ['genesis version', { ...settings, version: 2 }, consensus],
    ];
    for (const [what, s, c] of variants) {
      expectWeError(() => genesisBlock(p, s, c), 'Passed genesis signature is not valid');
      assert.ok(what);
    }
  });

  it('passes the GenesisBlockGenerator checks (initial balance = sum of transfers, a permissioner)', () => {
    assert.doesNotThrow(() => checkGeneratorSettings(settings));
    expectWeError(
      () => checkGeneratorSettings({ ...settings, initialBalance: settings.initialBalance - 1n }),
      "[The value of 'initial-balance' has to be equal to the sum of transactions amounts]",
    );
  });
});

describe('genesis block builder', () => {
  const kp = p.crypto.keyPairFromSeedPhrase('genesis builder test key');

  it('version 2 gives a v4 block with senderRoleEnabled, signed with a given key', () => {
    const s: GenesisSettings = {
      ...settings,
      version: 2,
      senderRoleEnabled: true,
      networkParticipants: settings.networkParticipants.map((x) => ({ ...x, roles: [...x.roles, 'sender'] })),
    };
    const block = signGenesisBlock(p, s, 'poa', kp.privateKey);
    assert.equal(block.version, 4);
    assert.deepEqual(block.genesisData, { senderRoleEnabled: true });
    assert.ok(block.hasValidSignature());
    const keys = Object.keys(block.headerJson());
    assert.deepEqual(keys.slice(5), ['poa-consensus', 'features', 'senderRoleEnabled', 'blocksize', 'transactionCount']);
    // genesisBlock() accepts the produced signature, as a node reading the generated config does.
    const rebuilt = genesisBlock(p, { ...s, genesisPublicKey: kp.publicKey, signature: block.signature }, 'poa');
    assert.deepEqual(rebuilt.bytes, block.bytes);
    assert.deepEqual(Block.fromBytes(p, block.bytes).bytes, block.bytes);
    // v4 = v1 layout + int tx count (+3) + feature count (+4) + genesis data (+2).
    const v1 = signGenesisBlock(p, { ...s, version: 1, senderRoleEnabled: false }, 'poa', kp.privateKey);
    assert.equal(block.size, v1.size + 3 + 4 + 2);
    checkGeneratorSettings(s);
  });

  it('consensus data per type: PoS {base target, 32 zero bytes}, PoA {0}, CFT {no votes, 0}', () => {
    assert.deepEqual(unsignedGenesisBlock(p, settings, 'poa').consensus, { type: 'poa', overallSkippedRounds: 0n });
    assert.deepEqual(unsignedGenesisBlock(p, settings, 'cft').consensus, { type: 'cft', votes: [], overallSkippedRounds: 0n });
    const pos = unsignedGenesisBlock(p, settings, 'pos').consensus;
    assert.equal(pos.type, 'pos');
    assert.equal(pos.type === 'pos' && pos.generationSignature.every((b) => b === 0), true);
    const sizes = (['pos', 'poa', 'cft'] as const).map((c) => signGenesisBlock(p, settings, c, kp.privateKey).size);
    assert.deepEqual([sizes[0]! - sizes[1]!, sizes[2]! - sizes[1]!], [32, 2]);
  });

  it('refuses settings WE refuses', () => {
    expectWeError(
      () => unsignedGenesisBlock(p, { ...settings, blockTimestamp: 1559260799999n }, 'pos'),
      "Genesis block timestamp '1559260799999' should be no less than '1559260800000'",
    );
    expectWeError(() => unsignedGenesisBlock(p, { ...settings, senderRoleEnabled: true }, 'pos'), 'Sender role is only supported in genesis version 2');
    expectWeError(() => genesisBlock(p, { ...settings, signature: null }, 'pos'), 'Genesis signature is not set');
    expectWeError(() => genesisBlock(p, { ...settings, signature: new Uint8Array(63) }, 'pos'), "Incorrect signature length: '63', expected '64'");
    expectWeError(() => genesisBlock(p, { ...settings, genesisPublicKey: new Uint8Array(31) }, 'pos'), 'Incorrect signer.publicKey');
    const many = { ...settings, transactions: Array.from({ length: 115 }, () => settings.transactions[0]!) };
    expectWeError(() => signGenesisBlock(p, many, 'pos', kp.privateKey), "Too much transactions for genesis block: found '128', max count '127'");
    assert.equal(signGenesisBlock(p, { ...many, version: 2 }, 'pos', kp.privateKey).transactionCount, 128);
  });

  it('GenesisBlockGenerator checks', () => {
    const [a, b] = settings.networkParticipants;
    expectWeError(
      () => checkGeneratorSettings({ ...settings, networkParticipants: [a!, a!, b!] }),
      `[The following network participants are duplicated: '[GasRtAUXMhifrUUmgU66rRZPii68tE4QxdQmtCcrV3xL]']`,
    );
    expectWeError(
      () => checkGeneratorSettings({ ...settings, networkParticipants: [b!] }),
      "[At least one network participant must have the 'permissioner' role]",
    );
    expectWeError(
      () => checkGeneratorSettings({ ...settings, senderRoleEnabled: true }),
      "['sender-role-enabled' config param can't be used with Genesis version below '2',Role 'sender' is required for every network participant which has any additional role]",
    );
  });

  it('config reader: WEST amounts, roles, version, keys', () => {
    const read = (patch: Record<string, unknown>): GenesisSettings => genesisSettingsFromConfig(p, { ...fixture.genesis, ...patch });
    const amount = (v: unknown): bigint => read({ transactions: [{ recipient: '3Nnq14SGqeYETSd1SJ6z8LsgBRYB2ya1yRC', amount: v }] }).transactions[0]!.amount;
    assert.equal(amount('1.5 WEST'), 150000000n);
    assert.equal(amount('0.00000001 WEST'), 1n);
    assert.equal(amount('25'), 25n);
    assert.equal(amount(7), 7n);
    expectWeError(() => amount('1.000000001 WEST'), 'Only 8 decimal units are allowed in WEST');
    expectWeError(() => amount('10000000001 WEST'), 'WEST amounts greater than 10 billion are not allowed');
    expectWeError(() => amount('-1'), "Failed to parse '-1' as WEST Amount");
    expectWeError(() => amount('1 waves'), "Failed to parse '1 waves' as WEST Amount");
    expectWeError(() => amount(null), "Failed to parse 'null' as WEST Amount");
    expectWeError(() => read({ version: 3 }), "Unknown genesis version '3', expected 1 or 2");
    expectWeError(() => read({ version: {} }), "Unknown genesis version 'an object', expected 1 or 2");
    expectWeError(() => read({ type: 'snapshot-based' }), /Unsupported genesis type/);
    expectWeError(
      () => read({ 'network-participants': [{ 'public-key': 'GasRtAUXMhifrUUmgU66rRZPii68tE4QxdQmtCcrV3xL', roles: ['god'] }] }),
      "Permission.fromStr failure: unknown role name 'god",
    );
    expectWeError(() => read({ 'network-participants': [{ 'public-key': 'abc', roles: [] }] }), /invalid public key/);
    expectWeError(() => read({ transactions: [{ recipient: 'nope', amount: 1 }] }), /invalid address/);
    expectWeError(() => read({ 'block-timestamp': 'soon' }), "'block-timestamp' must be an integer");
    expectWeError(() => read({ signature: '0OIl' }), /unable to decode base58/);
    assert.equal(read({ version: 2, 'sender-role-enabled': true }).senderRoleEnabled, true);
    assert.deepEqual(read({ 'network-participants': [{ 'public-key': 'GasRtAUXMhifrUUmgU66rRZPii68tE4QxdQmtCcrV3xL' }] }).networkParticipants[0]!.roles, []);
  });
});
