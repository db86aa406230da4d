/**
 * `node.confidential-contracts`' key table: the replication blocks, with WE's application.conf
 * defaults (`data-directory` is the node's, read with its directories).
 */
import type { KeyTable } from '../../config/key-table.js';
import { replicationTable } from '../../replication/settings-keys.js';
import { CONFIDENTIAL_CONTRACTS_DEFAULTS, type ConfidentialContractsSettings } from './settings.js';

export const CONFIDENTIAL_CONTRACTS_TABLE: KeyTable<ConfidentialContractsSettings> = replicationTable(CONFIDENTIAL_CONTRACTS_DEFAULTS);
