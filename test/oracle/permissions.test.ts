import { cases } from './cases/permissions.js';
import { runCases } from './harness.js';

await runCases(cases);
