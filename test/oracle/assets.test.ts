import { cases } from './cases/assets.js';
import { runCases } from './harness.js';

await runCases(cases);
