/**
 * The node's public gRPC API (WE 1.14's `api/grpc/service`): every public service, registered
 * on the node's gRPC port beside the contract services. Each is built over the same
 * ApiServices the REST routes call, so a gRPC read and a REST read of one thing are one
 * answer, and a broadcast over gRPC takes the node's one admission door.
 */
import type * as grpc from '@grpc/grpc-js';
import { grpcErrorOf } from '../../contracts/grpc/server.js';
import type { GrpcEndpoint } from '../../contracts/grpc/endpoint.js';
import type { ApiServices } from '../services.js';
import type { PublicGrpcSettings } from '../settings.js';
import type { GrpcAuthorize } from './auth.js';
import type { EventChain } from './blockchain-events.js';
import { blockchainEventsService, type StreamAdmission } from './blockchain-events-service.js';
import { transactionToProto } from '../../protocol/proto/transactions.js';
import { tooManyConnections } from '../../errors/catalogue.js';

export interface PublicGrpcApiDeps {
  readonly services: ApiServices;
  /** The chain events are read from (the node's Blockchain). */
  readonly chain: EventChain;
  readonly settings: PublicGrpcSettings;
  readonly authorize: GrpcAuthorize;
  readonly log?: { warn(obj: object, msg: string): void };
}

/** A service's place limit: at most `max` open streams at once (WE's ConnectionsLimiter), one more refused with UNAVAILABLE 642. */
function streamLimit(max: number): StreamAdmission {
  let open = 0;
  return () => {
    if (open >= max) throw tooManyConnections(max);
    open++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      open--;
    };
  };
}

/** Registers every public service on `endpoint`. */
export function servePublicGrpcApi(endpoint: GrpcEndpoint, deps: PublicGrpcApiDeps): void {
  const { services } = deps;
  const errorOf = (e: unknown): Partial<grpc.StatusObject> => grpcErrorOf(e);
  const events = blockchainEventsService({
    chain: deps.chain,
    encodeTransaction: transactionToProto,
    addressOf: (publicKey) => services.protocol.addresses.fromPublicKey(publicKey).bytes,
    authorize: deps.authorize,
    admit: streamLimit(deps.settings.blockchainEventsMaxConnections),
    errorOf,
    ...(deps.log === undefined ? {} : { log: deps.log }),
  });
  endpoint.serve(events.definition, events.implementation);
}
