/**
 * What every service of the node's public gRPC API (WE's `api/grpc/service`) is built from:
 * the same ApiServices the REST routes call, the node's gRPC authorisation, and WE's error
 * mapping. Each service module returns its definition and implementation; the node
 * registers them on its one gRPC server (the port contracts use too).
 *
 * Authorisation is the node's (WE's GrpcAuth and PrivacyGrpcAuth): `user` for the read
 * services — open under API-key auth, a user token under OAuth2 — and `privacy` for the
 * confidential-data methods (the privacy API key, or the privacy role). It throws the WeError
 * to answer (618 without credentials, 614 for a wrong privacy key…).
 */
import type * as grpc from '@grpc/grpc-js';
import type { ApiServices } from '../services.js';
import type { GrpcAuthorize, GrpcAuthScope } from './auth.js';

export type { GrpcAuthScope };

export interface PublicGrpcDeps {
  readonly services: ApiServices;
  /** Checks a call's metadata for the scope; throws the WeError to answer. */
  readonly authorize: GrpcAuthorize;
  /** A thrown error as the call's status, with WE's `error-code` and `error-message` trailers. */
  errorOf(e: unknown): Partial<grpc.StatusObject>;
}

/** A service for `grpc.Server#addService`. */
export interface PublicGrpcService {
  readonly definition: grpc.ServiceDefinition;
  readonly implementation: grpc.UntypedServiceImplementation;
}

/**
 * A unary method: authorised for `scope`, then `handler` (`by-handler`: the handler
 * authorises, after the checks WE runs first); a thrown error answers with WE's status and
 * trailers.
 */
export function unary<Req, Res>(
  deps: PublicGrpcDeps,
  scope: GrpcAuthScope | 'by-handler',
  handler: (request: Req, call: grpc.ServerUnaryCall<Req, Res>) => Res | Promise<Res>,
): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const run = async (): Promise<Res> => {
      if (scope !== 'by-handler') deps.authorize(call.metadata, scope);
      return handler(call.request, call);
    };
    run().then(
      (response) => callback(null, response),
      (e: unknown) => callback(deps.errorOf(e)),
    );
  };
}
