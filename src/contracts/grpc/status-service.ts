/**
 * Execution statuses on the node's public gRPC API (WE's ContractStatusService, proto
 * `util/util_contract_status_service.proto`, served on the same port as the contract
 * services): `ContractExecutionStatuses(tx_id)` streams the statuses the node holds for one
 * executable transaction, oldest first, then ends; `ContractsExecutionEvents(Empty)` streams
 * every status recorded or received from then on until the client cancels.
 *
 * As WE: a transaction id that is not Base58, or one without statuses, ends the stream with
 * UNKNOWN and the error's message. Event streams are limited to `max-connections` at once
 * (`node.api.grpc.services.contract-status-events.max-connections`, 5): one more is refused
 * with UNAVAILABLE and error 642; a client may name its stream with the `connection-id`
 * metadata (1…16 characters, unique among open streams — error 643 otherwise).
 * Authorisation is the node's: open under API-key auth (WE's WithoutProtection), a user
 * token under OAuth2 — `authorize` is asked with the `authorization` metadata.
 *
 * Beyond WE, so that no client grows the node's memory: one client connection (a gRPC
 * channel: its remote address and port) may be held to `max-connections-per-channel` of
 * the streams (unset, one connection may hold all the node's, as in WE) — one more is refused with UNAVAILABLE and error 642 naming that limit — and a
 * stream holds at most STATUS_STREAM_BACKLOG statuses its reader has not taken (HTTP/2 flow
 * control stops the writes when the reader stops reading). A reader that falls further
 * behind has its stream ended with RESOURCE_EXHAUSTED and error 642 (the statuses queued for
 * it are dropped; it reconnects and reads the ones it missed by transaction id); the stream
 * keeps its place under both limits until the client reads its end or goes away.
 */
import * as grpc from '@grpc/grpc-js';
import type { Empty } from '@wavesenterprise/js-contract-grpc-client/google/protobuf/empty.js';
import {
  ContractExecutionResponse_Status,
  ContractStatusServiceService,
  type ContractExecutionRequest,
  type ContractExecutionResponse,
} from '@wavesenterprise/js-contract-grpc-client/util/util_contract_status_service.js';
import { decodeBase58, encodeBase58 } from '../../crypto/encoding.js';
import { contractExecutionNotFound, genericError } from '../../errors/catalogue.js';
import type { Protocol } from '../../protocol/protocol.js';
import { DEFAULT_CONTRACT_STATUS_MAX_CONNECTIONS, type ContractsSettings } from '../settings.js';
import type { ExecutionStatus } from '../result.js';
import type { ContractExecutionMessage, ExecutionStatusBook } from '../statuses.js';
import { long } from './mapping.js';
import { metadataText, releaseWhenGone, StreamBacklog, StreamLimits, type StreamPlace } from './stream-limits.js';

/** How a reader whose stream was ended for falling behind catches up. */
const STATUS_RECOVERY = 'reconnect and read the statuses missed by transaction id';

/**
 * Statuses an event stream queues for a reader that does not keep up, at most: each is at most
 * 5 KiB, so a stream holds at most ~5 MiB (and the node `max-connections` times that). A
 * healthy reader takes them as fast as a miner records them.
 */
export const STATUS_STREAM_BACKLOG = 1024;

export interface ContractStatusServiceDeps {
  readonly statuses: ExecutionStatusBook;
  readonly protocol: Protocol;
  /** Event streams open at once (WE's contract-status-events.max-connections). */
  readonly maxConnections: number;
  /** Event streams open at once over one client connection (contract-status-events.max-connections-per-channel). */
  readonly maxConnectionsPerChannel: number;
  /** Checks a call's `authorization` metadata; throws the WeError to answer. Open when absent. */
  readonly authorize?: (authorization: string | undefined) => void;
}

