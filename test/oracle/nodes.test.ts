import { cases } from './cases/nodes.js';
import { runCases } from './harness.js';

await runCases(cases);
