import { cases } from './cases/privacy.js';
import { runCases } from './harness.js';

await runCases(cases);
