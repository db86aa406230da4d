/** Every family's oracle cases, keyed by the family's vector file name. */
import type { OracleCase } from '../harness.js';
import { cases as transfer } from './transfer.js';

export const FAMILIES: Record<string, readonly OracleCase[]> = {
  transfer,
};
