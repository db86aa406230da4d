/**
 * P2P over TLS (`node.network.tls` with PEM files): two node processes with one self-signed
 * certificate (made with openssl; the test skips itself where openssl is missing) connect,
 * agree on one chain and confirm a transfer; a dialer speaking plain TCP gets no handshake.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createPeerTransport } from '../../src/network/transport.js';
import { devAccounts, devProtocol } from '../../src/cli/dev.js';
import { Devnet, oneChain, until } from '../../devkit/network.js';
import { signedTransfer } from '../support/transfers.js';
import { writeSelfSignedCertificate } from '../../devkit/tls.js';

describe('a network over TLS', { timeout: 90_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'weft-tls-net-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('two nodes with PEM files connect over TLS, confirm a transfer on both; plain TCP gets no handshake', async (t) => {
    const files = writeSelfSignedCertificate(dir, 'weft-devnet');
    if (files === undefined) {
      t.skip('openssl is not available');
      return;
    }
    const net = await Devnet.create({
      nodes: 2,
      roundDurationMs: 2000,
      syncDurationMs: 1000,
      microBlockIntervalMs: 500,
      tls: { ...files, caFile: files.certFile },
    });
    await net.startAll();
    const p = await devProtocol();
    try {
      await net.meshed(20_000);
      const [a, b] = net.nodes as [(typeof net.nodes)[0], (typeof net.nodes)[0]];
      const [from, to] = devAccounts(p) as [ReturnType<typeof devAccounts>[0], ReturnType<typeof devAccounts>[0]];
      const tx = signedTransfer(p, from, to, 4242n, BigInt(Date.now()));
      const sent = await b.post('/transactions/broadcast', tx.body);
      assert.equal(sent.status, 200, sent.text);
      await until(
        'the transfer confirmed on both nodes',
        async () => {
          for (const n of [a, b]) if ((await n.get(`/transactions/info/${tx.id}`)).status !== 200) return undefined;
          return true;
        },
        30_000,
        300,
      );
      await oneChain(net.nodes);

      // A registered participant (dev account 2, no node of its own) dialing without TLS: a
      // plain server would take its handshake; the TLS server closes the connection.
      const member = devAccounts(p)[2]!.keyPair;
      const plain = createPeerTransport({
        info: {
          chainId: p.chainId,
          version: [1, 14, 0],
          consensusType: 'PoA',
          declaredAddress: undefined,
          nonce: 5n,
          nodeName: 'plain',
          ownerAddress: p.addresses.fromPublicKey(member.publicKey).bytes,
        },
        sign: (m) => p.crypto.sign(member.privateKey, m),
        verify: (k, m, s) => p.crypto.verify(k, m, s),
        participantPublicKey: () => undefined,
        events: { onPeer() {}, onMessage() {}, onClose() {} },
        handshakeTimeoutMs: 3000,
        connectTimeoutMs: 3000,
      });
      try {
        await assert.rejects(plain.connect({ host: '127.0.0.1', port: a.spec.p2pPort }));
      } finally {
        await plain.close();
      }
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${net.outputs()}`, { cause: e });
    }
  });
});
