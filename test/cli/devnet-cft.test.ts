/**
 * `npm run devnet -- --consensus cft --nodes 4`: the devnet's configs as a node reads them
 * back — CFT consensus on PoA's rounds, every other node a validator, the genesis signed for
 * CFT (the loader checks the signature) — and the option's parsing.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { loadNodeConfig } from '../../src/node/config.js';
import { buildDevnetProgram, DEVNET_FINALIZATION_TIMEOUT_MS, prepareDevnet, readDevnet } from '../../src/cli/devnet.js';
import { tempDir } from '../../devkit/tmp.js';

const CHEAP = { scrypt: { N: 1024, r: 8, p: 1 } };

describe('devnet --consensus cft', () => {
  it('is an option of `npm run devnet`, with the finalization timeout', () => {
    const program = buildDevnetProgram().exitOverride();
    program.parse(['--consensus', 'cft', '--finalization-timeout', '1500ms'], { from: 'user' });
    assert.equal(program.opts()['consensus'], 'cft');
    assert.equal(program.opts()['finalizationTimeout'], 1500);
    assert.throws(
      () =>
        buildDevnetProgram()
          .exitOverride()
          .configureOutput({ writeErr: () => {} })
          .parse(['--consensus', 'pos'], { from: 'user' }),
      /poa or cft/,
    );
  });

  it('writes CFT configs every node reads back: PoA rounds and bans, max-validators of all the others, the genesis signed for CFT', async () => {
    const dir = tempDir('weft-devnet-cft-');
    const layout = await prepareDevnet({ nodes: 4, dir, basePort: 0, keystore: CHEAP, consensus: 'cft' });
    assert.equal(layout.consensus, 'cft');
    assert.equal(readDevnet(dir)?.consensus, 'cft');
    const geneses = new Set<string>();
    for (const n of layout.nodes) {
      // The loader verifies the genesis signature for the configured consensus type.
      const config = await loadNodeConfig(n.configFile, { env: {} });
      assert.equal(config.consensusType, 'cft', n.name);
      const { fullVoteSetTimeoutMs, ...consensus } = config.chain.consensus.type === 'cft' ? config.chain.consensus : assert.fail(n.name);
      // No full-vote-set-timeout: the miner publishes the votes as soon as they finalise.
      assert.equal(fullVoteSetTimeoutMs, undefined);
      assert.deepEqual(consensus, {
        type: 'cft',
        roundDurationMs: 3000,
        syncDurationMs: 1000,
        banDurationBlocks: 100,
        warningsForBan: 3,
        maxBansPercentage: 40,
        maxValidators: 3,
        finalizationTimeoutMs: DEVNET_FINALIZATION_TIMEOUT_MS,
      });
      geneses.add(String(config.chain.genesis.signature));
      // WE's key names in the file.
      const text = readFileSync(n.configFile, 'utf8');
      assert.match(text, /^\s*finalization-timeout = /m);
      assert.match(text, /^\s*max-validators = /m);
    }
    assert.equal(geneses.size, 1, 'one genesis for all');
  });

  it('takes the finalization timeout, refuses one not under the round, and refuses to reopen a devnet under another consensus', async () => {
    const dir = tempDir('weft-devnet-cft-');
    const layout = await prepareDevnet({ nodes: 2, dir, basePort: 0, keystore: CHEAP, consensus: 'cft', finalizationTimeoutMs: 1500, roundDurationMs: 4000 });
    const config = await loadNodeConfig(layout.nodes[0]!.configFile, { env: {} });
    assert.equal(config.chain.consensus.type === 'cft' && config.chain.consensus.finalizationTimeoutMs, 1500);
    assert.equal(config.chain.consensus.type === 'cft' && config.chain.consensus.maxValidators, 1);
    await assert.rejects(
      prepareDevnet({ nodes: 2, dir: tempDir('weft-devnet-cft-'), basePort: 0, keystore: CHEAP, consensus: 'cft', finalizationTimeoutMs: 3000 }),
      /--finalization-timeout must be less than the round \(3000 ms ≥ 3000 ms\)/,
    );
    await assert.rejects(prepareDevnet({ nodes: 2, dir, basePort: 0, keystore: CHEAP }), /holds a cft devnet, not a poa one: use another --dir/);
    await assert.rejects(
      prepareDevnet({ nodes: 1, dir: tempDir('weft-devnet-cft-'), basePort: 0, keystore: CHEAP, consensus: 'cft' }),
      /--consensus cft needs at least 2 nodes in the genesis: a lone miner's blocks are never final, got 1/,
    );
    assert.deepEqual(await prepareDevnet({ nodes: 2, dir, basePort: 0, keystore: CHEAP, consensus: 'cft' }), layout);
  });

  it('leaves a PoA devnet as it was: PoA consensus, no consensus member in devnet.json', async () => {
    const dir = tempDir('weft-devnet-poa-');
    const layout = await prepareDevnet({ nodes: 1, dir, basePort: 0, keystore: CHEAP });
    assert.equal(layout.consensus, undefined);
    const config = await loadNodeConfig(layout.nodes[0]!.configFile, { env: {} });
    assert.equal(config.consensusType, 'poa');
    assert.equal(config.chain.consensus.type, 'poa');
  });
});
