/**
 * The REST routes the specification lists (test/fixtures/seed-routes.json), which the OpenAPI
 * and auth-matrix tests hold the served document against.
 */
import { readFileSync } from 'node:fs';

/** A route of test/fixtures/seed-routes.json (rest-api.md §3 for WE's groups, and the routes the specification adds). */
export interface SeedRoute {
  readonly group: string;
  readonly method: string;
  readonly path: string;
  /** As in the reference: none (open in every mode), user, admin. */
  readonly auth: 'none' | 'user' | 'admin';
  /** False: served by WE but not in its bundled OpenAPI. */
  readonly inWeSwagger?: boolean;
  /** Rule PKI-1. */
  readonly unavailableInPkiMode?: boolean;
  readonly note?: string;
  /**
   * The response fields the specification documents, as paths: `a.b` a member of a member,
   * `[]` every element of a (non-empty) list, `*` every value of a (non-empty) map.
   */
  readonly fields: readonly string[];
}

export const SEED_ROUTES: readonly SeedRoute[] = (
  JSON.parse(readFileSync(new URL('../../../test/fixtures/seed-routes.json', import.meta.url), 'utf8')) as { routes: SeedRoute[] }
).routes;
