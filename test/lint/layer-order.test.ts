/**
 * The layer order holds because `npm test` lints it: eslint.config.js's `weft/layer-order` rule,
 * run here through ESLint's API with the project's own config (as `eslint .` runs it) on sources
 * that stand in for files of the layers: an import that runs back up the order, between two
 * layers side by side, out of the explorer, or from the product into the dev folders is an error
 * that names both ends; an import down the order is not.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

/** The worktree root (this file runs from dist/test/lint/). */
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const eslint = new ESLint({ cwd: REPO_ROOT });

/**
 * The layer-order problems of `source` linted as the file `path` (an existing file, so the
 * type-aware config finds it in its project; the text linted is `source`, not the file's).
 */
async function layerProblems(path: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: join(REPO_ROOT, path) });
  assert.ok(result);
  const fatal = result.messages.filter((m) => m.fatal === true);
  assert.deepEqual(fatal, [], `${path} did not parse`);
  return result.messages.filter((m) => m.ruleId === 'weft/layer-order').map((m) => m.message);
}

describe('the layer order (eslint.config.js, weft/layer-order)', () => {
  it('refuses an import back up the order, naming both layers', async () => {
    const problems = await layerProblems('src/crypto/hashes.ts', "import type { Node } from '../node/node.js';\nexport type Running = Node;\n");
    assert.equal(problems.length, 1);
    assert.match(problems[0]!, /^src\/crypto\/hashes\.ts may not import src\/node\/node\.js: src\/node comes after src\/crypto in the layer order/);
  });

  it('lets a layer import from itself and from the layers before it', async () => {
    const source = [
      "import { WEFT_VERSION } from './version.js';",
      "import { Protocol } from '../protocol/protocol.js';",
      "export * from '../errors/catalogue.js';",
      "export const parts = [WEFT_VERSION, Protocol, await import('../crypto/hashes.js')];",
      '',
    ].join('\n');
    assert.deepEqual(await layerProblems('src/node/assembly.ts', source), []);
  });

  it('sees every form of import: import, import type, export from, dynamic import(), an import type in a type', async () => {
    const source = [
      "import { Blockchain } from '../chain/blockchain.js';",
      "import type { ApiServices } from '../api/services.js';",
      "export { Node } from '../node/node.js';",
      "export * from '../consensus/miner.js';",
      "export const later = (): Promise<unknown> => import('../network/peers.js');",
      "export type Settings = import('../contracts/settings.js').ContractsSettings;",
      'export type Used = [typeof Blockchain, ApiServices];',
      '',
    ].join('\n');
    const problems = await layerProblems('src/protocol/json.ts', source);
    assert.deepEqual(
      problems.map((m) => /may not import (\S+):/.exec(m)?.[1]),
      ['src/chain/blockchain.js', 'src/api/services.js', 'src/node/node.js', 'src/consensus/miner.js', 'src/network/peers.js', 'src/contracts/settings.js'],
    );
  });

  it('refuses an import between two layers that stand side by side', async () => {
    const problems = await layerProblems('src/pki/settings.ts', "export { licenceStatus } from '../licences/status.js';\n");
    assert.equal(problems.length, 1);
    assert.match(problems[0]!, /src\/pki and src\/licences stand side by side: neither imports the other/);
  });

  it('keeps the explorer apart: it imports no other layer, and no layer of the node imports it', async () => {
    const out = await layerProblems('src/explorer/format.ts', "export { ApiClient } from '../api/client.js';\n");
    assert.equal(out.length, 1);
    assert.match(out[0]!, /src\/explorer stands apart: it imports no other layer/);
    const into = await layerProblems('src/api/explorer.ts', "export { parseRoute } from '../explorer/routes.js';\n");
    assert.equal(into.length, 1);
    assert.match(into[0]!, /src\/explorer comes after src\/api in the layer order/);
  });

  it('keeps the node below the command line that starts it', async () => {
    const problems = await layerProblems('src/node/node.ts', "export { devNodeConfig } from '../cli/dev.js';\n");
    assert.equal(problems.length, 1);
    assert.match(problems[0]!, /src\/node\/node\.ts may not import src\/cli\/dev\.js: src\/cli comes after src\/node in the layer order/);
  });

  it('keeps the dev folders out of the product, and the tests out of the benchmarks', async () => {
    const product = await layerProblems('src/node/version.ts', "export { until } from '../../devkit/wait.js';\n");
    assert.equal(product.length, 1);
    assert.match(product[0]!, /src\/node\/version\.ts may not import devkit\/wait\.js: devkit comes after src\/node/);
    const bench = await layerProblems('bench/fuzz.ts', "export { SEED_ROUTES } from '../test/api/seed-routes.js';\n");
    assert.equal(bench.length, 1);
    assert.match(bench[0]!, /bench\/fuzz\.ts may not import test\/api\/seed-routes\.js: test comes after bench/);
  });

  it('asks for a place in the order for a folder that has none', async () => {
    const problems = await layerProblems('src/chain/fees.ts', "export { admit } from '../admission/door.js';\n");
    assert.deepEqual(problems, ['src/admission is in no layer: give it its place in LAYERS (eslint.config.js).']);
  });
});
