/**
 * CORS as a node answers it (`node.api.rest.cors`, `cors-allowed-origins`). WE answers `*`
 * and allows credentials, which lets any web page a developer opens drive the signing routes
 * of a local node; here `*` never comes with credentials, and credentials are allowed only to
 * the origins the config lists (each echoed back, with `Vary: Origin`).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ApiSettings } from './services.js';

/** Headers WE sends on OPTIONS requests no route takes (beyond the origin headers). */
export const PREFLIGHT_HEADERS = {
  'access-control-allow-headers': 'Authorization, Content-Type, X-Requested-With, Timestamp, X-API-Key, Signature',
  'access-control-allow-methods': 'OPTIONS, POST, PUT, GET, DELETE',
};

type HeaderSink = { header(name: string, value: string): unknown };

/** Sets the CORS origin headers a request is answered with under the settings (none when CORS is off or the origin is not listed). */
export function setCorsHeaders(settings: Pick<ApiSettings, 'cors' | 'corsAllowedOrigins'>, headers: IncomingHttpHeaders, reply: HeaderSink): void {
  if (!settings.cors) return;
  const allowed = settings.corsAllowedOrigins ?? [];
  if (allowed.length === 0) {
    reply.header('access-control-allow-origin', '*');
    return;
  }
  reply.header('vary', 'Origin');
  const origin = headers.origin;
  if (origin === undefined || !allowed.includes(origin)) return;
  reply.header('access-control-allow-origin', origin);
  reply.header('access-control-allow-credentials', 'true');
}
