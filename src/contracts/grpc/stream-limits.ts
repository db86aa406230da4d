/**
 * How the node's gRPC event streams are limited (WE's ConnectionsLimiter and
 * ConnectionIdsHolder), shared by every streaming service on the port: ContractStatusService
 * here, and the public services of src/api/grpc (privacy events, blockchain events, the
 * privacy uploads).
 *
 * - `connection-id` metadata names a stream: at most 16 characters, not blank, not in use
 *   by another open stream of the service — else INVALID_ARGUMENT with error 643. Without
 *   it the stream gets a generated id (8 lower-case characters).
 * - At most `maxConnections` streams of a service at once: one more is refused with
 *   UNAVAILABLE and error 642 (`max-connections` of the service's settings).
 * - Beyond WE, so that one client cannot take every place: at most
 *   `maxConnectionsPerChannel` of them over one client connection (its remote address and
 *   port), else UNAVAILABLE 642 naming that limit.
 *
 * The checks run in WE's order: the id, then the service's limit, then the channel's; the
 * caller authorises after (a refused authorisation gives the place back). A stream keeps its
 * place until it is gone — cancelled by the client or its end read — so an ended stream the
 * client never reads still counts (it still holds its buffers).
 *
 * StreamBacklog bounds what a stream holds for a reader that does not keep up: messages wait
 * while HTTP/2 flow control stops the writes, up to a limit; past it the stream is ended with
 * RESOURCE_EXHAUSTED and error 642, its queue dropped, so no reader grows the node's memory.
 */
import * as grpc from '@grpc/grpc-js';
import { randomBytes } from 'node:crypto';
import { invalidConnectionId, streamReaderBehind, tooManyChannelConnections, tooManyConnections } from '../../errors/catalogue.js';

export const CONNECTION_ID_METADATA_KEY = 'connection-id';
export const CONNECTION_ID_MAX_LENGTH = 16;

/** The part of a grpc-js call the limits read. */
export interface LimitedCall {
  readonly metadata: grpc.Metadata;
  getPeer(): string;
}

/** A text metadata value (the first one under `key`). */
export function metadataText(metadata: grpc.Metadata, key: string): string | undefined {
  const v = metadata.get(key)[0];
  return v === undefined ? undefined : typeof v === 'string' ? v : v.toString('utf8');
}

/** A place held by a stream: its id, and how to give the place back (once; later calls do nothing). */
export interface StreamPlace {
  readonly connectionId: string;
  release(): void;
}

/** The connection ids in use by one service (WE's ConnectionIdsHolder). */
export class ConnectionIds {
  private readonly inUse = new Set<string>();

  /** The call's id (named by its metadata or generated), now in use; throws 643 for a bad or taken one. */
  take(metadata: grpc.Metadata): StreamPlace {
    const named = metadataText(metadata, CONNECTION_ID_METADATA_KEY);
    let id: string;
    if (named === undefined) {
      do id = randomBytes(6).toString('base64url').toLowerCase().slice(0, 8);
      while (this.inUse.has(id));
    } else if (named.length > CONNECTION_ID_MAX_LENGTH) {
      throw invalidConnectionId(`'${CONNECTION_ID_METADATA_KEY}' metadata value max length is ${CONNECTION_ID_MAX_LENGTH}. Got '${named.length}'`);
    } else if (named.trim() === '') {
      throw invalidConnectionId(`'${CONNECTION_ID_METADATA_KEY}' metadata value must be non-empty`);
    } else if (this.inUse.has(named)) {
      throw invalidConnectionId(`Connection Id '${named}' already in use`);
    } else id = named;
    this.inUse.add(id);
    let released = false;
    return {
      connectionId: id,
      release: () => {
        if (released) return;
        released = true;
        this.inUse.delete(id);
      },
    };
  }

  get size(): number {
    return this.inUse.size;
  }
}

