import { cases } from './cases/scripts.js';
import { runCases } from './harness.js';

await runCases(cases);
