/**
 * PrivacyEventsService.SubscribeOn (WE's PrivacyEventsServiceImpl): a stream of
 * `DATA_ACQUIRED` and `DATA_INVALIDATED` events of confidential data.
 *
 * - Live: `DATA_ACQUIRED` when an item is stored on this node (its own send, or fetched from
 *   a peer), `DATA_INVALIDATED` when a rollback removes the PolicyDataHash (114) anchoring
 *   one (the privacy state's item events).
 * - History: from genesis (height 1) or from the block after `last_block_signature` (unknown:
 *   NOT_FOUND 301), one `DATA_ACQUIRED` per 114 in the chain's blocks up to the current one
 *   (Weft counts the liquid block; WE reads its stored blocks), those inside atomic
 *   containers included, in block order. `current_event` sends no history; no start point is
 *   INVALID_ARGUMENT. Live events that come while history is read are sent after it.
 * - Any `events_filters` is INVALID_ARGUMENT 199 (WE supports none), checked before
 *   anything else; then the stream limits (stream-limits.ts: `connection-id` 643,
 *   `max-connections` 642), then the privacy authorisation (618 / 614).
 *
 * Back-pressure: history is read block by block only while the client's stream has room
 * (grpc-js `write()` false → wait for `drain`), giving the event loop a turn between slices,
 * so a slow reader costs no memory and a long chain does not hold the loop. Live events queue
 * for a slow reader up to PRIVACY_EVENTS_BACKLOG (one event is under 200 bytes); past that the
 * stream ends with RESOURCE_EXHAUSTED and error 642 — the reader reconnects from a block it
 * knows and reads the acquisitions again as history. (WE buffers without such a bound.)
 */
import * as grpc from '@grpc/grpc-js';
import {
  PrivacyEvent_EventType,
  PrivacyEventsServiceService,
  type PrivacyEvent,
} from '@wavesenterprise/js-contract-grpc-client/privacy/privacy_events_service.js';
import type { SubscribeOnRequest } from '@wavesenterprise/js-contract-grpc-client/util/events/util_events_subscribe_on_request.js';
import { releaseWhenGone, StreamBacklog, StreamLimits, type StreamPlace } from '../../contracts/grpc/stream-limits.js';
import { encodeBase58 } from '../../crypto/encoding.js';
import { isAtomic } from '../../protocol/transactions/atomic.js';
import { PolicyDataHash } from '../../protocol/transactions/privacy.js';
import type { Transaction } from '../../protocol/transactions/schema.js';
import type { PrivacyItemEvent } from '../../privacy/state.js';
import { blockDoesNotExist, customValidationError, genericError } from '../../errors/catalogue.js';
import { privacyPolicies } from '../routes/privacy.js';
import type { ChainReader } from '../services.js';
import type { PublicGrpcDeps, PublicGrpcService } from './public-service.js';

/** Live events a stream queues for a reader that does not keep up, at most (about 200 KiB). */
export const PRIVACY_EVENTS_BACKLOG = 1024;

/** History is read in slices of about this many ms, the event loop given a turn after each. */
const HISTORY_SLICE_MS = 10;

const RECOVERY = 'reconnect from the last block read and take the acquisitions since as history';

export interface PrivacyEventsSettings {
  /** `node.api.grpc.services.privacy-events.max-connections` (WE: 5). */
  readonly maxConnections: number;
  /** Beyond WE: streams one client connection may hold (absent: all of them). */
  readonly maxConnectionsPerChannel?: number;
}

type EventStream = grpc.ServerWritableStream<SubscribeOnRequest, PrivacyEvent>;

const eventOf = (e: PrivacyItemEvent): PrivacyEvent => ({
  policyId: e.key.policyId,
  dataHash: e.key.hash,
  eventType: e.kind === 'acquired' ? PrivacyEvent_EventType.DATA_ACQUIRED : PrivacyEvent_EventType.DATA_INVALIDATED,
});

