/**
 * A real node process: a logger's level changed over REST shows in its output at once,
 * and POST /node/stop stops it cleanly — the process exits with code 0.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NodeFleet, sleep, until } from './support.js';

const fleet = new NodeFleet();

describe('node control on a running dev node', () => {
  it('POST /node/logging makes debug lines appear; POST /node/stop exits the process with 0', async () => {
    const node = await fleet.start();

    const levels = await node.get('/node/logging', { apiKey: null });
    assert.equal(levels.status, 200);
    const lines = levels.text.split('\n');
    assert.equal(lines[0], 'ROOT-INFO');
    assert.ok(lines.includes('api-INFO'), levels.text);

    // At INFO, a /debug/print message (logged at DEBUG) does not show.
    assert.equal((await node.post('/debug/print', { message: 'weft-e2e-before-marker' })).status, 200);
    await sleep(300);
    assert.ok(!node.output().includes('weft-e2e-before-marker'));

    const changed = await node.post('/node/logging', { logger: 'api', level: 'DEBUG' });
    assert.equal(changed.status, 200);
    assert.deepEqual(changed.json, { response: 'OK', api: 'DEBUG' });
    assert.ok((await node.get('/node/logging')).text.split('\n').includes('api-DEBUG'));

    assert.equal((await node.post('/debug/print', { message: 'weft-e2e-after-marker' })).status, 200);
    const line = await until(
      'the debug line in the node output',
      () =>
        node
          .output()
          .split('\n')
          .find((l) => l.includes('weft-e2e-after-marker')),
      5000,
    );
    const parsed = JSON.parse(line) as { level: number; module: string; msg: string };
    assert.equal(parsed.level, 20, 'pino debug');
    assert.equal(parsed.module, 'api');
    assert.equal(parsed.msg, 'weft-e2e-after-marker');
    assert.ok(!node.output().includes('weft-e2e-before-marker'));

    // Stop: refused without the key and with a wrong one; with it, the answer comes, then the process ends.
    for (const apiKey of [null, 'wrong']) {
      const r = await node.post('/node/stop', undefined, { apiKey });
      assert.equal(r.status, 403);
      assert.equal(r.json.error, 2);
    }
    assert.ok(node.running);
    const stop = await node.post('/node/stop', undefined);
    assert.equal(stop.status, 200);
    assert.deepEqual(stop.json, { stopped: true });
    await until('the node process to exit', () => (node.running ? undefined : true), 15_000);
    assert.equal(await node.stop(), 0, `exit code\n--- node output ---\n${node.output()}`);
    assert.match(node.output(), /node stopped/);
  });
});
