/**
 * Executable transactions on a dev node: a CreateContract or CallContract enters a block only
 * inside the ExecutedContract (105) that executed it, and WE's state records it there too —
 * `GET /transactions/info/{id}` of an executed 103/104 answers it with the 105's height, as
 * WE applications polling for their call expect, and the sender's address transactions list
 * it (not the 105), as WE's address index does. A call that failed (no 105) stays unknown.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import pino from 'pino';
import wabtInit from 'wabt';
import { devAccounts, devNodeConfig } from '../../src/cli/dev.js';
import { Node } from '../../src/node/node.js';
import { stringifyJson } from '../../src/protocol/json.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { callV7, createV7, timestampsFrom } from '../../devkit/contracts/engine.js';
import { REPO_ROOT } from '../../devkit/contracts/sdk-package.js';
import { tempDir } from '../../devkit/tmp.js';

const running: Node[] = [];
after(async () => {
  for (const n of running) await n.stop();
});

describe('executable transactions in /transactions/info', () => {
  it('an executed 103 and 104 are found, and listed for their sender, with the height of their 105; a call that ended in Error is not in the blockchain', async () => {
    const base = await devNodeConfig({ dataDir: tempDir('weft-executable-'), restPort: 0, p2pPort: 0, keystore: { scrypt: { N: 1024, r: 8, p: 1 } } });
    const node = await Node.start(base, { logger: pino({ level: 'silent' }) });
    running.push(node);
    const url = node.url!;
    const account = devAccounts(node.protocol)[0]!;
    const owner = account.keyPair;
    const m = (await wabtInit()).parseWat('counter.wat', readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'contracts', 'wasm', 'counter.wat'), 'utf8'), {
      multi_value: true,
    });
    const bytecode = Uint8Array.from(m.toBinary({}).buffer);
    m.destroy();

    timestampsFrom(BigInt(Date.now()));
    const create = createV7(
      { engine: 'wasm', bytecode, bytecodeHash: createHash('sha256').update(bytecode).digest('hex') },
      [{ key: 'start', type: 'integer', value: 1n }],
      owner,
    );
    const broadcast = async (tx: Transaction): Promise<void> => {
      const r = await fetch(`${url}/transactions/broadcast`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: stringifyJson(tx.toJson()),
      });
      assert.equal(r.status, 200, await r.text());
    };
    const status = async (tx: Transaction, wanted: string): Promise<void> => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const r = await fetch(`${url}/contracts/status/${tx.idBase58}`);
        const list = r.status === 200 ? ((await r.json()) as Array<{ status: string }>).map((s) => s.status) : [];
        if (list.includes(wanted)) return;
        assert.ok(Date.now() < deadline, `status ${wanted} of ${tx.idBase58}: ${list.join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    const get = async (path: string): Promise<{ status: number; json: Record<string, unknown> }> => {
      const r = await fetch(`${url}${path}`);
      return { status: r.status, json: (await r.json()) as Record<string, unknown> };
    };

    await broadcast(create);
    await status(create, 'Success');
    const call = callV7(create.id, 'wasm', 'increment', [{ key: 'by', type: 'integer', value: 2n }], [], owner);
    const failing = callV7(create.id, 'wasm', 'fail', [{ key: 'code', type: 'integer', value: 17n }], [], owner);
    await broadcast(call);
    await broadcast(failing);
    await status(call, 'Success');
    await status(failing, 'Error');

    for (const tx of [create, call]) {
      const executed = await get(`/contracts/executed-tx-for/${tx.idBase58}`);
      assert.equal(executed.status, 200);
      const executedInfo = await get(`/transactions/info/${executed.json['id'] as string}`);
      assert.equal(executedInfo.status, 200);
      const info = await get(`/transactions/info/${tx.idBase58}`);
      assert.equal(info.status, 200, JSON.stringify(info.json));
      assert.equal(info.json['id'], tx.idBase58);
      assert.equal(info.json['type'], tx.type);
      assert.equal(info.json['height'], executedInfo.json['height']);
      assert.deepEqual(info.json['proofs'], (executed.json['tx'] as Record<string, unknown>)['proofs']);
    }
    // The sender's transactions list the executed 104 and 103 (newest first) with their 105s'
    // heights, as WE's address index does (they paid the fees); a 105 touches no address of its
    // own here (no asset operations), so, as in WE, it is listed for none; the failed call is not there.
    const listed = await fetch(`${url}/transactions/address/${account.address}/limit/50`);
    assert.equal(listed.status, 200);
    const list = ((await listed.json()) as Array<Array<{ type: number; id: string; height: number }>>)[0]!;
    assert.deepEqual(
      list.filter((t) => t.type >= 103).map((t) => [t.type, t.id]),
      [
        [104, call.idBase58],
        [103, create.idBase58],
      ],
    );
    for (const t of list.filter((x) => x.type >= 103)) assert.equal(t.height, (await get(`/transactions/info/${t.id}`)).json['height']);
    const unknown = await get(`/transactions/info/${failing.idBase58}`);
    assert.deepEqual([unknown.status, unknown.json], [404, { status: 'error', details: 'Transaction is not in blockchain' }]);
  });
});
