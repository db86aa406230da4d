/**
 * What the REST server logs about requests. Fastify writes two INFO lines per request
 * (8,300 requests made 3.2 MB of log); here a request that went well is logged at DEBUG only,
 * and one line at INFO tells of each request answered with an error status or slower than
 * the threshold — what an operator looks for, and not a line per request of a flood.
 *
 * Fastify tells it of every request answered (on the response's finish), so it also hands
 * each one to the metrics' observer when there is one: an onResponse hook would send every
 * request of every route through Fastify's hook runner as well (a closure and three calls
 * per request, with the node's metrics on).
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/** Requests slower than this are logged at INFO by default. */
export const DEFAULT_SLOW_REQUEST_MS = 1000;

/** Told of each request answered, with the milliseconds from its arrival. */
export type RequestCompleted = (request: FastifyRequest, reply: FastifyReply, ms: number) => void;

export class RequestLog extends LogController {
  constructor(
    private readonly slowRequestMs: number,
    private readonly completed?: RequestCompleted,
  ) {
    super();
  }

  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const ms = reply.elapsedTime;
    this.completed?.(request, reply, ms);
    const fields = { method: request.method, url: request.url, statusCode: reply.statusCode, responseTime: ms };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else if (reply.statusCode >= 400) reply.log.info(fields, 'request answered with an error');
    else if (ms >= this.slowRequestMs) reply.log.info(fields, 'slow request');
    else reply.log.debug(fields, 'request completed');
  }

  override routeNotFound(request: FastifyRequest): void {
    request.log.debug(`Route ${request.method}:${request.url} not found`);
  }
}
