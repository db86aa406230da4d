/**
 * A configured node, the way an operator brings one up: `generate accounts` into a
 * keystore, a WE-style node.conf naming them, `generate genesis` to sign it, then
 * `start --config` with the owner's password in WE's environment variable. The node must
 * produce blocks and confirm a transaction signed by its keystore.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import { freePort, until } from './support.js';

const CLI = fileURLToPath(new URL('../../src/node/cli.js', import.meta.url));
const run = promisify(execFile);

describe('a node started from a WE-style config', () => {
  const dir = mkdtempSync(join(tmpdir(), 'weft-configured-'));
  const children: Array<ReturnType<typeof spawn>> = [];
  after(() => {
    for (const c of children) c.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('generates accounts and genesis, starts, mines and confirms a keystore-signed transfer', async () => {
    const keystore = join(dir, 'keystore.json');
    const generated = await run(process.execPath, [CLI, 'generate', 'accounts', '--keystore', keystore, '--chain-id', 'K', '--count', '2', '--password', 'owner secret', '--json']);
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
    await run(process.execPath, [CLI, 'generate', 'genesis', '--config', conf]);

    const child = spawn(process.execPath, [CLI, 'start', '--config', conf], {
      env: { ...process.env, WE_NODE_OWNER_PASSWORD: 'owner secret' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let log = '';
    child.stdout.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr.on('data', (d: Buffer) => (log += d.toString()));
    const url = `http://127.0.0.1:${restPort}`;
    const get = async (path: string): Promise<{ status: number; json: Record<string, unknown> }> => {
      const r = await fetch(url + path);
      return { status: r.status, json: (await r.json()) as Record<string, unknown> };
    };
    try {
      const height = await until('the node to serve and mine block 2', async () => {
        const r = await get('/blocks/height');
        return (r.json['height'] as number) >= 2 ? (r.json['height'] as number) : undefined;
      }, 30_000);
      assert.ok(height >= 2);
      const signed = await fetch(`${url}/transactions/signAndBroadcast`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 4, version: 3, sender: owner.address, password: 'owner secret', recipient: other.address, amount: 12345, fee: 1000000, attachment: '' }),
      });
      const tx = (await signed.json()) as Record<string, unknown>;
      assert.equal(signed.status, 200, JSON.stringify(tx));
      const info = await until('the transfer to be confirmed', async () => {
        const r = await get(`/transactions/info/${String(tx['id'])}`);
        return r.status === 200 ? r.json : undefined;
      }, 20_000);
      assert.equal(info['recipient'], other.address);
      assert.equal(info['amount'], 12345);
      const first = await get('/blocks/first');
      assert.equal(first.json['generator'] === undefined, false);
      assert.equal((first.json['transactions'] as unknown[]).length, 2 + 2 + 4);
    } catch (e) {
      throw new Error(`${(e as Error).message}\n--- node output ---\n${log.slice(-3000)}`, { cause: e });
    }
  });
});
