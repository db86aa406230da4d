/**
 * A configured node, the way an operator brings one up: `generate accounts` into a
 * keystore, a WE-style node.conf naming them, `generate genesis` to sign it, then
 * `start --config` with the owner's password in WE's environment variable. The node must
 * produce blocks and confirm a transaction signed by its keystore.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { confirmedTransfer, runCli, startConfiguredNode, untilHeight } from './configured.js';
import { freePort } from './support.js';

describe('a node started from a WE-style config', () => {
  const dir = mkdtempSync(join(tmpdir(), 'weft-configured-'));
  const children: ChildProcess[] = [];
  after(() => {
    for (const c of children) c.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('generates accounts and genesis, starts, mines and confirms a keystore-signed transfer', async () => {
    const keystore = join(dir, 'keystore.json');
    const generated = await runCli(['generate', 'accounts', '--keystore', keystore, '--chain-id', 'K', '--count', '2', '--password', 'owner secret', '--json']);
    const accounts = (JSON.parse(generated.stdout) as { accounts: Array<{ address: string; publicKey: string }> }).accounts;
    assert.equal(accounts.length, 2);
    const [owner, other] = accounts as [{ address: string; publicKey: string }, { address: string; publicKey: string }];
    const restPort = await freePort();
    const conf = join(dir, 'node.conf');
    writeFileSync(
      conf,
      `node {
  owner-address = "${owner.address}"
  directory = "${dir}"
  data-directory = "${join(dir, 'data')}"
  wallet { file = "${keystore}", password = "unused" }
  blockchain {
    type = CUSTOM
    consensus { type = poa, round-duration = 3s, sync-duration = 1s, ban-duration-blocks = 100, warnings-for-ban = 3, max-bans-percentage = 40 }
    custom {
      address-scheme-character = "K"
      functionality {
        feature-check-blocks-period = 2
        blocks-for-feature-activation = 1
        pre-activated-features = { 2 = 0, 3 = 0, 4 = 0, 5 = 0, 6 = 0, 7 = 0, 9 = 0, 10 = 0, 120 = 0, 140 = 0, 160 = 0, 1122 = 0 }
      }
      genesis {
        average-block-delay: 60s
        initial-base-target: 153722867
        block-timestamp: 1700000000000
        initial-balance: 1000000 WEST
        genesis-public-key-base-58: ""
        signature: ""
        transactions = [
          { recipient: "${owner.address}", amount: 990000 WEST },
          { recipient: "${other.address}", amount: 10000 WEST }
        ]
        network-participants = [
          { public-key: "${owner.publicKey}", roles: [permissioner, miner, connection_manager, issuer] },
          { public-key: "${other.publicKey}", roles: [] }
        ]
      }
    }
  }
  # quorum 0: this one node forges without any miner peer (WE's default quorum is 1).
  miner { micro-block-interval = 500ms, quorum = 0 }
  api {
    rest { port = ${restPort}, bind-address = "127.0.0.1" }
    auth { type = "api-key", api-key-hash = "AWUhyXUX6Jam852Gy1DibK7wYNXSMbhtDsKzribM6iLR", privacy-api-key-hash = "AWUhyXUX6Jam852Gy1DibK7wYNXSMbhtDsKzribM6iLR", confidential-contracts-api-key-hash = "AWUhyXUX6Jam852Gy1DibK7wYNXSMbhtDsKzribM6iLR" }
  }
  network { port = ${await freePort()}, bind-address = "127.0.0.1" }
}
`,
    );
    await runCli(['generate', 'genesis', '--config', conf]);

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
