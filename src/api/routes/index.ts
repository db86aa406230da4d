/**
 * Every route group the server serves. A new group is one module under routes/ plus a
 * line here; the server, the OpenAPI document and the typed client follow from it.
 */
import { blocksRoutes } from './blocks.js';
import { debugRoutes } from './debug.js';
import { transactionsRoutes } from './transactions.js';

export const ROUTE_GROUPS = [blocksRoutes, transactionsRoutes, debugRoutes] as const;

export type RouteGroups = typeof ROUTE_GROUPS;
