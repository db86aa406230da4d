/**
 * WE's BlockchainEventsService (`messagebroker/messagebroker_blockchain_events_service.proto`):
 * SubscribeOn streams the chain's events to one reader (blockchain-events.ts says which and
 * when). Open under API-key auth, a user token under OAuth2; at most
 * `node.api.grpc.services.blockchain-events.max-connections` streams at once (one more →
 * UNAVAILABLE 642; `connection-id` metadata checked as WE does → INVALID_ARGUMENT 643).
 * Errors end the stream with WE's status and `error-code`/`error-message` trailers: no start
 * point → INVALID_ARGUMENT, an unknown block signature → NOT_FOUND 301.
 */
import type * as grpc from '@grpc/grpc-js';
import { BlockchainEventsServiceService } from '@wavesenterprise/js-contract-grpc-client/messagebroker/messagebroker_blockchain_events_service.js';
import { SubscribeOnRequest } from '@wavesenterprise/js-contract-grpc-client/util/events/util_events_subscribe_on_request.js';
import { EventCursor, startFromRequest, type BlockchainEventsDeps, type EventsFilter } from './blockchain-events.js';
import type { GrpcAuthorize } from './auth.js';
import type { StreamLimits } from '../../contracts/grpc/stream-limits.js';

export interface BlockchainEventsServiceDeps extends BlockchainEventsDeps {
  readonly authorize: GrpcAuthorize;
  /** `services.blockchain-events.max-connections` and the `connection-id` rule. */
  readonly limits: StreamLimits;
  readonly errorOf: (e: unknown) => Partial<grpc.StatusObject>;
  readonly log?: { warn(obj: object, msg: string): void };
}

/** The request's filters as WE reads them: out when `filter_out` is set, in otherwise. */
function filtersOf(request: SubscribeOnRequest): EventsFilter[] {
  return request.eventsFilters.map((f) => {
    const out = f.filterOut !== undefined;
    if (f.txTypeFilter !== undefined) return { out, txTypes: f.txTypeFilter.txTypes };
    if (f.contractIdFilter !== undefined) return { out, contractIds: f.contractIdFilter.contractIds };
    return { out };
  });
}

export function blockchainEventsService(deps: BlockchainEventsServiceDeps): {
  definition: grpc.ServiceDefinition;
  implementation: grpc.UntypedServiceImplementation;
} {
  const subscribeOn = BlockchainEventsServiceService.subscribeOn;
  const definition: grpc.ServiceDefinition = {
    subscribeOn: {
      ...subscribeOn,
      // Events are encoded once into bytes (event-messages.ts); grpc-js sends them as they are.
      responseSerialize: (event: Uint8Array) => Buffer.from(event.buffer, event.byteOffset, event.byteLength),
    },
  };
  const implementation: grpc.UntypedServiceImplementation = {
    subscribeOn: (call: grpc.ServerWritableStream<SubscribeOnRequest, Uint8Array>) => {
      let release: (() => void) | undefined;
      try {
        const place = deps.limits.admit(call);
        release = () => place.release();
        deps.authorize(call.metadata, 'user');
        const cursor = new EventCursor(deps, startFromRequest(call.request), filtersOf(call.request), {
          write: (event) => call.write(event),
          // A reader that goes while its buffer is full ends the wait too.
          drained: () =>
            new Promise<void>((resolve) => {
              const done = (): void => {
                call.off('drain', done);
                call.off('close', done);
                resolve();
              };
              call.on('drain', done);
              call.on('close', done);
            }),
        });
        const end = (): void => {
          cursor.close();
          release?.();
          release = undefined;
        };
        call.on('cancelled', end);
        call.on('close', end);
        call.on('error', end);
        void cursor.run().catch((e: unknown) => {
          deps.log?.warn({ err: e }, 'blockchain events stream ended on an error');
          end();
          call.emit('error', deps.errorOf(e));
        });
      } catch (e) {
        release?.();
        call.emit('error', deps.errorOf(e));
      }
    },
  };
  return { definition, implementation };
}