/** The service's deps on a node: its status book and `node.api.grpc.services.contract-status-events` limits. */
export function statusServiceDeps(
  grpcSettings: ContractsSettings['grpc'],
  statuses: ExecutionStatusBook,
  protocol: Protocol,
  authorize?: (authorization: string | undefined) => void,
): ContractStatusServiceDeps {
  const maxConnections = grpcSettings.contractStatusMaxConnections ?? DEFAULT_CONTRACT_STATUS_MAX_CONNECTIONS;
  return {
    statuses,
    protocol,
    maxConnections,
    // Unset, one client connection may hold all of them, as in WE (grpc-js clients of one process share a connection).
    maxConnectionsPerChannel: grpcSettings.contractStatusMaxConnectionsPerChannel ?? maxConnections,
    ...(authorize === undefined ? {} : { authorize }),
  };
}

const STATUS: Readonly<Record<ExecutionStatus, ContractExecutionResponse_Status>> = {
  Success: ContractExecutionResponse_Status.SUCCESS,
  Error: ContractExecutionResponse_Status.ERROR,
  Failure: ContractExecutionResponse_Status.FAILURE,
};

/** A status message as the service sends it (WE's ContractExecutionMessage.toProto). */
export function statusResponse(m: ContractExecutionMessage, protocol: Protocol): ContractExecutionResponse {
  const address = protocol.addresses.fromPublicKey(m.senderPublicKey).toString();
  return {
    sender: address,
    txId: encodeBase58(m.txId),
    status: STATUS[m.status],
    code: m.code ?? undefined,
    message: m.message,
    timestamp: long(m.timestamp),
    signature: encodeBase58(m.signature()),
    senderAddress: address,
    senderPublicKey: encodeBase58(m.senderPublicKey),
  };
}

type StatusStream<Req> = grpc.ServerWritableStream<Req, ContractExecutionResponse>;

/** The service definition and its implementation, for `grpc.Server#addService`. */
export function contractStatusService(
  deps: ContractStatusServiceDeps,
  errorOf: (e: unknown) => Partial<grpc.StatusObject>,
): {
  readonly definition: typeof ContractStatusServiceService;
  readonly implementation: grpc.UntypedServiceImplementation;
} {
  const limits = new StreamLimits({ maxConnections: deps.maxConnections, maxConnectionsPerChannel: deps.maxConnectionsPerChannel });
  const authorize = (call: grpc.ServerWritableStream<unknown, unknown>): void => deps.authorize?.(metadataText(call.metadata, 'authorization'));

  const contractExecutionStatuses = (call: StatusStream<ContractExecutionRequest>): void => {
    try {
      authorize(call);
    } catch (e) {
      call.emit('error', errorOf(e));
      return;
    }
    const raw = call.request.txId;
    let txId: Uint8Array;
    try {
      txId = decodeBase58(raw);
    } catch {
      call.emit('error', { code: grpc.status.UNKNOWN, details: genericError(`Failed to decode base58 transaction id value '${raw}'`).message });
      return;
    }
    const found = raw === '' ? undefined : deps.statuses.statuses(txId);
    if (found === undefined) {
      call.emit('error', { code: grpc.status.UNKNOWN, details: contractExecutionNotFound(raw).message });
      return;
    }
    for (const m of found) call.write(statusResponse(m, deps.protocol));
    call.end();
  };

  const contractsExecutionEvents = (call: StatusStream<Empty>): void => {
    let place: StreamPlace;
    try {
      place = limits.admit(call);
    } catch (e) {
      call.emit('error', errorOf(e));
      return;
    }
    try {
      authorize(call);
    } catch (e) {
      place.release();
      call.emit('error', errorOf(e));
      return;
    }
    const backlog = new StreamBacklog<ContractExecutionResponse>(call, STATUS_STREAM_BACKLOG, errorOf, STATUS_RECOVERY, () => unsubscribe());
    const unsubscribe = deps.statuses.subscribe((m) => backlog.push(statusResponse(m, deps.protocol)));
    releaseWhenGone(call, () => {
      unsubscribe();
      backlog.clear();
      place.release();
    });
  };

  return {
    definition: ContractStatusServiceService,
    implementation: { contractExecutionStatuses, contractsExecutionEvents },
  };
}
