/**
 * Certificates a peer's micro-block brings (P2P 47) on a real 2-node GOST devnet in PKI mode
 * TEST, where the nodes judge one chain differently: node 0 runs without CRL checks, node 1
 * with them (`crl-checks-enabled = true`, node config), and the test CA's CRL distribution
 * point cannot be reached. A newcomer's first transaction, broadcast to node 0 with its
 * chain, is admitted there and mined; node 1 refuses the transaction from the pool (46: no
 * CRL can be had) and, when node 0's micro-block mining it arrives with the chain (47), takes
 * the micro-block — its transactions are valid — but not the certificates its policy refuses:
 * node 0 finds the newcomer's certificate, node 1 does not.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeBase58, encodeBase58 } from '../../src/crypto/encoding.js';
import { fingerprint } from '../../src/crypto/pki/x509.js';
import { stringifyJson } from '../../src/protocol/json.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { Transfer } from '../../src/protocol/transactions/transfer.js';
import { GostTestCa } from '../../devkit/pki/openssl-gost.js';
import { Devnet, until } from '../../devkit/network.js';

let net: Devnet;
let ca: GostTestCa;

describe('certificates of a micro-block on a 2-node GOST devnet whose nodes check CRLs differently', { timeout: 180_000 }, () => {
  after(async () => {
    await net?.dispose();
    ca?.dispose();
  });

  before(async () => {
    net = await Devnet.create({ nodes: 2, crypto: 'gost', roundDurationMs: 3000, syncDurationMs: 1000, microBlockIntervalMs: 500, register: false });
    process.once('exit', () => net.killAll());
    ca = GostTestCa.root('/C=RU/O=Weft Test/CN=Weft Block Certificates Root', 'http://127.0.0.1:9/root.crl');
    for (const n of net.nodes) {
      await n.editConfig((node) => {
        const crypto = node['crypto'] as Record<string, unknown>;
        crypto['pki'] = { ...(crypto['pki'] as object), mode: 'TEST', 'crl-checks-enabled': n.index === 1 };
        const custom = (node['blockchain'] as { custom: { genesis: Record<string, unknown> } }).custom;
        custom.genesis['pki'] = {
          'trusted-root-fingerprints': [Buffer.from(fingerprint(ca.cert.der)).toString('hex')],
          certificates: [ca.cert.base64],
          crls: [],
        };
      });
    }
    try {
      await net.startAll(45_000);
      await net.meshed(25_000);
      await until(
        'height 3 on both nodes',
        async () => ((await Promise.all(net.nodes.map((n) => n.height()))).every((h) => h >= 3) ? true : undefined),
        40_000,
      );
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${net.outputs()}`, { cause: e });
    }
  });

  it('stores the chain on the node whose policy admits it and not on the node whose policy refuses it, both taking the block', async () => {
    const [n0, n1] = net.nodes as [(typeof net.nodes)[number], (typeof net.nodes)[number]];
    const p = await Protocol.create({ crypto: 'gost', chainId: 'T' });
    const newcomer = net.layout.accounts[4]!;
    const keys = p.crypto.keyPairFromSeedPhrase(newcomer.seed);
    assert.equal(encodeBase58(keys.publicKey), newcomer.publicKey);
    const issued = ca.issue({ subject: '/C=RU/O=Weft Test/CN=Newcomer Of Block', publicKey: decodeBase58(newcomer.publicKey) });
    const tx = p.sign(
      p.transaction(Transfer, 3, {
        senderPublicKey: keys.publicKey,
        assetId: null,
        feeAssetId: null,
        timestamp: BigInt(Date.now()),
        amount: 1000n,
        fee: 1_000_000n,
        recipient: p.addresses.parseAddress(net.layout.accounts[1]!.address),
        attachment: new Uint8Array(0),
        atomicBadge: null,
      }),
      keys.privateKey,
    );
    const body = stringifyJson({ ...tx.toJson(), certificates: [issued.base64, ca.cert.base64] });
    // Node 1 checks the chain's CRLs, which cannot be had.
    const refused = await n1.post('/transactions/broadcast', body);
    assert.equal(refused.status, 400, refused.text);
    assert.match(String((refused.json as { message: string }).message), /no CRL of 'CN=Weft Block Certificates Root/);
    const admitted = await n0.post('/transactions/broadcast', body);
    assert.equal(admitted.status, 200, admitted.text);
    await until(
      'the transfer confirmed on both nodes',
      async () => {
        for (const n of net.nodes) if ((await n.get(`/transactions/info/${tx.idBase58}`)).status !== 200) return undefined;
        return true;
      },
      40_000,
      300,
    );
    const lookup = `/pki/certificate/by-public-key/${newcomer.publicKey}`;
    assert.equal((await n0.get(lookup)).status, 200, 'node 0 stored the certificate');
    const onNode1 = await n1.get(lookup);
    assert.equal(onNode1.status, 404, `node 1 did not store the certificate its policy refused: ${onNode1.text}`);
    assert.equal((onNode1.json as { error: number }).error, 119);
  });
});
