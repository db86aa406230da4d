/**
 * `npm run bench` — prints every figure with its same-run baseline and the ratio.
 * `npm run bench -- --json` prints one JSON object per line:
 * {"name","value","baseline","ratio","unit"}.
 */
import { figureJson, formatFigure, type Figure } from './harness.js';
import { protocolFigures } from './protocol.js';

const json = process.argv.includes('--json');
const groups: Array<[string, () => Promise<Figure[]>]> = [['protocol', protocolFigures]];

for (const [group, run] of groups) {
  if (!json) console.log(`# ${group}`);
  for (const figure of await run()) console.log(json ? figureJson(figure) : formatFigure(figure));
}
