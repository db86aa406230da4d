/**
 * The pieces around the runtimes: the contract settings read from a node config, WE's image
 * name normalisation, the package digest (and `weft contract hash`), the status book and
 * the token service.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, renameSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { PackageDigests, packageTreeDigest } from '../../src/contracts/package-digest.js';
import { normalizeImageName } from '../../src/contracts/packages.js';
import { decodeStatusMessage, encodeStatusMessage, ExecutionStatusBook, type ContractExecutionMessage } from '../../src/contracts/statuses.js';
import { ContractTokens } from '../../src/contracts/tokens.js';
import { ConfigError } from '../../src/config/values.js';
import { ConfigSection } from '../../src/config/section.js';
import { parseHoconText } from '../../src/config/hocon.js';
import { CONTRACTS_TABLE } from '../../src/contracts/settings-keys.js';
import { tempDir } from '../../devkit/tmp.js';
import { node, protocol } from '../../devkit/contracts/engine.js';

const CLI = fileURLToPath(new URL('../../src/cli/cli.js', import.meta.url));
const run = promisify(execFile);

async function contractsOf(text: string) {
  return CONTRACTS_TABLE.read(new ConfigSection(await parseHoconText(text), '').section('node'), { dataDirectory: '/data' });
}

describe('contract settings', () => {
  it("takes WE's docker-engine defaults and node.wasm / node.api.grpc", async () => {
    const s = await contractsOf('node {}');
    assert.equal(s.enable, false);
    assert.deepEqual(s.dockerEngine.executionLimits, { startupTimeoutMs: 20_000, timeoutMs: 5000, memoryMb: 512, memorySwapMb: 0 });
    assert.equal(s.dockerEngine.contractAuthExpiresInMs, 60_000);
    assert.equal(s.dockerEngine.removeContainerAfterMs, 600_000);
    assert.equal(s.wasmFuelLimit, 20_000);
    // Loopback, unlike WE (0.0.0.0): the contract services and status streams are not offered to the network unless asked.
    assert.deepEqual(s.grpc, { bindAddress: '127.0.0.1', port: 6865 });
    assert.equal(s.packageCacheDirectory, '/data/contract-packages');
    // Absent: the engine's defaults (isolated, first user id 0x70000000).
    assert.equal(s.isolateNetwork, undefined);
    assert.equal(s.firstUserId, undefined);
    assert.equal(s.maxFailedExecutions, undefined);
  });

  it("listens where containers on Docker's own network reach it when grpc-server.host names another host, unless bind-address says where", async () => {
    assert.equal((await contractsOf('node.docker-engine.grpc-server.host = "172.17.0.1"')).grpc.bindAddress, '0.0.0.0');
    assert.equal((await contractsOf('node.docker-engine.grpc-server.host = "127.0.0.1"')).grpc.bindAddress, '127.0.0.1');
    assert.equal((await contractsOf('node.docker-engine.grpc-server.host = "localhost"')).grpc.bindAddress, '127.0.0.1');
    assert.equal(
      (await contractsOf('node { docker-engine.grpc-server.host = "172.17.0.1", api.grpc.bind-address = "172.17.0.1" }')).grpc.bindAddress,
      '172.17.0.1',
    );
  });

  it('reads packages, limits and the gRPC address; docker-engine.enable turns the engine on', async () => {
    const s = await contractsOf(`node {
      docker-engine { enable = yes, execution-limits { timeout = 2s, memory = 128 }, grpc-server { host = "10.0.0.1", port = 7000 }, contract-auth-expires-in = 30s }
      wasm { fuel-limit = 50000, execution-timeout = 750ms, memory-limit = 64MiB, threads = 2 }
      api.grpc { bind-address = "127.0.0.1", port = 7000, services.contract-status-events { max-connections = 9, max-connections-per-channel = 3 } }
      contracts.instances = 2
      contracts { isolate-network = no, first-user-id = 3000000, max-failed-executions = 5 }
      contracts.packages = [
        { image = "registry.local/kv:1", source = "/opt/kv", command = ["node", "main.js"], env { DEBUG = "1" }, instances = 3, isolate-network = yes }
        { image = "registry.local/other:2", runtime = docker }
      ]
    }`);
    assert.equal(s.enable, true);
    assert.equal(s.dockerEngine.executionLimits.timeoutMs, 2000);
    assert.equal(s.dockerEngine.executionLimits.memoryMb, 128);
    assert.deepEqual(s.dockerEngine.grpcServer, { host: '10.0.0.1', port: 7000 });
    assert.equal(s.dockerEngine.contractAuthExpiresInMs, 30_000);
    assert.equal(s.wasmFuelLimit, 50_000);
    assert.deepEqual(s.wasmExecution, { timeoutMs: 750, memoryLimitBytes: 64 * 2 ** 20, threads: 2 });
    assert.deepEqual(s.grpc, { bindAddress: '127.0.0.1', port: 7000, contractStatusMaxConnections: 9, contractStatusMaxConnectionsPerChannel: 3 });
    assert.equal(s.instances, 2);
    assert.equal(s.isolateNetwork, false);
    assert.equal(s.firstUserId, 3_000_000);
    assert.equal(s.maxFailedExecutions, 5);
    assert.deepEqual(s.packages, [
      {
        image: 'registry.local/kv:1',
        runtime: 'process',
        source: '/opt/kv',
        command: ['node', 'main.js'],
        env: { DEBUG: '1' },
        instances: 3,
        isolateNetwork: true,
      },
      { image: 'registry.local/other:2', runtime: 'docker', source: undefined, command: undefined, env: {} },
    ]);
  });

  it('names the key of a bad value', async () => {
    await assert.rejects(contractsOf('node.contracts.packages = [{ image = "x" }]'), (e: ConfigError) => e.path === 'node.contracts.packages(0).source');
    await assert.rejects(
      contractsOf('node.contracts.packages = [{ image = "x", source = "/x", runtime = vm }]'),
      (e: ConfigError) => e.path === 'node.contracts.packages(0).runtime',
    );
    await assert.rejects(
      contractsOf('node.docker-engine.execution-limits.timeout = soon'),
      (e: ConfigError) => e.path === 'node.docker-engine.execution-limits.timeout',
    );
    await assert.rejects(contractsOf('node.wasm.fuel-limit = 0'), (e: ConfigError) => e.path === 'node.wasm.fuel-limit');
    await assert.rejects(contractsOf('node.wasm.execution-timeout = 0s'), (e: ConfigError) => e.path === 'node.wasm.execution-timeout');
    await assert.rejects(
      contractsOf('node.wasm.memory-limit = 8MiB'),
      (e: ConfigError) => e.path === 'node.wasm.memory-limit' && e.message.includes('at least 16MiB'),
    );
    await assert.rejects(contractsOf('node.wasm.threads = 0'), (e: ConfigError) => e.path === 'node.wasm.threads');
    await assert.rejects(contractsOf('node.contracts.instances = 0'), (e: ConfigError) => e.path === 'node.contracts.instances');
    await assert.rejects(
      contractsOf('node.contracts.packages = [{ image = "x", source = "/x", instances = 99 }]'),
      (e: ConfigError) => e.path === 'node.contracts.packages(0).instances',
    );
    await assert.rejects(contractsOf('node.contracts.first-user-id = 0'), (e: ConfigError) => e.path === 'node.contracts.first-user-id');
    await assert.rejects(
      contractsOf('node.contracts.packages = [{ image = "x", source = "/x", isolate-network = maybe }]'),
      (e: ConfigError) => e.path === 'node.contracts.packages(0).isolate-network',
    );
    await assert.rejects(
      contractsOf('node.api.grpc.services.contract-status-events.max-connections = 0'),
      (e: ConfigError) => e.path === 'node.api.grpc.services.contract-status-events.max-connections',
    );
    await assert.rejects(
      contractsOf('node.api.grpc.services.contract-status-events.max-connections-per-channel = 0'),
      (e: ConfigError) => e.path === 'node.api.grpc.services.contract-status-events.max-connections-per-channel',
    );
    await assert.rejects(contractsOf('node.contracts.max-failed-executions = 0'), (e: ConfigError) => e.path === 'node.contracts.max-failed-executions');
  });
});

describe("WE's image name normalisation", () => {
  it('takes a registry domain only when it looks like one, and adds :latest', () => {
    const full = (image: string, domain?: string): string => normalizeImageName(image, domain).fullName;
    assert.equal(full('counter'), 'counter:latest');
    assert.equal(full('counter', 'registry.local'), 'registry.local/counter:latest');
    assert.equal(full('team/counter:2'), 'team/counter:2');
    assert.equal(full('team/counter:2', 'registry.local'), 'registry.local/team/counter:2');
    assert.equal(full('localhost/counter'), 'localhost/counter:latest');
    assert.equal(full('registry.local:5000/counter:1.0'), 'registry.local:5000/counter:1.0');
    assert.equal(full(`registry.local/counter@sha256:${'a'.repeat(64)}`), `registry.local/counter@sha256:${'a'.repeat(64)}`);
  });
});

describe('the package digest', () => {
  const make = (root: string): void => {
    mkdirSync(join(root, 'dist', 'lib'), { recursive: true });
    writeFileSync(join(root, 'package.json'), '{"name":"p"}');
    writeFileSync(join(root, 'dist', 'index.js'), 'console.log(1)');
    writeFileSync(join(root, 'dist', 'lib', 'a.js'), 'exports.a = 1');
    mkdirSync(join(root, 'empty'));
  };

  it('depends on paths, contents, the executable bit and link targets only', async () => {
    const a = tempDir('weft-digest-a-');
    const b = tempDir('weft-digest-b-');
    make(a);
    // The same tree written in another order, with an extra empty folder.
    mkdirSync(join(b, 'dist', 'lib'), { recursive: true });
    writeFileSync(join(b, 'dist', 'lib', 'a.js'), 'exports.a = 1');
    writeFileSync(join(b, 'dist', 'index.js'), 'console.log(1)');
    writeFileSync(join(b, 'package.json'), '{"name":"p"}');
    mkdirSync(join(b, 'also-empty'));
    const digest = await packageTreeDigest(a);
    assert.match(digest, /^[0-9a-f]{64}$/);
    assert.equal(await packageTreeDigest(b), digest);
    writeFileSync(join(b, 'dist', 'index.js'), 'console.log(2)');
    const changed = await packageTreeDigest(b);
    assert.notEqual(changed, digest);
    writeFileSync(join(b, 'dist', 'index.js'), 'console.log(1)');
    chmodSync(join(b, 'dist', 'index.js'), 0o755);
    assert.notEqual(await packageTreeDigest(b), digest);
    chmodSync(join(b, 'dist', 'index.js'), 0o644);
    symlinkSync('dist/index.js', join(b, 'start.js'));
    const linked = await packageTreeDigest(b);
    assert.notEqual(linked, digest);
    assert.equal(await packageTreeDigest(b), linked);
  });

  it("of a folder, remembered until the folder changes, answers the tree's digest after any change", async () => {
    const dir = tempDir('weft-digest-known-');
    make(dir);
    const digests = new PackageDigests();
    const same = async (what: string): Promise<string> => {
      const digest = await digests.digestOf(dir);
      assert.equal(digest, await packageTreeDigest(dir), what);
      return digest;
    };
    const first = await same('first');
    assert.equal(await same('unchanged'), first);
    // The same size, its modification time put back: what a check of sizes and mtimes alone misses.
    const file = join(dir, 'dist', 'index.js');
    const { atime, mtime } = statSync(file);
    writeFileSync(file, 'console.log(2)');
    utimesSync(file, atime, mtime);
    const rewritten = await same('rewritten in place');
    assert.notEqual(rewritten, first);
    chmodSync(file, 0o755);
    assert.notEqual(await same('made executable'), rewritten);
    chmodSync(file, 0o644);
    writeFileSync(join(dir, 'dist', 'b.js'), 'x');
    renameSync(join(dir, 'dist', 'b.js'), join(dir, 'dist', 'lib', 'b.js'));
    await same('a file added and moved');
    symlinkSync('dist/index.js', join(dir, 'start.js'));
    await same('a link added');
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    await assert.rejects(digests.digestOf(dir), /'pipe' is neither a file, a folder nor a symbolic link/);
  });

  it('refuses what is neither a file, a folder nor a link', async () => {
    const dir = tempDir('weft-digest-fifo-');
    make(dir);
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    await assert.rejects(packageTreeDigest(dir), /'pipe' is neither a file, a folder nor a symbolic link/);
  });

  it('is what `weft contract hash` prints, for a folder and for a .tgz of it', async () => {
    const dir = tempDir('weft-digest-cli-');
    make(dir);
    const digest = await packageTreeDigest(dir);
    const folder = await run(process.execPath, [CLI, 'contract', 'hash', dir]);
    assert.equal(folder.stdout, `${digest}\n`);
    const tarball = join(tempDir('weft-digest-tgz-'), 'p.tgz');
    execFileSync('tar', ['-czf', tarball, '-C', dir, '.']);
    assert.equal((await run(process.execPath, [CLI, 'contract', 'hash', tarball])).stdout, `${digest}\n`);
    await assert.rejects(run(process.execPath, [CLI, 'contract', 'hash', join(dir, 'nothing-here')]), (e: { code: number; stderr: string }) => {
      assert.equal(e.code, 1);
      assert.match(e.stderr, /no contract package at/);
      return true;
    });
  });
});

describe('execution statuses', () => {
  it("keeps signed statuses per transaction, oldest first, takes other nodes' only when signed, and forgets them after expire-after", () => {
    let now = 1_000_000n;
    const book = new ExecutionStatusBook({ protocol, node, now: () => now, maxSize: 10, expireAfterMs: 60_000 });
    const txId = new Uint8Array(32).fill(9);
    book.record(txId, { status: 'Failure', code: 1, message: 'x'.repeat(1500) });
    now += 10n;
    const ok = book.record(txId, { status: 'Success', code: null, message: 'Contract transaction successfully mined' });
    const statuses = book.statuses(txId)!;
    assert.deepEqual(
      statuses.map((s) => s.status),
      ['Failure', 'Success'],
    );
    assert.equal(statuses[0]!.message.length, 1000, 'cut to 1000 characters');
    const other = protocol.crypto.keyPairFromSeedPhrase('another node');
    assert.equal(book.accept({ ...ok, senderPublicKey: other.publicKey }), 'invalid', 'a signature of another key');
    assert.equal(book.statuses(txId)!.length, 2);
    now += 60_000n;
    assert.equal(book.statuses(txId), undefined);
  });

  it("travel as WE's code-29 bytes: another node takes each signed status once and refuses altered or malformed ones", () => {
    let now = 1_000_000n;
    const other = protocol.crypto.keyPairFromSeedPhrase('another node');
    const mine = new ExecutionStatusBook({ protocol, node, now: () => now, maxSize: 10, expireAfterMs: 60_000 });
    const theirs = new ExecutionStatusBook({ protocol, node: other, now: () => now, maxSize: 10, expireAfterMs: 60_000 });
    const heard: string[] = [];
    theirs.subscribe((m, origin) => heard.push(`${origin} ${m.status}`));
    const txId = new Uint8Array(32).fill(7);
    const error = mine.record(txId, { status: 'Error', code: 2, message: 'Not enough params' });
    now += 5n;
    const success = mine.record(txId, { status: 'Success', code: null, message: 'Contract transaction successfully mined' });
    const wire = encodeStatusMessage(error);
    // Signed bytes (key 32 · txId · "Error" · code 1 ‖ 0004 ‖ int32 2 · message · timestamp), then the 64-byte signature.
    assert.equal(wire.length, 32 + 2 + 32 + 2 + 5 + 1 + 2 + 4 + 2 + 17 + 8 + 64);
    assert.deepEqual([...wire.subarray(32 + 34 + 7, 32 + 34 + 14)], [1, 0, 4, 0, 0, 0, 2]);
    const read = decodeStatusMessage(wire, protocol.crypto.publicKeyLength, protocol.crypto.signatureLength);
    const data = (m: ContractExecutionMessage): object => ({ ...m, signature: m.signature() });
    assert.deepEqual(data(read), data({ ...error, txId: read.txId }));
    assert.deepEqual(read.txId, txId);
    assert.equal(theirs.accept(read), 'new');
    assert.equal(theirs.accept(decodeStatusMessage(wire, 32, 64)), 'known', 'the same message twice is kept once');
    assert.equal(theirs.accept(decodeStatusMessage(encodeStatusMessage(success), 32, 64)), 'new');
    assert.deepEqual(theirs.statuses(txId)?.map(data), mine.statuses(txId)?.map(data), 'the other node answers the same statuses');
    assert.deepEqual(heard, ['peer Error', 'peer Success']);
    const altered = { ...success, message: 'Contract transaction failed' };
    assert.equal(theirs.accept(altered), 'invalid');
    assert.equal(theirs.statuses(txId)!.length, 2);
    assert.throws(() => decodeStatusMessage(wire.subarray(0, wire.length - 1), 32, 64), /underflow/i);
    assert.throws(() => decodeStatusMessage(Uint8Array.from([...wire, 0]), 32, 64), /after|end|remain/i);
    const badStatus = Uint8Array.from(wire);
    badStatus.set(Buffer.from('Oops!'), 32 + 34 + 2);
    assert.throws(() => decodeStatusMessage(badStatus, 32, 64), /Unknown contract execution status 'Oops!'/);
    assert.throws(() => decodeStatusMessage(new Uint8Array(5 * 1024 + 1), 32, 64), /at most 5120/);
  });
});

describe('contract tokens', () => {
  it('tell connection tokens from execution tokens and refuse expired ones (622)', async () => {
    let now = 1_800_000_000_000n;
    const tokens = await ContractTokens.create({ now: () => now, lifetimeMs: 60_000 });
    const connection = await tokens.connectionToken('c1');
    const execution = await tokens.executionToken({ txId: 't', contractId: 'c', executionId: '1' });
    assert.deepEqual(await tokens.verifyConnection(connection), { connectionId: 'c1' });
    assert.deepEqual(await tokens.verifyExecution(execution), { txId: 't', contractId: 'c', executionId: '1' });
    await assert.rejects(tokens.verifyExecution(connection), (e: { code: number }) => e.code === 622);
    await assert.rejects(tokens.verifyConnection(execution), (e: { code: number }) => e.code === 622);
    await assert.rejects(tokens.verifyExecution('not.a.jwt'), (e: { code: number }) => e.code === 622);
    now += 61_000n;
    await assert.rejects(tokens.verifyExecution(execution), (e: { code: number }) => e.code === 622);
  });
});
