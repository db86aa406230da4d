/**
 * `npm run devnet -- --contract IMAGE=DIR`: every node of the devnet runs a contract engine, on
 * a gRPC port of its own, with the images named — so contracts (and validation policies, which
 * need several executing nodes) work on a devnet without editing its configs. Without the
 * option a devnet's nodes run no engine; the images are chosen when the devnet is created and
 * kept when it is reopened.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import wabtInit from 'wabt';
import { loadNodeConfig } from '../../src/node/config.js';
import { devAccounts, devProtocol } from '../../src/cli/dev.js';
import { buildDevnetProgram, devnetContractPackages, prepareDevnet, spawnDevnetNode } from '../../src/cli/devnet.js';
import { devContractPackage } from '../../src/cli/start.js';
import { stringifyJson } from '../../src/protocol/json.js';
import { createV7, timestampsFrom } from '../../devkit/contracts/engine.js';
import { REPO_ROOT } from '../../devkit/contracts/sdk-package.js';
import { tempDir } from '../../devkit/tmp.js';

const CHEAP = { scrypt: { N: 1024, r: 8, p: 1 } };
const children: ChildProcess[] = [];
after(() => {
  for (const c of children) c.kill('SIGKILL');
});

describe('devnet --contract', () => {
  it('is a repeatable option of `npm run devnet`', () => {
    const program = buildDevnetProgram().exitOverride();
    program.parse(['--contract', 'my/a:1=./a', '--contract', 'my/b:1=./b.tgz'], { from: 'user' });
    assert.deepEqual(program.opts()['contract'], ['my/a:1=./a', 'my/b:1=./b.tgz']);
  });

  it('gives every node an engine with the images on a gRPC port of its own, kept on resume without the option; other images, or the option on a devnet made without it, are refused on resume', async () => {
    const pkg = devContractPackage(`registry.weft.test/counter:1=${tempDir('weft-devnet-pkg-')}`);
    const dir = tempDir('weft-devnet-contracts-');
    const layout = await prepareDevnet({ nodes: 3, dir, basePort: 0, keystore: CHEAP, contractPackages: [pkg] });
    const ports = layout.nodes.flatMap((n) => [n.restPort, n.p2pPort, n.grpcPort]);
    assert.equal(new Set(ports).size, 9, `distinct ports: ${ports.join(', ')}`);
    for (const n of layout.nodes) {
      const config = await loadNodeConfig(n.configFile, { env: {} });
      assert.equal(config.contracts?.enable, true, n.name);
      assert.deepEqual(
        config.contracts.packages.map((p) => [p.image, p.source, p.runtime]),
        [[pkg.image, pkg.source, 'process']],
      );
      assert.equal(config.contracts.grpc.port, n.grpcPort);
      // What the contract processes dial (NODE_PORT): the node's own gRPC port.
      assert.equal(config.contracts.dockerEngine.grpcServer.port, n.grpcPort);
    }
    // Resumed with the option: the devnet as it was made.
    assert.deepEqual(await prepareDevnet({ nodes: 3, dir, basePort: 0, keystore: CHEAP, contractPackages: [pkg] }), layout);
    // Resumed without it: the same devnet, its nodes still running the image.
    const resumed = await prepareDevnet({ nodes: 3, dir, basePort: 0, keystore: CHEAP });
    assert.deepEqual(resumed, layout);
    assert.deepEqual(
      (await devnetContractPackages(resumed)).map((p) => [p.image, p.source]),
      [[pkg.image, pkg.source]],
    );
    // Resumed with other images: refused, naming the ones it runs (they would be silently ignored).
    const other = devContractPackage(`registry.weft.test/other:1=${tempDir('weft-devnet-pkg-')}`);
    await assert.rejects(
      prepareDevnet({ nodes: 3, dir, basePort: 0, keystore: CHEAP, contractPackages: [pkg, other] }),
      (e: Error) => e.message.includes(`run the contract images ${pkg.image}=${pkg.source}, not `) && e.message.includes(other.image),
    );

    const plainDir = tempDir('weft-devnet-plain-');
    const plain = await prepareDevnet({ nodes: 1, dir: plainDir, basePort: 0, keystore: CHEAP });
    assert.equal(plain.nodes[0]!.grpcPort, undefined);
    assert.equal((await loadNodeConfig(plain.nodes[0]!.configFile, { env: {} })).contracts?.enable ?? false, false);
    await assert.rejects(prepareDevnet({ nodes: 1, dir: plainDir, basePort: 0, keystore: CHEAP, contractPackages: [pkg] }), /created without --contract/);
  });

  it('its nodes execute contracts: a WASM contract created on node 0 is executed and its 105 reaches node 1', async () => {
    const layout = await prepareDevnet({ nodes: 2, dir: tempDir('weft-devnet-run-'), basePort: 0, keystore: CHEAP, contractPackages: [] });
    for (const n of layout.nodes) children.push(spawnDevnetNode(n));
    const protocol = await devProtocol('waves');
    const developer = devAccounts(protocol)[0]!.keyPair;
    const m = (await wabtInit()).parseWat('counter.wat', readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'contracts', 'wasm', 'counter.wat'), 'utf8'), {
      multi_value: true,
    });
    const bytecode = Uint8Array.from(m.toBinary({}).buffer);
    m.destroy();
    timestampsFrom(BigInt(Date.now()));
    const create = createV7(
      { engine: 'wasm', bytecode, bytecodeHash: createHash('sha256').update(bytecode).digest('hex') },
      [{ key: 'start', type: 'integer', value: 3n }],
      developer,
    );

    const deadline = Date.now() + 120_000;
    const poll = async <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> => {
      for (;;) {
        const found = await probe().catch(() => undefined);
        if (found !== undefined) return found;
        assert.ok(Date.now() < deadline, `waited too long for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    };
    const [n0, n1] = layout.nodes as [(typeof layout.nodes)[number], (typeof layout.nodes)[number]];
    // Both nodes serving and connected, then the create broadcast to node 0.
    await poll('two connected nodes', async () => {
      const r = await fetch(`${n0.restUrl}/peers/connected`);
      return r.status === 200 && ((await r.json()) as { peers: unknown[] }).peers.length === 1 ? true : undefined;
    });
    await poll('the create admitted', async () => {
      const r = await fetch(`${n0.restUrl}/transactions/broadcast`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: stringifyJson(create.toJson()),
      });
      return r.status === 200 ? true : undefined;
    });
    const executedOn = (url: string): Promise<string> =>
      poll(`the 105 on ${url}`, async () => {
        const r = await fetch(`${url}/contracts/executed-tx-for/${create.idBase58}`);
        return r.status === 200 ? ((await r.json()) as { id: string }).id : undefined;
      });
    const executed = await executedOn(n0.restUrl);
    assert.equal(await executedOn(n1.restUrl), executed);
    const state = await poll('the contract state on node 1', async () => {
      const r = await fetch(`${n1.restUrl}/contracts/${create.idBase58}/counter`);
      return r.status === 200 ? ((await r.json()) as { value: number }) : undefined;
    });
    assert.equal(state.value, 3);
  });
});
