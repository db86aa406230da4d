/**
 * `node.crypto.verifier-threads`: how many threads verify signatures beside the event loop.
 * A devnet sizes it to the cores its nodes share (devnetVerifierThreads); a node with none
 * verifies on its event loop and still admits, refuses and mines as any other.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pino from 'pino';
import { loadNodeConfig } from '../../src/node/config.js';
import { devAccounts, devNodeConfig } from '../../src/cli/dev.js';
import { devnetVerifierThreads, prepareDevnet } from '../../src/cli/devnet.js';
import { Node } from '../../src/node/node.js';
import { stringifyJson } from '../../src/protocol/json.js';
import { tempDir } from '../../devkit/tmp.js';
import { signedTransferTx } from '../support/transfers.js';
import { until } from '../../devkit/wait.js';

const CHEAP = { scrypt: { N: 1024, r: 8, p: 1 } };
const running: Node[] = [];
after(async () => {
  for (const n of running) await n.stop();
});

describe('signature verifier threads', () => {
  it('a devnet gives each node the cores it gets less one for its event loop: none with as many nodes as cores or more; one node alone keeps the default', () => {
    assert.equal(devnetVerifierThreads(4, 2), 0);
    assert.equal(devnetVerifierThreads(2, 2), 0);
    assert.equal(devnetVerifierThreads(3, 4), 0);
    assert.equal(devnetVerifierThreads(4, 8), 1);
    assert.equal(devnetVerifierThreads(3, 16), 4);
    assert.equal(devnetVerifierThreads(1, 8), undefined);
  });

  it('a devnet writes the count into each node.conf, where start --config reads it back; an explicit one wins', async () => {
    const dir = tempDir('weft-devnet-threads-');
    const layout = await prepareDevnet({ nodes: 3, dir, basePort: 0, keystore: CHEAP });
    for (const node of layout.nodes) assert.equal((await loadNodeConfig(node.configFile, { env: {} })).node.verifierThreads, devnetVerifierThreads(3));
    const other = await prepareDevnet({ nodes: 2, dir: tempDir('weft-devnet-threads-'), basePort: 0, keystore: CHEAP, verifierThreads: 5 });
    for (const node of other.nodes) assert.equal((await loadNodeConfig(node.configFile, { env: {} })).node.verifierThreads, 5);
  });

  it('a node without verifier threads admits a transfer, refuses one with a forged signature (WE’s 112 naming it) and mines the valid one', async () => {
    const base = await devNodeConfig({ dataDir: tempDir('weft-no-verifier-'), restPort: 0, p2pPort: 0, keystore: CHEAP });
    // The pool reports the threads it started: none, as configured (the default here would be at least one).
    const lines: string[] = [];
    const node = await Node.start(
      { ...base, node: { ...base.node, verifierThreads: 0 } },
      { logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }) },
    );
    running.push(node);
    const started = lines.map((l) => JSON.parse(l) as { msg: string; threads?: number }).find((l) => l.msg === 'signature verifier threads started');
    assert.equal(started?.threads, 0, 'the node started no verifier thread');
    const p = node.protocol;
    const [from, to] = devAccounts(p) as [ReturnType<typeof devAccounts>[0], ReturnType<typeof devAccounts>[0]];
    const transfer = (amount: bigint) => signedTransferTx(p, from, to, amount, BigInt(Date.now()) + amount);
    const broadcast = (body: string) => fetch(`${node.url!}/transactions/broadcast`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const valid = transfer(11n);
    const ok = await broadcast(stringifyJson(valid.toJson()));
    assert.equal(ok.status, 200, await ok.text());
    const forged = transfer(12n);
    const proof = Uint8Array.from(forged.proofs[0]!);
    proof[5] = proof[5]! ^ 1;
    const refused = await broadcast(stringifyJson(forged.withProofs([proof]).toJson()));
    assert.equal(refused.status, 400);
    const error = (await refused.json()) as { error: number; message: string };
    assert.equal(error.error, 112, JSON.stringify(error));
    assert.match(error.message, /signature|proof/i);
    await until(
      'the valid transfer in a block',
      async () => ((await fetch(`${node.url!}/transactions/info/${valid.idBase58}`)).status === 200 ? true : undefined),
      20_000,
    );
  });
});