/** The 114s of a block's transactions, the inner ones of atomic containers included, as DATA_ACQUIRED events. */
function acquisitionsIn(txs: Iterable<Transaction>): PrivacyEvent[] {
  const out: PrivacyEvent[] = [];
  const add = (tx: Transaction): void => {
    if (PolicyDataHash.is(tx))
      out.push({ policyId: encodeBase58(tx.data.policyId), dataHash: encodeBase58(tx.data.dataHash), eventType: PrivacyEvent_EventType.DATA_ACQUIRED });
  };
  for (const tx of txs) {
    if (isAtomic(tx)) for (const inner of tx.data.transactions as readonly Transaction[]) add(inner);
    else add(tx);
  }
  return out;
}

/** The first height of history, or undefined for none (`current_event`); throws WE's error for no start point or an unknown block. */
function historyStart(request: SubscribeOnRequest, chain: ChainReader): number | undefined {
  if (request.genesisBlock !== undefined) return 1;
  if (request.blockSignature !== undefined) {
    const signature = request.blockSignature.lastBlockSignature;
    if (signature === undefined) throw genericError("Missing required field 'last_block_signature'", 'last_block_signature');
    const found = chain.blockById(signature);
    if (found === undefined) throw blockDoesNotExist(encodeBase58(signature), 'last_block_signature');
    return found.height + 1;
  }
  if (request.currentEvent !== undefined) return undefined;
  throw genericError("Missing required field 'start_from'", 'start_from');
}

export function privacyEventsService(deps: PublicGrpcDeps, settings: PrivacyEventsSettings): PublicGrpcService {
  const { services } = deps;
  const limits = new StreamLimits(settings);

  const subscribeOn = (call: EventStream): void => {
    let place: StreamPlace;
    let from: number | undefined;
    try {
      if (call.request.eventsFilters.length > 0) throw customValidationError('Events filters are not supported at the moment', 'events_filters');
      place = limits.admit(call);
    } catch (e) {
      call.emit('error', deps.errorOf(e));
      return;
    }
    let privacy;
    try {
      privacy = privacyPolicies(services);
      deps.authorize(call.metadata, 'privacy');
      from = historyStart(call.request, services.chain);
    } catch (e) {
      place.release();
      call.emit('error', deps.errorOf(e));
      return;
    }
    let gone = false;
    let wake: (() => void) | undefined;
    const resume = (): void => {
      wake?.();
      wake = undefined;
    };
    const backlog = new StreamBacklog<PrivacyEvent>(
      call,
      PRIVACY_EVENTS_BACKLOG,
      (e) => deps.errorOf(e),
      RECOVERY,
      () => stop(),
    );
    /** Live events held back while history is read. */
    let held: PrivacyEvent[] | undefined = from === undefined ? undefined : [];
    const unsubscribe = privacy.onItemEvent((e) => {
      if (held === undefined) backlog.push(eventOf(e));
      else if (held.length < PRIVACY_EVENTS_BACKLOG) held.push(eventOf(e));
      // Past the backlog while history is still read: the same end as a live reader falling behind.
      else backlog.fellBehind();
    });
    /** No more events for this stream (it ends, or is gone). */
    const stop = (): void => {
      if (gone) return;
      gone = true;
      unsubscribe();
      resume();
    };
    call.on('drain', resume);
    // The stream keeps its place until it is gone: an ended stream a client never reads still holds its buffers.
    releaseWhenGone(call, () => {
      stop();
      backlog.clear();
      place.release();
    });
    // The client sees the stream open at once, history or not.
    call.sendMetadata(new grpc.Metadata());
    if (from === undefined) return;

    const readHistory = async (start: number): Promise<void> => {
      const end = services.chain.height();
      let sliceStart = performance.now();
      for (let height = start; height <= end && !gone; height++) {
        const txs = services.chain.blockTransactionsAt(height);
        // A rollback took the block away meanwhile: its invalidations come live.
        if (txs === undefined) break;
        for (const event of acquisitionsIn(txs)) {
          if (gone) return;
          if (!call.write(event)) await new Promise<void>((resolve) => (wake = resolve));
        }
        if (performance.now() - sliceStart > HISTORY_SLICE_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          sliceStart = performance.now();
        }
      }
      const waiting = held ?? [];
      held = undefined;
      for (const e of waiting) backlog.push(e);
    };
    readHistory(from).catch((e: unknown) => {
      if (gone) return;
      stop();
      call.emit('error', deps.errorOf(e));
    });
  };

  return { definition: PrivacyEventsServiceService, implementation: { subscribeOn } };
}
