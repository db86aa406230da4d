import { cases } from './cases/alias.js';
import { runCases } from './harness.js';

await runCases(cases);
