import { cases } from './cases/atomic.js';
import { runCases } from './harness.js';

await runCases(cases);
