/**
 * The node's Prometheus exposition (`node.metrics`): one GET at the configured path on the
 * REST port (`/metrics` by default), open to any scraper or — `protected = yes` — behind the
 * admin credentials, answering prom-client's text format with its own content type.
 *
 * The path is the operator's, so this group is built per server from the MetricsService
 * (the other groups are fixed tables, listed in routes/index.ts).
 */
import { defineRoutes, Reply, route } from '../routing.js';
import type { MetricsService } from '../services.js';

export function metricsRoutes(metrics: MetricsService) {
  return defineRoutes({ name: 'metrics', description: 'Prometheus metrics of this node (node.metrics)' }, [
    route({
      method: 'GET',
      path: metrics.path,
      auth: metrics.protected ? 'admin' : 'none',
      summary: 'Prometheus metrics: chain, pool, network, REST and the process (text exposition format 0.0.4)',
      // A protected exposition's refusals (403 error 2, or OAuth2's) come with the admin level in the document.
      responses: { 200: { description: 'Prometheus text exposition (`text/plain; version=0.0.4`)', contentType: 'text/plain' } },
      handler: async () => {
        const exposition = await metrics.scrape();
        return new Reply(200, exposition.text, 'text', exposition.contentType);
      },
    }),
  ]);
}
