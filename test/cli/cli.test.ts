/**
 * The generator commands, run as a user runs them: `node dist/src/cli/cli.js generate …`
 * in a child process, outputs and written files checked.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { genesisBlock } from '../../src/protocol/blocks.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { backupSuffix, rewriteGenesisLines } from '../../src/cli/cli.js';
import { loadNodeConfig } from '../../src/node/config.js';
import { Keystore } from '../../src/keystore/keystore.js';
import { tempDir } from '../../devkit/tmp.js';

const CLI = fileURLToPath(new URL('../../src/cli/cli.js', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/node-example.conf', import.meta.url));
const run = promisify(execFile);

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(args: string[], cwd?: string): Promise<Result> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, NODE_OPTIONS: '' } });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe('generate api-key-hash', () => {
  it("computes WE's worked values", async () => {
    const r = await cli(['generate', 'api-key-hash', 'ridethewaves!']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Api key: ridethewaves!\nApi key hash: H6nsiifwYKYEx6YzYD7woP1XCn72RVvx6tC1zjjLXqsu\n');
    const values: Array<[string, string]> = [
      ['we', 'AWUhyXUX6Jam852Gy1DibK7wYNXSMbhtDsKzribM6iLR'],
      ['some string for api-key', '8gmoWdqSusXRndaMtQaZKJ8LT2WbiVTPRWGhv2Z6LbU9'],
      ['test_api_key', '86GJVSoboK12zXHYJFzoucAKaFS1yyXA2NztWSt9tGiX'],
    ];
    const results = await Promise.all(values.map(([key]) => cli(['generate', 'api-key-hash', '--hash-only', key])));
    results.forEach((res, i) => assert.equal(res.stdout, `${values[i]![1]}\n`));
  });

  it("reads WE's apikeyhash-generator config and writes its file", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'hash.conf'), 'apikeyhash-generator {\n  crypto.type = WAVES\n  api-key = "some string for api-key"\n  file = "out.txt"\n}\n');
    const r = await cli(['generate', 'api-key-hash', '--config', 'hash.conf'], dir);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Api key hash: 8gmoWdqSusXRndaMtQaZKJ8LT2WbiVTPRWGhv2Z6LbU9/);
    assert.equal(readFileSync(join(dir, 'out.txt'), 'utf8'), r.stdout);
  });
});

describe('generate accounts', () => {
  it('adds N key pairs with per-key passwords and prints addresses and public keys only', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'passwords'), 'first\n\nthird password\n');
    const r = await cli(['generate', 'accounts', '--keystore', 'ks.json', '--chain-id', 'E', '-n', '3', '--password-file', 'passwords', '--json'], dir);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { keystore: string; chainId: string; accounts: Array<Record<string, string>> };
    assert.equal(out.keystore, join(dir, 'ks.json'));
    assert.equal(out.chainId, 'E');
    assert.equal(out.accounts.length, 3);
    assert.ok(out.accounts.every((a) => Object.keys(a).join() === 'address,publicKey'));
    const protocol = await Protocol.create({ crypto: 'waves', chainId: 'E' });
    const ks = Keystore.open(join(dir, 'ks.json'), protocol.addresses);
    assert.deepEqual(
      ks.addresses(),
      out.accounts.map((a) => a.address),
    );
    const passwords = ['first', '', 'third password'];
    out.accounts.forEach((a, i) => {
      const kp = ks.keyPair(a.address!, passwords[i]);
      assert.equal(encodeBase58(kp.publicKey), a.publicKey);
      assert.equal(protocol.addresses.fromPublicKey(kp.publicKey).toString(), a.address);
    });
    assert.equal(statSync(join(dir, 'ks.json')).mode & 0o777, 0o600);
  });

  it('prints private keys only when asked, and appends to an existing keystore', async () => {
    const dir = tempDir();
    const first = await cli(['generate', 'accounts', '--keystore', 'ks.json', '--chain-id', 'T', '--password', 'pw'], dir);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^1 Address: 3\w+; public key: \w+\nKeystore: /);
    assert.doesNotMatch(first.stdout, /private/);
    const second = await cli(['generate', 'accounts', '--keystore', 'ks.json', '--chain-id', 'T', '--password', 'pw', '--show-private-keys'], dir);
    const m = /^1 Address: (\w+); public key: (\w+); private key: (\w+)\n/.exec(second.stdout);
    assert.ok(m, second.stdout);
    const protocol = await Protocol.create({ crypto: 'waves', chainId: 'T' });
    const ks = Keystore.open(join(dir, 'ks.json'), protocol.addresses);
    assert.equal(ks.addresses().length, 2);
    assert.equal(encodeBase58(ks.keyPair(m[1]!, 'pw').privateKey), m[3]);
  });

  it("reads WE's accounts-generator config; without a password source it refuses (no console)", async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'accounts.conf'),
      'accounts-generator {\n  crypto.type = WAVES\n  chain-id = V\n  amount = 2\n  wallet = "./keystore.dat"\n  wallet-password = "x"\n}\n',
    );
    const refused = await cli(['generate', 'accounts', '--config', 'accounts.conf'], dir);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /no console to ask passwords on: give --password/);
    const r = await cli(['generate', 'accounts', '--config', 'accounts.conf', '--password', ''], dir);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.split('\n').filter((l) => l.includes('Address: 3')).length, 2);
    const protocol = await Protocol.create({ crypto: 'waves', chainId: 'V' });
    assert.equal(Keystore.open(join(dir, 'keystore.dat'), protocol.addresses).addresses().length, 2);
  });

  it('rejects bad arguments', async () => {
    const r = await cli(['generate', 'accounts', '--keystore', 'x.json', '--chain-id', 'EE', '--password', '']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /expected one ASCII character/);
  });
});

describe('generate genesis', () => {
  it('signs the genesis of a node config with a fresh key and rewrites its three lines, keeping the old file', async () => {
    const dir = tempDir();
    const file = join(dir, 'node.conf');
    copyFileSync(FIXTURE, file);
    const original = readFileSync(file, 'utf8');
    const before = BigInt(Date.now());
    const r = await cli(['generate', 'genesis', '--config', 'node.conf'], dir);
    const after = BigInt(Date.now());
    assert.equal(r.code, 0, r.stderr);
    const m =
      /^Genesis signed successfully!\nNew configuration file: (.+)\nOld configuration saved to: (.+)\nblock-timestamp: (\d+)\ngenesis-public-key-base-58: (\w+)\nsignature: (\w+)\n$/.exec(
        r.stdout,
      );
    assert.ok(m, r.stdout);
    assert.equal(m[1], file);
    assert.match(m[2]!, /^.*\/node\.conf\.old\.\d\d-\d\d-\d{4}\.\d\d-\d\d-\d\d$/);
    assert.equal(readFileSync(m[2]!, 'utf8'), original);
    const ts = BigInt(m[3]!);
    assert.ok(ts >= before && ts <= after, `${ts} within [${before}, ${after}]`);

    // Only the three lines changed, each keeping its indentation and delimiter.
    const oldLines = original.split('\n');
    const newLines = readFileSync(file, 'utf8').split('\n');
    assert.equal(newLines.length, oldLines.length);
    const changed = newLines
      .map((l, i) => [l, oldLines[i]])
      .filter(([a, b]) => a !== b)
      .map(([a]) => a);
    assert.deepEqual(changed, [`        block-timestamp: ${m[3]}`, `        genesis-public-key-base-58: "${m[4]}"`, `        signature: "${m[5]}"`]);

    // The rewritten config loads, and the genesis block it describes verifies.
    const config = await loadNodeConfig(file);
    assert.equal(config.chain.genesis.blockTimestamp, ts);
    assert.equal(encodeBase58(config.chain.genesis.genesisPublicKey!), m[4]);
    const protocol = await Protocol.create({ crypto: 'waves', chainId: 'E' });
    const block = genesisBlock(protocol, config.chain.genesis, 'poa');
    assert.equal(encodeBase58(block.signature), m[5]);
    assert.equal(block.transactions.length, 3 + 3 + 6);
    assert.equal(statSync(file).mode & 0o777, statSync(m[2]!).mode & 0o777);
  });

  it("refuses a config failing the generator's checks and leaves the file alone", async () => {
    const dir = tempDir();
    const file = join(dir, 'node.conf');
    const text = readFileSync(FIXTURE, 'utf8')
      .replace('initial-balance: 3000000 WEST', 'initial-balance: 16250000 WEST')
      .replace('roles: [permissioner, miner,', 'roles: [miner,');
    writeFileSync(file, text);
    const r = await cli(['generate', 'genesis', '--config', file]);
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      "error: [At least one network participant must have the 'permissioner' role,The value of 'initial-balance' has to be equal to the sum of transactions amounts]\n",
    );
    assert.equal(readFileSync(file, 'utf8'), text);
    assert.deepEqual(readdirSync(dir), ['node.conf']);

    const invalid = await cli(['generate', 'genesis', '--config', join(dir, 'missing.conf')]);
    assert.equal(invalid.code, 1);
    assert.match(invalid.stderr, /Configuration file '.*missing\.conf' does not exist/);
    const noConfig = await cli(['generate', 'genesis']);
    assert.equal(noConfig.code, 1);
    assert.match(noConfig.stderr, /required option '--config <file>' not specified/);
  });

  it('rewrites `key = value` and dotted keys too, and insists on finding every key', () => {
    const update = { blockTimestamp: 1600000000000n, genesisPublicKey: 'PK', signature: 'SIG' };
    const text = [
      'genesis {',
      '\tblock-timestamp = 1',
      '  "signature" = ""',
      '}',
      'node.blockchain.custom.genesis.genesis-public-key-base-58: "" # filled',
      'other = 1',
    ].join('\r\n');
    assert.equal(
      rewriteGenesisLines(text, update),
      [
        'genesis {',
        '\tblock-timestamp = 1600000000000',
        '  "signature" = "SIG"',
        '}',
        'node.blockchain.custom.genesis.genesis-public-key-base-58: "PK"',
        'other = 1',
      ].join('\r\n'),
    );
    assert.throws(
      () => rewriteGenesisLines('genesis { signature: "", block-timestamp: 1 }', update),
      /cannot find the line\(s\) of 'signature', 'genesis-public-key-base-58', 'block-timestamp'/,
    );
    assert.equal(backupSuffix(new Date(2024, 0, 2, 3, 4, 5)), '02-01-2024.03-04-05');
  });
});

describe('start', () => {
  it('validates its options before doing anything', async () => {
    const dir = tempDir();
    const r = await cli(['start', '--rest-port', 'http', '--data-dir', join(dir, 'dev')]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /option '--rest-port <port>' argument 'http' is invalid\. expected a port number/);
    assert.equal(existsSync(join(dir, 'dev')), false);
  });
});
