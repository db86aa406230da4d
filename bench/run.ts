/**
 * `npm run bench` — prints every figure with its same-run baseline and the ratio.
 * `npm run bench -- --json` prints one JSON object per line:
 * {"name","value","baseline","ratio","unit"}.
 * `npm run bench -- <group> …` runs only those groups. `fuzz` (100 000 malformed REST
 * requests, FUZZ_REQUESTS to change) runs only when named: it is a robustness run, not a
 * figure; it prints the request count, the rate and the number of answers ≥ 500, and fails
 * the run unless that number is 0.
 * BENCH_ONLY=<part>,… runs only those parts of the groups made of parts (chain, network, grpc, contracts).
 */
import { abuseFigures } from './abuse.js';
import { benchPartWanted, figureJson, formatFigure, type Figure } from './harness.js';
import { Protocol } from '../src/protocol/protocol.js';
import { cftFigures } from './cft.js';
import { catchUpFigures } from './catch-up.js';
import { chainFigures } from './chain.js';
import { contractFigures } from './contracts.js';
import { fuzzBench } from './fuzz.js';
import { gostFigures } from './gost.js';
import { grpcFigures } from './grpc.js';
import { metricsFigures } from './metrics.js';
import { networkFigures } from './network.js';
import { privacyFigures } from './privacy.js';
import { privacyReplicationFigures } from './privacy-replication.js';
import { protocolFigures } from './protocol.js';
import { restFigures } from './rest.js';
import { rideFigures } from './ride.js';

const json = process.argv.includes('--json');
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const groups: Array<[string, () => Promise<Figure[]>]> = [
  ['protocol', protocolFigures],
  ['chain', () => chainFigures(p)],
  ['abuse', () => abuseFigures(p)],
  ['rest', restFigures],
  // BENCH_ONLY=mesh (the 4-node devnet's figures) or catch-up (network.catch-up) runs one part.
  ['network', async () => [...(benchPartWanted('mesh') ? await networkFigures(p) : []), ...(benchPartWanted('catch-up') ? await catchUpFigures(p) : [])]],
  ['ride', () => rideFigures(p)],
  ['gost', gostFigures],
  ['contracts', contractFigures],
  ['privacy', () => privacyFigures(p)],
  ['metrics', () => metricsFigures(p)],
  ['privacy-replication', privacyReplicationFigures],
  ['grpc', () => grpcFigures(p)],
  ['cft', () => cftFigures(p)],
];

for (const [group, run] of groups) {
  if (only.length > 0 && !only.includes(group)) continue;
  if (!json) console.log(`# ${group}`);
  for (const figure of await run()) console.log(json ? figureJson(figure) : formatFigure(figure));
}

if (only.includes('fuzz')) {
  if (!json) console.log('# fuzz');
  const r = await fuzzBench();
  const ok = r.serverErrors === 0 && r.alive && r.stateUnchanged;
  if (json) {
    console.log(
      JSON.stringify({
        name: 'fuzz',
        requests: r.requests,
        seconds: r.seconds,
        rate: r.rate,
        serverErrors: r.serverErrors,
        alive: r.alive,
        stateUnchanged: r.stateUnchanged,
      }),
    );
  } else {
    console.log(
      `${'fuzz.rest'.padEnd(34)} ${r.requests.toLocaleString('en-US').padStart(12)} requests in ${r.seconds.toFixed(1)} s = ${Math.round(r.rate).toLocaleString('en-US')} req/s; answers ≥ 500: ${r.serverErrors} (must be 0); node answering: ${r.alive ? 'yes' : 'NO'}; state unchanged: ${r.stateUnchanged ? 'yes' : 'NO'}`,
    );
    for (const e of r.examples) console.log(`  ${e}`);
  }
  if (!ok) process.exitCode = 1;
}
