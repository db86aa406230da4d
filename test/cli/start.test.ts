/**
 * What `start --config FILE` resolves to: the file's settings with the command-line overrides,
 * and the owner's keystore password as WE's node obtains it (environment, else console).
 */
import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { Protocol } from '../../src/protocol/protocol.js';
import { generateGenesis } from '../../src/cli/cli.js';
import { Keystore } from '../../src/keystore/keystore.js';
import { resolveStartConfig, type StartIo } from '../../src/cli/start.js';
import { tempDir } from '../../devkit/tmp.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/node-example.conf', import.meta.url));
const OWNER_SEED = 'weft config fixture node 0';
const protocol = await Protocol.create({ crypto: 'waves', chainId: 'E' });

/** A signed copy of the fixture whose wallet is a keystore holding the owner with `password`. */
async function nodeDir(ownerPassword: string | null): Promise<{ dir: string; file: string }> {
  const dir = tempDir('weft-start-');
  const file = join(dir, 'node.conf');
  copyFileSync(FIXTURE, file);
  await generateGenesis(file);
  appendFileSync(file, `\nnode.wallet.file = "${join(dir, 'keystore.json')}"\n`);
  const ks = Keystore.open(join(dir, 'keystore.json'), protocol.addresses, { scrypt: { N: 1024, r: 8, p: 1 } });
  if (ownerPassword !== null) ks.addKeyPair(protocol.crypto.keyPairFromSeedPhrase(OWNER_SEED), ownerPassword);
  return { dir, file };
}

const io = (env: Record<string, string>, askSecret?: (prompt: string) => Promise<string>): StartIo => ({ env, askSecret, out: () => undefined });

describe('start --config', () => {
  it('applies --data-dir, --rest-port and --p2p-port over the file', async () => {
    const { dir, file } = await nodeDir('owner-pw');
    const { config, dev } = await resolveStartConfig(
      { config: file, dataDir: join(dir, 'state'), restPort: 16862, p2pPort: 16864 },
      io({ WE_NODE_OWNER_PASSWORD: 'owner-pw' }),
    );
    assert.equal(dev, false);
    assert.equal(config.source, file);
    assert.equal(config.node.dataDirectory, join(dir, 'state'));
    assert.equal(config.api.port, 16862);
    assert.equal(config.network.port, 16864);
    assert.equal(config.node.ownerPassword, 'owner-pw');
    const ks = Keystore.open(config.node.wallet.file, protocol.addresses);
    assert.ok(ks.keyPair(config.node.ownerAddress.toString(), config.node.ownerPassword));
  });

  it('asks for the owner password on the console, or fails clearly without one', async () => {
    const { file } = await nodeDir('owner-pw');
    const prompts: string[] = [];
    const asked = await resolveStartConfig(
      { config: file },
      io({}, (prompt) => {
        prompts.push(prompt);
        return Promise.resolve('typed');
      }),
    );
    assert.deepEqual(prompts, ['Enter the password for private key: ']);
    assert.equal(asked.config.node.ownerPassword, 'typed');
    await assert.rejects(resolveStartConfig({ config: file }, io({})), /owner's password has not been received.*WE_NODE_OWNER_PASSWORD/);
    const empty = await resolveStartConfig({ config: file }, io({ WE_NODE_OWNER_PASSWORD_EMPTY: 'yes' }));
    assert.equal(empty.config.node.ownerPassword, '');
  });

  it('needs no password for an owner key stored without one, and refuses an owner missing from the keystore', async () => {
    const open = await nodeDir('');
    const { config } = await resolveStartConfig({ config: open.file }, io({}));
    assert.equal(config.node.ownerPassword, '');
    const missing = await nodeDir(null);
    await assert.rejects(
      resolveStartConfig({ config: missing.file }, io({ WE_NODE_OWNER_PASSWORD: 'x' })),
      /Node owner address '3G9GdoaYnFeYodBTNguVMcGojSnD8S1zoH4' does not exist in the keystore/,
    );
  });
});
