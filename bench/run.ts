/**
 * `npm run bench` — prints every figure with its same-run baseline and the ratio.
 * `npm run bench -- --json` prints one JSON object per line:
 * {"name","value","baseline","ratio","unit"}.
 */
import { figureJson, formatFigure, type Figure } from './harness.js';
import { Protocol } from '../src/protocol/protocol.js';
import { chainFigures } from './chain.js';
import { protocolFigures } from './protocol.js';

const json = process.argv.includes('--json');
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const groups: Array<[string, () => Promise<Figure[]>]> = [
  ['protocol', protocolFigures],
  ['chain', () => chainFigures(p)],
];

for (const [group, run] of groups) {
  if (only.length > 0 && !only.includes(group)) continue;
  if (!json) console.log(`# ${group}`);
  for (const figure of await run()) console.log(json ? figureJson(figure) : formatFigure(figure));
}
