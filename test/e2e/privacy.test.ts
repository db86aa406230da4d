/**
 * Confidential data on a dev node process with its default embedded storage, over HTTP:
 * the storage suite (privacy-suite.ts: the three send routes read back byte-identical — a
 * 100 MB item streamed in and out — and every bad input of the send routes), then a node killed
 * with SIGKILL in the middle of a large upload: after the restart no part of that item is
 * visible or left on disk, and what was stored before is intact.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DEV_API_KEY } from '../../src/cli/dev.js';
import { generatedData } from '../../devkit/multipart.js';
import { until } from '../../devkit/wait.js';
import { download, hashOfSource, PrivacyClient, type PrivacyTarget } from '../../devkit/privacy-client.js';
import { privacyNodeSuite } from './privacy-suite.js';
import { NodeFleet, type DevNode } from './support.js';

const MB = 1_000_000;
const fleet = new NodeFleet();
const dataDir = fleet.tempDir('weft-e2e-privacy-');
let node: DevNode | undefined;

/** Starts (or restarts) the node on the data directory. */
const startNode = (): Promise<DevNode> => fleet.start(dataDir);

function targetOf(n: DevNode): PrivacyTarget {
  const accounts = (JSON.parse(readFileSync(join(dataDir, 'dev-accounts.json'), 'utf8')) as { accounts: Array<{ address: string; keystorePassword: string }> })
    .accounts;
  return {
    url: n.url,
    apiKey: DEV_API_KEY,
    owner: { address: accounts[0]!.address, password: accounts[0]!.keystorePassword },
    other: { address: accounts[1]!.address, password: accounts[1]!.keystorePassword },
  };
}

describe('confidential data on a dev node (embedded storage)', { timeout: 600_000 }, () => {
  it('starts a dev node', async () => {
    node = await startNode();
  });

  privacyNodeSuite(() => targetOf(node!), 100 * MB);

  it('keeps no trace of a large upload cut by SIGKILL, and everything stored before it', async () => {
    const client = new PrivacyClient(targetOf(node!));
    const policyId = await client.createPolicy();
    const kept = generatedData(3 * MB, 7);
    const keptHash = await hashOfSource(kept);
    assert.equal((await client.sendLargeData(policyId, keptHash, kept)).status, 200);
    const huge = generatedData(2000 * MB, 9);
    // The hash does not matter: the node dies long before the end.
    const hugeHash = keptHash.replace(/.$/, (c) => (c === '1' ? '2' : '1'));
    const uploading = client.sendLargeData(policyId, hugeHash, huge).catch((e: unknown) => e);
    const incoming = join(dataDir, 'data', 'privacy', 'incoming');
    await until(
      'part of the upload to be on disk',
      () => {
        const parts = existsSync(incoming) ? readdirSync(incoming) : [];
        return parts.some((f) => statSync(join(incoming, f)).size > 20 * MB) ? true : undefined;
      },
      120_000,
      50,
    );
    node!.kill();
    await node!.waitForExit();
    assert.ok((await uploading) instanceof Error, 'the upload broke off');

    node = await startNode();
    const after = new PrivacyClient(targetOf(node));
    assert.deepEqual(readdirSync(incoming), [], 'the partial upload is gone');
    assert.deepEqual(
      readdirSync(join(dataDir, 'data', 'privacy', 'large')).filter((f) => f.includes(hugeHash)),
      [],
      'no file of the cut item',
    );
    assert.equal((await after.get(`/privacy/${policyId}/getInfo/${hugeHash}`)).json?.error, 617, 'the cut item is not visible');
    const back = await download(after.target, `/privacy/${policyId}/getLargeData/${keptHash}`);
    assert.deepEqual([back.status, back.bytes, back.hash], [200, 3 * MB, keptHash], 'the item stored before is intact');
  });
});
