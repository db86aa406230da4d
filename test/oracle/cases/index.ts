/** Every family's oracle cases (the coverage test checks them against the reference). */
import type { OracleCase } from '../harness.js';
import { cases as alias } from './alias.js';
import { cases as assets } from './assets.js';
import { cases as atomic } from './atomic.js';
import { cases as contracts } from './contracts.js';
import { cases as data } from './data.js';
import { cases as leasing } from './leasing.js';
import { cases as nodes } from './nodes.js';
import { cases as permissions } from './permissions.js';
import { cases as privacy } from './privacy.js';
import { cases as scripts } from './scripts.js';
import { cases as transfer } from './transfer.js';

export const FAMILIES: Record<string, readonly OracleCase[]> = {
  alias,
  assets,
  atomic,
  contracts,
  data,
  leasing,
  nodes,
  permissions,
  privacy,
  scripts,
  transfer,
};
