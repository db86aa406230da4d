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
 * - /utils/hash/secure and /utils/hash/fast answer Streebog-256, /node/config says GOST;
 * - /crypto with gost-3412-2015-k between nodes: node 0's owner encrypts (separately and
 *   commonly) for the other owners' keys, each other node decrypts as its owner;
 * - PKI in TEST mode (a test CA made by OpenSSL's GOST engine is the genesis' trusted root;
 *   the client's sender is certified in the genesis): a newcomer's first transaction without
 *   certificates is refused (120); with its chain, broadcast to one node, it travels to the
 *   others with the chain (P2P 46/47), is mined, and every node then finds the certificate by
 *   DN, DN hash, public key and fingerprint.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { createGostSuite } from '../../src/crypto/gost.js';
import { decodeBase58, decodeBase64, encodeBase58, encodeBase64 } from '../../src/crypto/encoding.js';
import { dnHash, fingerprint, parseCertificate } from '../../src/crypto/pki/x509.js';
import { GostTestCa, type Issued } from '../../devkit/pki/openssl-gost.js';
import { Devnet, oneChain, until, type NetNode } from '../../devkit/network.js';

const require = createRequire(import.meta.url);
const sdkDir = require.resolve('@wavesenterprise/js-sdk/package.json').replace(/\/package\.json$/, '');
/* eslint-disable @typescript-eslint/no-explicit-any */
const factory: any = require(`${sdkDir}/node_modules/@wavesenterprise/transactions-factory`);
const generator: any = require(`${sdkDir}/node_modules/@wavesenterprise/signature-generator`);
/* eslint-enable @typescript-eslint/no-explicit-any */

const CHAIN_ID = 'T'.charCodeAt(0);
const NODES = 3;

let net: Devnet;
let ca: GostTestCa;
/** The certificate of the client's sender (account 0), in the genesis. */
let senderCert: Issued;

/** A GOST key pair of the client for a seed phrase. */
function clientSeed(phrase: string): { publicKey: string; privateKey: string; address: string } {
  generator.config.set({ networkByte: CHAIN_ID, crypto: 'gost' });
  const seed = generator.Seed.fromExistingPhrase(phrase);
  return { publicKey: seed.keyPair.publicKey, privateKey: seed.keyPair.privateKey, address: seed.address };
}

/** A Transfer V3 signed by the client in GOST mode: its JSON and the id the client computed. */
async function clientTransfer(
  from: { publicKey: string; privateKey: string },
  recipient: string,
  amount: number,
  timestamp: number,
): Promise<{ id: string; json: Record<string, unknown> }> {
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

describe('a GOST network of 3 node processes', { timeout: 240_000 }, () => {
  after(async () => {
    await net?.dispose();
    ca?.dispose();
  });
  before(async () => {
    net = await Devnet.create({ nodes: NODES, crypto: 'gost', roundDurationMs: 3000, syncDurationMs: 1000, microBlockIntervalMs: 500, register: false });
    process.once('exit', () => net.killAll());
    // PKI TEST on every node: the test CA is the trusted root, account 0 is certified in the genesis.
    ca = GostTestCa.root('/C=RU/O=Weft Test/CN=Weft GOST Network Root', 'http://127.0.0.1:9/root.crl');
    senderCert = ca.issue({ subject: '/C=RU/O=Weft Test/CN=Client Sender', publicKey: decodeBase58(net.layout.accounts[0]!.publicKey) });
    for (const n of net.nodes) {
      await n.editConfig((node) => {
        const crypto = node['crypto'] as Record<string, unknown>;
        crypto['pki'] = { ...(crypto['pki'] as object), mode: 'TEST' };
        const custom = (node['blockchain'] as { custom: { genesis: Record<string, unknown> } }).custom;
        custom.genesis['pki'] = {
          'trusted-root-fingerprints': [Buffer.from(fingerprint(ca.cert.der)).toString('hex')],
          certificates: [ca.cert.base64, senderCert.base64],
          crls: [],
        };
      });
    }
    try {
      await net.startAll(45_000);
      await net.meshed(25_000);
      await until(
        'height 3 on every node',
        async () => ((await Promise.all(net.nodes.map((n) => n.height()))).every((h) => h >= 3) ? true : undefined),
        40_000,
      );
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
    assert.deepEqual(
      peers.map((x) => x.nodeOwnerAddress).sort(),
      net.nodes
        .slice(1)
        .map((n) => n.spec.ownerAddress)
        .sort(),
    );
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
    const expected = recipients.map(
      (_, r) => before[r]! + [0, 1, 2, 3, 4, 5].filter((i) => i % recipients.length === r).reduce((sum, i) => sum + 1_000_000n * BigInt(i + 1), 0n),
    );
    for (const n of net.nodes) {
      assert.deepEqual(await Promise.all(recipients.map((a) => balance(n, a))), expected, `balances on ${n.spec.name}`);
    }
    const common = await oneChain(net.nodes, 30_000);
    assert.ok(common >= 2);
  });

  it("encrypts on one node with gost-3412-2015-k what the other nodes' owners decrypt", async () => {
    const [n0, ...others] = net.nodes as [NetNode, ...NetNode[]];
    const text = 'GOST между узлами';
    const encrypt = (route: string) =>
      n0.post(`/crypto/${route}`, {
        sender: n0.spec.ownerAddress,
        password: n0.spec.keystorePassword,
        encryptionText: text,
        recipientsPublicKeys: others.map((o) => o.spec.ownerPublicKey),
        cryptoAlgo: 'gost-3412-2015-k',
      });
    const decrypt = (n: NetNode, encryptedText: string, wrappedKey: string) =>
      n.post('/crypto/decrypt', {
        recipient: n.spec.ownerAddress,
        password: n.spec.keystorePassword,
        encryptedText,
        wrappedKey,
        senderPublicKey: n0.spec.ownerPublicKey,
        cryptoAlgo: 'gost-3412-2015-k',
      });
    const separate = await encrypt('encryptSeparate');
    assert.equal(separate.status, 200, separate.text);
    const entries = separate.json as Array<{ encryptedText: string; wrappedKey: string }>;
    const common = await encrypt('encryptCommon');
    assert.equal(common.status, 200, common.text);
    const { encryptedText, recipientToWrappedStructure } = common.json as { encryptedText: string; recipientToWrappedStructure: Record<string, string> };
    for (const [i, n] of others.entries()) {
      assert.deepEqual((await decrypt(n, entries[i]!.encryptedText, entries[i]!.wrappedKey)).json, { decryptedText: text }, `${n.spec.name}, separate`);
      assert.deepEqual(
        (await decrypt(n, encryptedText, recipientToWrappedStructure[n.spec.ownerPublicKey]!)).json,
        { decryptedText: text },
        `${n.spec.name}, common`,
      );
    }
  });

  it("refuses a newcomer's first transaction without its chain, and with it mines the transaction and stores the certificate on every node", async () => {
    const newcomer = net.layout.accounts[4]!;
    const client = clientSeed(newcomer.seed);
    const [n0, n1] = net.nodes as [NetNode, NetNode];
    const bare = await clientTransfer(client, net.layout.accounts[1]!.address, 1_000, Date.now());
    const refused = await n1.post('/transactions/broadcast', bare.json);
    assert.equal(refused.status, 400, refused.text);
    assert.equal((refused.json as { error: number }).error, 120, refused.text);

    const issued = ca.issue({ subject: '/C=RU/O=Weft Test/CN=Newcomer', publicKey: decodeBase58(newcomer.publicKey), eku: ['clientAuth'] });
    const t = await clientTransfer(client, net.layout.accounts[1]!.address, 2_000, Date.now() + 1);
    const r = await n0.post('/transactions/broadcast', { ...t.json, certificates: [issued.base64, ca.cert.base64] });
    assert.equal(r.status, 200, r.text);
    await until(
      'the transfer confirmed on every node',
      async () => {
        for (const n of net.nodes) if ((await n.get(`/transactions/info/${t.id}`)).status !== 200) return undefined;
        return true;
      },
      40_000,
      300,
    );
    const subject = parseCertificate(issued.der).subject.rfc2253;
    assert.equal(subject, 'CN=Newcomer,O=Weft Test,C=RU');
    const paths = [
      `/pki/certificate/by-dn/${encodeURIComponent(subject)}`,
      `/pki/certificate/by-dn-hash/${Buffer.from(dnHash(subject)).toString('hex')}`,
      `/pki/certificate/by-public-key/${newcomer.publicKey}`,
      `/pki/certificate/by-fingerprint/${encodeURIComponent(encodeBase64(fingerprint(issued.der)))}`,
    ];
    for (const n of net.nodes) {
      for (const path of paths) {
        const found = await n.get(path);
        assert.equal(found.status, 200, `${n.spec.name} ${path}: ${found.text}`);
        assert.deepEqual(Buffer.from(decodeBase64(found.text)), issued.der, `${n.spec.name} ${path}`);
      }
    }
    // Certified now on every node: its next transaction, sent to another node, needs no chain.
    const next = await clientTransfer(client, net.layout.accounts[1]!.address, 3_000, Date.now() + 2);
    const accepted = await net.nodes[2]!.post('/transactions/broadcast', next.json);
    assert.equal(accepted.status, 200, accepted.text);
  });
});
