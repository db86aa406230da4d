/**
 * Anchoring in the node: `/anchoring/config` as WE answers it, the progress file, and the
 * start-up failures of a target wallet that cannot give the key (WE's "Anchoring
 * initialization error").
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import pino from 'pino';
import type { AnchoringSettings } from '../../src/anchoring/settings.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { anchoringConfigAnswer, createNodeAnchoring, fileProgressStore, type NodeAnchoringDeps } from '../../src/node/anchoring-wiring.js';
import { devNodeConfig } from '../../src/cli/dev.js';
import { Keystore } from '../../src/keystore/keystore.js';
import { tempDir } from '../../devkit/tmp.js';

const target = await Protocol.create({ crypto: 'waves', chainId: 'K' });
const targetKey = target.crypto.keyPairFromSeedPhrase('wiring test target key');
const targetAddress = target.addresses.fromPublicKey(targetKey.publicKey).toString();

function settings(file: string, password: string | undefined): AnchoringSettings {
  return {
    heightRange: 10,
    heightAbove: 4,
    threshold: 3,
    targetnet: {
      auth: { type: 'api-key' },
      schemeByte: 'K',
      nodeAddress: 'http://127.0.0.1:1',
      nodeRecipientAddress: targetAddress,
      privateKeyPassword: password,
      wallet: { file, password: '' },
      fee: 500_000n,
    },
    sidechainFee: 700_000n,
    txMiningCheckDelayMs: 5000,
    txMiningCheckCount: 20,
    retryDelayMs: 5000,
    heightPollIntervalMs: 30_000,
  };
}

const dev = await devNodeConfig({ dataDir: tempDir('weft-wiring-'), keystore: { scrypt: { N: 1024, r: 8, p: 1 } } });

describe('GET /anchoring/config body', () => {
  it("WE's fields when enabled — the settings, never the auth, wallet or pacing — and enabled: false otherwise", () => {
    assert.deepEqual(anchoringConfigAnswer(dev), { enabled: false });
    assert.deepEqual(anchoringConfigAnswer({ ...dev, anchoring: settings('/w.json', 'pw') }), {
      enabled: true,
      currentChainOwnerAddress: dev.node.ownerAddress.toString(),
      targetnetNodeAddress: 'http://127.0.0.1:1',
      targetnetSchemeByte: 'K',
      targetnetRecipientAddress: targetAddress,
      targetnetFee: 500_000n,
      currentChainFee: 700_000n,
      heightRange: 10,
      heightAbove: 4,
      threshold: 3,
    });
  });
});

describe('the progress file', () => {
  it('nothing before the first save; what was saved after; a damaged file is refused with its name', () => {
    const file = join(tempDir('weft-progress-'), 'anchoring-progress.json');
    const store = fileProgressStore(file);
    assert.deepEqual(store.load(), { lastHeight: 0, round: undefined, writeBacks: [] });
    const saved = { lastHeight: 42, round: undefined, writeBacks: [{ height: 40, bytes: new Uint8Array([1, 2, 3]) }] };
    store.save(saved);
    assert.deepEqual(fileProgressStore(file).load(), saved);
    writeFileSync(file, '{"format":');
    assert.throws(
      () => store.load(),
      (e: Error) => e.message.startsWith(`Anchoring initialization error: ${file} cannot be read`),
    );
  });
});

describe('the target key at start', () => {
  const depsWith = (anchoring: AnchoringSettings | undefined): NodeAnchoringDeps =>
    ({ config: { ...dev, ...(anchoring === undefined ? {} : { anchoring }) }, now: () => 0n, log: pino({ level: 'silent' }) }) as unknown as NodeAnchoringDeps;

  it('a missing wallet file, an unknown address, a wrong password: the node does not start, and says why', async () => {
    const dir = tempDir('weft-target-wallet-');
    const file = join(dir, 'targetnet.json');
    await assert.rejects(
      createNodeAnchoring(depsWith(settings(file, 'pw'))),
      new Error(`Anchoring initialization error: the targetnet wallet file '${file}' does not exist`),
    );
    const other = target.crypto.keyPairFromSeedPhrase('another key');
    Keystore.open(file, target.addresses, { scrypt: { N: 1024, r: 8, p: 1 } }).addKeyPair(other, 'pw');
    await assert.rejects(
      createNodeAnchoring(depsWith(settings(file, 'pw'))),
      /^Error: Anchoring initialization error: failed to get targetnet KeyPair for '\w+' from '.+targetnet\.json': /,
    );
    Keystore.open(file, target.addresses, { scrypt: { N: 1024, r: 8, p: 1 } }).addKeyPair(targetKey, 'right');
    await assert.rejects(createNodeAnchoring(depsWith(settings(file, 'wrong'))), /failed to get targetnet KeyPair/);
  });

  it('no anchoring configured: nothing to build', async () => {
    assert.equal(await createNodeAnchoring(depsWith(undefined)), undefined);
  });
});
