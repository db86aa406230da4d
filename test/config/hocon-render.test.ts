/**
 * renderHoconText: the readable HOCON a devnet writes its node configs in reads back to the
 * same object, and a devnet node's config takes an appended block as an operator adds one
 * (docs/anchoring.md's `node.anchoring { … }`).
 */
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseHoconText, renderHoconText } from '../../src/config/hocon.js';
import type { RawObject } from '../../src/config/section.js';
import { prepareDevnet } from '../../src/cli/devnet.js';
import { loadNodeConfig } from '../../src/node/config.js';
import { tempDir } from '../../devkit/tmp.js';

const CHEAP = { scrypt: { N: 1024, r: 8, p: 1 } };

describe('renderHoconText', () => {
  it('reads back to the same object: quoted keys and strings, nested blocks, arrays of objects, empty ones', async () => {
    const sample: RawObject = {
      node: {
        'owner-address': '3N8Bry',
        'a.dotted key': 'quotes " and \\ and\nnewline, ${not.a.substitution}, юникод',
        port: 6864,
        enabled: true,
        nothing: null,
        empty: {},
        list: [],
        peers: ['127.0.0.1:1', '127.0.0.1:2'],
        packages: [{ image: 'a:1', env: { X: '1' } }, { image: 'b:2' }],
        '1': { deep: { deeper: [1, 2, 3] } },
      },
    };
    const text = renderHoconText(sample, 'a header\nof two lines');
    assert.match(text, /^# a header\n# of two lines\nnode \{\n/);
    assert.deepEqual(await parseHoconText(text), sample);
    // Keys as configs have them (dotted and spaced ones quoted); values any text but `{%`, which the parser
    // (@pushcorn/hocon-parser) reads as the start of an expression even inside quotes — no config has one.
    const key = fc.stringMatching(/^[a-z0-9][a-z0-9. _-]{0,12}$/).filter((t) => !(t in Object.prototype));
    const safeString = (minLength = 0) => fc.string({ minLength }).filter((t) => !t.includes('{%'));
    const value = fc.letrec((tie) => ({
      leaf: fc.oneof(safeString(), fc.integer(), fc.boolean(), fc.constant(null)),
      node: fc.oneof({ depthSize: 'small' }, tie('leaf'), fc.array(tie('leaf'), { maxLength: 3 }), fc.dictionary(key, tie('node'), { maxKeys: 3 })),
    }));
    await fc.assert(
      fc.asyncProperty(fc.dictionary(key, value.node, { maxKeys: 4 }), async (object) => {
        // fast-check's dictionaries have no prototype; the parser's objects are plain ones.
        assert.deepEqual(await parseHoconText(renderHoconText({ root: object })), JSON.parse(JSON.stringify({ root: object })));
      }),
      { numRuns: 100 },
    );
  });

  it('writes a devnet node.conf as readable HOCON that takes an appended block', async () => {
    const layout = await prepareDevnet({ nodes: 2, dir: tempDir('weft-devnet-hocon-'), basePort: 0, keystore: CHEAP });
    const file = layout.nodes[0]!.configFile;
    const text = readFileSync(file, 'utf8');
    assert.match(text, /^# devnet-node-0 of a Weft devnet/);
    assert.match(text, /^node \{$/m);
    assert.match(text, /^ {4}consensus \{$/m);
    appendFileSync(file, '\nnode.anchoring {\n  enable = no\n}\nnode.miner.quorum = 0\n');
    const config = await loadNodeConfig(file, { env: {} });
    assert.equal(config.miner.quorum, 0);
    assert.equal(config.node.ownerAddress.toString(), layout.nodes[0]!.ownerAddress);
  });
});
