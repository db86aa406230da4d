/**
 * A GOST network end to end: three node processes of `devnet --crypto gost` (Streebog-256
 * hashes and addresses, GOST R 34.10-2012 signatures on blocks, micro-blocks and handshakes)
 * driven by the official client in its GOST mode (the factory of js-sdk 3.4.7 over
 * signature-generator 2.3.2 with `crypto: 'gost'`), exactly as a client application would:
 *
 * - the nodes mesh (signed GOST handshakes checked against the genesis participants) and
 *   forge blocks on one chain;
 * - the client's accounts are the node's accounts (same seeds → same 64-byte keys and
 *   Streebog addresses);
 * - transfers the client signs, sent to different nodes, are confirmed on every node with
 *   the id the client computed, and every node holds the same balances;
 * - /utils/hash/secure and /utils/hash/fast answer Streebog-256, /node/config says GOST.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { createGostSuite } from '../../src/crypto/gost.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { Devnet, oneChain, until, type NetNode } from '../support/network.js';

const require = createRequire(import.meta.url);
const sdkDir = require.resolve('@wavesenterprise/js-sdk/package.json').replace(/\/package\.json$/, '');
/* eslint-disable @typescript-eslint/no-explicit-any */
const factory: any = require(`${sdkDir}/node_modules/@wavesenterprise/transactions-factory`);
const generator: any = require(`${sdkDir}/node_modules/@wavesenterprise/signature-generator`);
/* eslint-enable @typescript-eslint/no-explicit-any */

const CHAIN_ID = 'T'.charCodeAt(0);
const NODES = 3;

let net: Devnet;

/** A GOST key pair of the client for a seed phrase. */
function clientSeed(phrase: string): { publicKey: string; privateKey: string; address: string } {
  generator.config.set({ networkByte: CHAIN_ID, crypto: 'gost' });
  const seed = generator.Seed.fromExistingPhrase(phrase);
  return { publicKey: seed.keyPair.publicKey, privateKey: seed.keyPair.privateKey, address: seed.address };
}

/** A Transfer V3 signed by the client in GOST mode: its JSON and the id the client computed. */
async function clientTransfer(from: { publicKey: string; privateKey: string }, recipient: string, amount: number, timestamp: number): Promise<{ id: string; json: Record<string, unknown> }> {
  generator.config.set({ networkByte: CHAIN_ID, crypto: 'gost' });
  const tx = factory.TRANSACTIONS.Transfer.V3({ recipient, assetId: '', feeAssetId: '', amount, fee: 1_000_000, timestamp, attachment: '', atomicBadge: null });
  const json = await tx.getSignedTx({ publicKey: from.publicKey, privateKey: from.privateKey });
  return { id: await tx.getId(), json };
}

async function balance(node: NetNode, address: string): Promise<bigint> {
  const r = await node.get(`/addresses/balance/${address}`);
  assert.equal(r.status, 200, r.text);
  return BigInt((r.json as { balance: number }).balance);
}

describe('a GOST network of 3 node processes', { timeout: 150_000 }, () => {
  after(() => net?.dispose());
  before(async () => {
    net = await Devnet.create({ nodes: NODES, crypto: 'gost', roundDurationMs: 3000, syncDurationMs: 1000, microBlockIntervalMs: 500, register: false });
    process.once('exit', () => net.killAll());
    try {
      await net.startAll(45_000);
      await net.meshed(25_000);
      await until('height 3 on every node', async () => ((await Promise.all(net.nodes.map((n) => n.height()))).every((h) => h >= 3) ? true : undefined), 40_000);
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${net.outputs()}`, { cause: e });
    }
  });

  it('runs on GOST crypto: /node/config, Streebog hashes, 64-byte keys and the client derives the same accounts', async () => {
    const [n0] = net.nodes as [NetNode];
    const config = (await n0.get('/node/config')).json as { cryptoType: string };
    assert.equal(config.cryptoType, 'GOST');
    const suite = await createGostSuite();
    const message = 'GOST network';
    const expected = encodeBase58(suite.secureHash(Buffer.from(message, 'utf8')));
    for (const path of ['/utils/hash/secure', '/utils/hash/fast']) {
      const r = await n0.request('POST', path, message, { contentType: 'text/plain' });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.json, { message, hash: expected });
    }
    for (const account of net.layout.accounts) {
      const client = clientSeed(account.seed);
      assert.equal(client.address, account.address);
      assert.equal(client.publicKey, account.publicKey);
    }
    // Every node's owner key is a 64-byte GOST key; the peers know each other by it.
    const peers = await n0.connectedPeers();
    assert.deepEqual(peers.map((x) => x.nodeOwnerAddress).sort(), net.nodes.slice(1).map((n) => n.spec.ownerAddress).sort());
  });

  it('confirms transfers the official GOST client signs on every node, on one chain', async () => {
    const sender = clientSeed(net.layout.accounts[0]!.seed);
    const recipients = net.layout.accounts.slice(1, 4).map((a) => a.address);
    const before = await Promise.all(recipients.map((a) => balance(net.nodes[0]!, a)));
    const sent: string[] = [];
    const start = Date.now();
    for (let i = 0; i < 6; i++) {
      const t = await clientTransfer(sender, recipients[i % recipients.length]!, 1_000_000 * (i + 1), start + i);
      const node = net.nodes[i % NODES]!;
      const r = await node.post('/transactions/broadcast', t.json);
      assert.equal(r.status, 200, `broadcast to ${node.spec.name}: ${r.text}`);
      assert.equal((r.json as { id: string }).id, t.id, 'the node computes the id the GOST client computed');
      sent.push(t.id);
    }
    await until(
      'the transfers confirmed on every node',
      async () => {
        for (const n of net.nodes) for (const id of sent) if ((await n.get(`/transactions/info/${id}`)).status !== 200) return undefined;
        return true;
      },
      40_000,
      300,
    );
    const expected = recipients.map((_, r) => before[r]! + [0, 1, 2, 3, 4, 5].filter((i) => i % recipients.length === r).reduce((sum, i) => sum + 1_000_000n * BigInt(i + 1), 0n));
    for (const n of net.nodes) {
      assert.deepEqual(await Promise.all(recipients.map((a) => balance(n, a))), expected, `balances on ${n.spec.name}`);
    }
    const common = await oneChain(net.nodes, 30_000);
    assert.ok(common >= 2);
  });
});
