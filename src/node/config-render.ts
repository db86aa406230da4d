/**
 * The settings a node runs on, written back in WE's HOCON layout as JSON — what WE's
 * `/debug/configInfo` shows (its resolved config rendered as JSON), and the node.conf files
 * the devnet writes. Each part is rendered by the key table that reads it (config.ts names
 * them), so every value is the effective one, defaults included: durations as HOCON duration
 * strings (`"4s"`, `"2h"`), memory sizes in bytes, amounts in units, keys and addresses in
 * Base58.
 *
 * Secrets are shown as WE shows them: the API key hashes (never the keys), the
 * `wallet.password` setting (which protects nothing in Weft's keystore, see config.ts) and
 * the anchoring section as configured (it is admin-only, as all of `/debug`). The owner's
 * keystore password is not part of the config and never appears.
 */
import { placeAt, type HoconObject } from '../config/key-table.js';
import { CHAIN_TABLE, chainKeys, UTX_TABLE } from '../chain/settings-keys.js';
import { MINER_TABLE } from '../consensus/settings-keys.js';
import { API_TABLE } from '../api/settings-keys.js';
import { DEFAULT_REST_CONNECTION_LIMITS } from '../api/connection-limits.js';
import { NETWORK_TABLE } from '../network/settings-keys.js';
import { renderAnchoring } from '../anchoring/settings-keys.js';
import { PRIVACY_TABLE } from '../privacy/settings-keys.js';
import { CONFIDENTIAL_CONTRACTS_TABLE } from '../contracts/confidential/settings-keys.js';
import { PKI_TABLE } from '../pki/settings-keys.js';
import { PKI_OFF } from '../pki/settings.js';
import { LICENCES_TABLE } from '../licences/settings-keys.js';
import { CONTRACTS_TABLE } from '../contracts/settings-keys.js';
import { FEATURES_TABLE, METRICS_TABLE, NODE_TABLE, type NodeConfig } from './config.js';

export { durationText } from '../config/key-table.js';

/** The sections of `node { … }` in the order they are written (WE's application.conf order, Weft's own among them). */
const NODE_SECTIONS = [
  'directory',
  'data-directory',
  'owner-address',
  'logging-level',
  'confidential-contracts',
  'wallet',
  'crypto',
  'pki',
  'licenses',
  'blockchain',
  'additional-cache',
  'features',
  'miner',
  'utx',
  'api',
  'anchoring',
  'metrics',
  'network',
  'privacy',
  'contracts',
  'docker-engine',
  'wasm',
];

/** `{"node": {...}}`: the node's settings in WE's key layout. */
export function renderNodeConfig(config: NodeConfig): { node: HoconObject } {
  const { api } = config;
  const rendered: HoconObject = {};
  // Tables sharing a section merge into it in this order: crypto { type, pki, verifier-threads },
  // confidential-contracts { data-directory, replier, … }, api { rest, auth, grpc }, the genesis' pki last.
  /** Puts a table's rendering at `path` ('': the keys are rooted at `node`). */
  const merge = (path: string, part: HoconObject): void => {
    if (path !== '') placeAt(rendered, path, part);
    else for (const [key, value] of Object.entries(part)) placeAt(rendered, key, value);
  };
  merge('', CHAIN_TABLE.render(chainKeys(config.chain)));
  merge('', PKI_TABLE.render(config.pki ?? { ...PKI_OFF, mode: api.pkiMode ?? 'OFF' }));
  merge('', NODE_TABLE.render(config.node));
  if (config.confidentialContracts !== undefined) merge('confidential-contracts', CONFIDENTIAL_CONTRACTS_TABLE.render(config.confidentialContracts));
  merge('licenses', LICENCES_TABLE.render(config.licences ?? { issuers: [], onExpiry: 'report' }));
  merge('features', FEATURES_TABLE.render(config.features));
  merge('miner', MINER_TABLE.render(config.miner));
  merge('utx', UTX_TABLE.render(config.utx));
  // Settings built in code may leave the origins and connection limits out: the defaults.
  merge(
    'api',
    API_TABLE.render({ ...api, corsAllowedOrigins: api.corsAllowedOrigins ?? [], connectionLimits: api.connectionLimits ?? DEFAULT_REST_CONNECTION_LIMITS }),
  );
  merge('anchoring', renderAnchoring(config.anchoring));
  merge('metrics', METRICS_TABLE.render(config.metrics));
  merge('network', NETWORK_TABLE.render(config.network));
  if (config.privacy !== undefined) merge('privacy', PRIVACY_TABLE.render(config.privacy));
  if (config.contracts !== undefined) merge('', CONTRACTS_TABLE.render(config.contracts));
  const node: HoconObject = {};
  for (const section of NODE_SECTIONS) if (rendered[section] !== undefined) node[section] = rendered[section];
  return { node };
}
