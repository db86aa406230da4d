/**
 * `multipart/form-data` bodies streamed part by part (@fastify/multipart over busboy): every
 * part is handed to the route as a stream, whether or not its Content-Disposition names a
 * file (clients send WE's `data` part both ways), so nothing is buffered here whatever the
 * size. The route's `bodyLimit` caps the whole body: a declared Content-Length above it is
 * refused before anything is read, and a body that grows past it while streaming ends the
 * part being read with WE's 611. A body that is not well-formed multipart — a missing
 * boundary, a part cut short, a body that ends early — fails the iteration with a 199 that
 * says so.
 */
import { PassThrough } from 'node:stream';
import fastifyMultipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { AnyRoute, MultipartParser, MultipartPart, MultipartParts } from './routing.js';
import { customValidationError, httpEntityTooBig, WeError } from '../errors/catalogue.js';

/** WE allows any number of parts; this bounds what a client can make the node iterate. */
const MAX_PARTS = 100;

/**
 * The multipart parser of a server whose body limit is `serverLimit`. Installed on the scope
 * of the multipart routes only (see registerRoutes): the plugin adds an onRequest and an
 * onResponse hook, each a promise per request, which every other route would pay for.
 */
export function multipartParser(serverLimit: number): MultipartParser {
  return {
    // It only marks requests; parts are read by readMultipart.
    install: (scope) => void scope.register(fastifyMultipart, { limits: { parts: MAX_PARTS, headerPairs: 100 } }),
    read: (request, route) => readMultipart(request, route, serverLimit),
  };
}

function declaredLength(request: FastifyRequest): number | undefined {
  const n = Number(request.headers['content-length']);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/** A parser failure in WE's terms. */
function malformed(e: unknown): WeError {
  if (e instanceof WeError) return e;
  const message = e instanceof Error ? e.message : String(e);
  return customValidationError(`The multipart body is malformed: ${message}`, 'body');
}

/** The parts of a multipart request under `route.bodyLimit` (the server's limit otherwise). */
function readMultipart(request: FastifyRequest, route: AnyRoute, serverLimit: number): MultipartParts | undefined {
  if (!request.isMultipart()) return undefined;
  const limit = route.bodyLimit ?? serverLimit;
  const declared = declaredLength(request);
  if (declared !== undefined && declared > limit) {
    // Refused before a byte is read; the client should not keep sending.
    return {
      [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(httpEntityTooBig(declared, limit)) }),
    };
  }
  let current: MultipartPart | undefined;
  let seen = 0;
  let tooBig: WeError | undefined;
  const raw = request.raw;
  const count = (chunk: Buffer): void => {
    seen += chunk.length;
    if (seen <= limit || tooBig !== undefined) return;
    tooBig = httpEntityTooBig(declared ?? -1, limit);
    raw.unpipe();
    raw.pause();
    current?.stream.destroy(tooBig);
  };
  raw.on('data', count);
  const parts = request.parts({ isPartAFile: () => true, limits: { fileSize: limit, parts: MAX_PARTS } });
  return {
    [Symbol.asyncIterator]: () => ({
      async next(): Promise<IteratorResult<MultipartPart>> {
        if (tooBig !== undefined) throw tooBig;
        try {
          const step = await parts.next();
          if (step.done === true) {
            raw.off('data', count);
            return { done: true, value: undefined };
          }
          const part = step.value;
          if (part.type !== 'file') throw customValidationError(`The multipart part '${part.fieldname}' could not be read as a stream`, 'body');
          // The part's bytes, failing with WE's error when the body breaks off or grows too big.
          const stream = new PassThrough();
          if (part.file.destroyed) {
            // The parser ran ahead and failed before this part was asked for.
            stream.destroy(tooBig ?? malformed(part.file.errored ?? new Error('the body ended inside this part')));
          } else {
            part.file.on('error', (e) => stream.destroy(tooBig ?? malformed(e)));
            part.file.pipe(stream);
          }
          current = { name: part.fieldname, stream };
          return { done: false, value: current };
        } catch (e) {
          raw.off('data', count);
          throw tooBig ?? malformed(e);
        }
      },
    }),
  };
}
