import { cases, limitCases } from './cases/data.js';
import { runCases } from './harness.js';

await runCases([...cases, ...limitCases]);
