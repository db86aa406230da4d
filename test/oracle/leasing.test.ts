import { cases } from './cases/leasing.js';
import { runCases } from './harness.js';

await runCases(cases);