export interface StreamLimitSettings {
  /** Streams of the service open at once (WE's `max-connections`). */
  readonly maxConnections: number;
  /** Streams open at once over one client connection (absent: the service's limit). */
  readonly maxConnectionsPerChannel?: number;
}

/** The open streams of one service, under its limits. */
export class StreamLimits {
  private readonly ids = new ConnectionIds();
  private readonly perChannel = new Map<string, number>();

  constructor(private readonly settings: StreamLimitSettings) {}

  /** Admits a stream (643 for its id, 642 past a limit); the place is the stream's until released. */
  admit(call: LimitedCall): StreamPlace {
    const id = this.ids.take(call.metadata);
    if (this.ids.size > this.settings.maxConnections) {
      id.release();
      throw tooManyConnections(this.settings.maxConnections);
    }
    const channel = call.getPeer();
    const onChannel = this.perChannel.get(channel) ?? 0;
    const perChannel = this.settings.maxConnectionsPerChannel ?? this.settings.maxConnections;
    if (onChannel >= perChannel) {
      id.release();
      throw tooManyChannelConnections(perChannel);
    }
    this.perChannel.set(channel, onChannel + 1);
    let released = false;
    return {
      connectionId: id.connectionId,
      release: () => {
        if (released) return;
        released = true;
        id.release();
        const left = (this.perChannel.get(channel) ?? 1) - 1;
        if (left > 0) this.perChannel.set(channel, left);
        else this.perChannel.delete(channel);
      },
    };
  }

  /** Streams open now. */
  get open(): number {
    return this.ids.size;
  }
}

/** Calls `release` once the stream is gone: cancelled by the client, or closed after its end was read. */
export function releaseWhenGone(call: grpc.ServerWritableStream<unknown, unknown>, release: () => void): void {
  let done = false;
  const once = (): void => {
    if (done) return;
    done = true;
    release();
  };
  call.on('cancelled', once);
  call.on('close', once);
}

/**
 * Writes messages to a server stream as its reader takes them: written at once while the
 * stream has room, else queued, at most `limit` messages. One more ends the stream with
 * RESOURCE_EXHAUSTED and error 642 (`recovery` tells the reader how to catch up), the queue
 * dropped; `onOverflow` is told so the producer stops.
 */
export class StreamBacklog<T> {
  private readonly waiting: T[] = [];
  private ended = false;

  constructor(
    private readonly call: grpc.ServerWritableStream<unknown, T>,
    private readonly limit: number,
    private readonly errorOf: (e: unknown) => Partial<grpc.StatusObject>,
    private readonly recovery: string,
    private readonly onOverflow: () => void,
  ) {
    call.on('drain', () => this.flush());
  }

  /** Whether the stream still takes messages. */
  get open(): boolean {
    return !this.ended && !this.call.cancelled && !this.call.writableEnded;
  }

  /** Messages queued, not yet handed to the stream. */
  get queued(): number {
    return this.waiting.length;
  }

  push(message: T): void {
    if (!this.open) return;
    if (this.waiting.length === 0 && !this.call.writableNeedDrain) {
      this.call.write(message);
      return;
    }
    this.waiting.push(message);
    if (this.waiting.length > this.limit) this.fellBehind();
  }

  /** Ends the stream as one whose reader fell `limit` messages behind (also for messages its producer held back itself). */
  fellBehind(): void {
    if (!this.open) return;
    this.ended = true;
    this.waiting.length = 0;
    this.onOverflow();
    this.call.emit('error', { ...this.errorOf(streamReaderBehind(this.limit, this.recovery)), code: grpc.status.RESOURCE_EXHAUSTED });
  }

  /** Drops what waits (the stream is gone). */
  clear(): void {
    this.ended = true;
    this.waiting.length = 0;
  }

  private flush(): void {
    while (this.waiting.length > 0 && !this.call.writableNeedDrain && this.open) this.call.write(this.waiting.shift()!);
  }
}
