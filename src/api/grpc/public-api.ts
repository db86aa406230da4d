/**
 * The node's public gRPC API (WE 1.14's `api/grpc/service`): every public service, registered
 * on the node's gRPC port beside the contract services. Each is built over the same
 * ApiServices the REST routes call, so a gRPC read and a REST read of one thing are one
 * answer, and a broadcast over gRPC takes the node's one admission door.
 */
import { grpcErrorOf } from '../../contracts/grpc/server.js';
import type { GrpcEndpoint } from '../../contracts/grpc/endpoint.js';
import type { ApiServices } from '../services.js';
import type { PublicGrpcSettings } from '../settings.js';
import type { GrpcAuthorize } from './auth.js';
import { FinalBlocks, type EventChain } from './blockchain-events.js';
import { blockchainEventsService } from './blockchain-events-service.js';
import { transactionToProto } from '../../protocol/proto/transactions.js';
import { StreamLimits } from '../../contracts/grpc/stream-limits.js';
import { WeError } from '../../errors/catalogue.js';
import type { Transaction } from '../../protocol/transactions/schema.js';
import type { PublicGrpcDeps, PublicGrpcService } from './public-service.js';
import { nodeInfoService } from './node-info-service.js';
import { utilPublicService } from './util-service.js';
import { addressPublicService } from './address-service.js';
import { aliasPublicService } from './alias-service.js';
import { contractPublicService } from './contract-public-service.js';
import { privacyPublicService } from './privacy-service.js';
import { privacyEventsService } from './privacy-events-service.js';
import { transactionPublicService } from './transaction-public-service.js';
import { pkiPublicService } from './pki-service.js';

export interface PublicGrpcApiDeps {
  readonly services: ApiServices;
  /** The chain events are read from (the node's Blockchain). */
  readonly chain: EventChain;
  readonly settings: PublicGrpcSettings;
  readonly authorize: GrpcAuthorize;
  readonly log?: { warn(obj: object, msg: string): void };
}

/** WE's UnimplementedError, which the codec answers for a transaction with no protobuf form. */
const NO_PROTOBUF_FORM = 641;

/** A transaction's protobuf form; none for the few WE has none for (641: Exchange, a 105 paying a contract). */
function protoFormOf(tx: Transaction): Uint8Array | undefined {
  try {
    return transactionToProto(tx);
  } catch (e) {
    if (e instanceof WeError && e.code === NO_PROTOBUF_FORM) return undefined;
    throw e;
  }
}

/** Registers every public service on `endpoint`. */
export function servePublicGrpcApi(endpoint: GrpcEndpoint, deps: PublicGrpcApiDeps): void {
  const { services } = deps;
  const common: PublicGrpcDeps = { services, authorize: deps.authorize, errorOf: grpcErrorOf };
  const served: PublicGrpcService[] = [
    nodeInfoService(common),
    utilPublicService(common),
    addressPublicService(common),
    aliasPublicService(common),
    contractPublicService(common),
    transactionPublicService(common),
    blockchainEventsService({
      chain: deps.chain,
      finalBlocks: new FinalBlocks(deps.chain),
      encodeTransaction: protoFormOf,
      addressOf: (publicKey) => services.protocol.addresses.fromPublicKey(publicKey).bytes,
      authorize: deps.authorize,
      limits: new StreamLimits({ maxConnections: deps.settings.blockchainEventsMaxConnections }),
      errorOf: grpcErrorOf,
      ...(deps.log === undefined ? {} : { log: deps.log }),
    }),
  ];
  // WE registers the privacy pair only where privacy runs.
  if (services.privacy !== undefined)
    served.push(privacyPublicService(common), privacyEventsService(common, { maxConnections: deps.settings.privacyEventsMaxConnections }));
  // Certificates are a GOST network's (rule PKI-2): elsewhere the service is not there (UNIMPLEMENTED), as on WE's open-source node.
  if (services.pki !== undefined) served.push(pkiPublicService(common, services.pki));
  for (const s of served) endpoint.serve(s.definition, s.implementation);
}
