/**
 * A configured node, the way an operator brings one up: `generate accounts` into a
 * keystore, a WE-style node.conf naming them, `generate genesis` to sign it, then
 * `start --config` with the owner's password in WE's environment variable. The node must
 * produce blocks and confirm a transaction signed by its keystore.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { confirmedTransfer, prepareConfiguredNode, startConfiguredNode, untilHeight } from './configured.js';

describe('a node started from a WE-style config', () => {
  const dir = mkdtempSync(join(tmpdir(), 'weft-configured-'));
  const children: ChildProcess[] = [];
  after(() => {
    for (const c of children) c.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('generates accounts and genesis, starts, mines and confirms a keystore-signed transfer', async () => {
    const { accounts, owner, other, conf, restPort } = await prepareConfiguredNode(dir, {
      chainId: 'K',
      consensus: 'type = poa, round-duration = 3s, sync-duration = 1s, ban-duration-blocks = 100, warnings-for-ban = 3, max-bans-percentage = 40',
      preActivatedFeatures: [2, 3, 4, 5, 6, 7, 9, 10, 120, 140, 160, 1122],
      averageBlockDelay: '60s',
      ownerRoles: ['permissioner', 'miner', 'connection_manager', 'issuer'],
    });
    assert.equal(accounts.length, 2);

    const node = startConfiguredNode(conf, restPort, 'owner secret');
    children.push(node.child);
    try {
      const height = await untilHeight(node, 2, 'the node to serve and mine block 2');
      assert.ok(height >= 2);
      const info = await confirmedTransfer(node, { sender: owner.address, password: 'owner secret', recipient: other.address, amount: 12345 });
      assert.equal(info['recipient'], other.address);
      assert.equal(info['amount'], 12345);
      const first = await node.get('/blocks/first');
      assert.equal(first.json['generator'] === undefined, false);
      assert.equal((first.json['transactions'] as unknown[]).length, 2 + 2 + 4);
    } catch (e) {
      throw new Error(`${(e as Error).message}\n--- node output ---\n${node.output().slice(-3000)}`, { cause: e });
    }
  });
});
