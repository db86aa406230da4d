/**
 * Every route group the server serves. A new group is one module under routes/ plus a
 * line here; the server, the OpenAPI document and the typed client follow from it.
 */
import { activationRoutes } from './activation.js';
import { anchoringRoutes } from './anchoring.js';
import { addressesRoutes } from './addresses.js';
import { aliasRoutes } from './alias.js';
import { assetsRoutes } from './assets.js';
import { blocksRoutes } from './blocks.js';
import { consensusRoutes } from './consensus.js';
import { confidentialContractsRoutes } from './confidential-contracts.js';
import { contractsRoutes } from './contracts.js';
import { cryptoRoutes } from './crypto.js';
import { debugRoutes } from './debug.js';
import { leasingRoutes } from './leasing.js';
import { licensesRoutes } from './licenses.js';
import { nodeRoutes } from './node.js';
import { peersRoutes } from './peers.js';
import { permissionsRoutes } from './permissions.js';
import { pkiRoutes } from './pki.js';
import { privacyRoutes } from './privacy.js';
import { transactionsRoutes } from './transactions.js';
import { utilsRoutes } from './utils.js';

export const ROUTE_GROUPS = [
  blocksRoutes,
  transactionsRoutes,
  debugRoutes,
  consensusRoutes,
  activationRoutes,
  addressesRoutes,
  aliasRoutes,
  leasingRoutes,
  assetsRoutes,
  nodeRoutes,
  utilsRoutes,
  permissionsRoutes,
  anchoringRoutes,
  peersRoutes,
  pkiRoutes,
  licensesRoutes,
  contractsRoutes,
  confidentialContractsRoutes,
  cryptoRoutes,
  privacyRoutes,
] as const;
