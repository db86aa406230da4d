import { cases } from './cases/transfer.js';
import { runCases } from './harness.js';

await runCases(cases);
