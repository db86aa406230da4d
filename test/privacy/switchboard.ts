/**
 * An in-process network for replication tests: nodes connected pairwise, each seeing the
 * others as PrivacyPeers. Messages travel as the encoded payloads messages.ts writes
 * (delivered asynchronously, as a socket would; one over its code's cap is not sent, as
 * the transport drops it), large-item streams as item-stream.ts
 * frames through a bounded queue (the sender waits while the receiver's buffer is full).
 * Every delivery is logged, so a test can show what a node did — and did not — receive.
 */
import type { KeyPair } from '../../src/crypto/suite.js';
import { MAX_PAYLOAD } from '../../src/network/framing.js';
import type { IncomingStream, PrivacyPeer, PrivacyPeers } from '../../src/privacy/peers.js';

export interface Delivery {
  readonly from: string;
  readonly to: string;
  /** A message code, or 'stream' for a stream frame. */
  readonly code: number | 'stream';
  readonly bytes: number;
}

type Listener = (peer: PrivacyPeer, code: number, payload: Uint8Array) => void;

/** Frames of one stream between two nodes: a bounded queue. */
class StreamQueue implements IncomingStream {
  private readonly frames: Uint8Array[] = [];
  private wakeReader: (() => void) | undefined;
  private wakeWriter: (() => void) | undefined;
  private failed: Error | undefined;
  private ended = false;

  constructor(private readonly capacity: number) {}

  /** Writer side: waits while the queue is full; drops frames once the reader cancelled. */
  async push(frame: Uint8Array): Promise<void> {
    while (this.frames.length >= this.capacity && this.failed === undefined) await new Promise<void>((r) => (this.wakeWriter = r));
    if (this.failed !== undefined || this.ended) return;
    this.frames.push(frame);
    if (frame.length === 0) this.ended = true;
    this.wakeReader?.();
  }

  cancel(reason?: Error): void {
    this.failed ??= reason ?? new Error('cancelled');
    this.wakeReader?.();
    this.wakeWriter?.();
  }

  get done(): boolean {
    return this.ended || this.failed !== undefined;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    for (;;) {
      if (this.failed !== undefined) throw this.failed;
      const frame = this.frames.shift();
      if (frame === undefined) {
        await new Promise<void>((r) => (this.wakeReader = r));
        continue;
      }
      this.wakeWriter?.();
      yield frame;
      if (frame.length === 0) return;
    }
  }
}

export interface BoardNode {
  readonly name: string;
  readonly ownerAddress: Uint8Array;
  readonly peers: PrivacyPeers;
}

export class Switchboard {
  readonly log: Delivery[] = [];
  private readonly listeners = new Map<string, Set<Listener>>();
  /** `to <- from` → the stream the receiver waits for on that connection. */
  private readonly streams = new Map<string, StreamQueue[]>();
  private readonly owners = new Map<string, Uint8Array>();
  private readonly sessions = new Map<string, KeyPair>();
  /** Set while stream frames past the first `held.after` of each stream wait for `releaseFrames()`. */
  private held: { readonly after: number; readonly gate: Promise<void>; readonly open: () => void } | undefined;
  /** Connections cut: `a|b`. */
  private readonly cut = new Set<string>();

  constructor(
    private readonly tls: boolean,
    private readonly sessionKey: (from: string, to: string) => KeyPair,
  ) {}

  /** Adds a node; it is connected to every other node. */
  add(name: string, ownerAddress: Uint8Array, options: { watcher?: boolean } = {}): BoardNode {
    this.owners.set(name, ownerAddress);
    this.listeners.set(name, new Set());
    this.watchers.set(name, options.watcher === true);
    return {
      name,
      ownerAddress,
      peers: {
        connected: () =>
          [...this.owners.keys()].filter((other) => other !== name && !this.cut.has([name, other].sort().join('|'))).map((other) => this.peer(name, other)),
        onMessage: (listener) => {
          this.listeners.get(name)!.add(listener);
          return () => this.listeners.get(name)!.delete(listener);
        },
      },
    };
  }

  private readonly watchers = new Map<string, boolean>();

  /** Disconnects two nodes. */
  disconnect(a: string, b: string): void {
    this.cut.add([a, b].sort().join('|'));
  }

  /** The peer `remote` as node `local` sees it. */
  peer(local: string, remote: string): PrivacyPeer {
    const session = (from: string, to: string): KeyPair => {
      const k = `${from}->${to}`;
      let pair = this.sessions.get(k);
      if (pair === undefined) this.sessions.set(k, (pair = this.sessionKey(from, to)));
      return pair;
    };
    return {
      id: `${local}:${remote}`,
      ownerAddress: this.owners.get(remote)!,
      watcher: this.watchers.get(remote) === true,
      sessionKeys: this.tls ? undefined : { own: session(local, remote), peer: session(remote, local).publicKey },
      send: (code, payload) => {
        const cap = MAX_PAYLOAD.get(code);
        if (cap === undefined || payload.length > cap) return false;
        this.log.push({ from: local, to: remote, code, bytes: payload.length });
        setImmediate(() => {
          for (const l of this.listeners.get(remote) ?? []) l(this.peer(remote, local), code, Uint8Array.from(payload));
        });
        return true;
      },
      sendStream: async (frames) => {
        const queue = this.streams.get(`${remote}<-${local}`)?.shift();
        let sent = 0;
        for await (const frame of frames) {
          if (this.held !== undefined && sent >= this.held.after) await this.held.gate;
          sent++;
          this.log.push({ from: local, to: remote, code: 'stream', bytes: frame.length });
          // Nobody waits for a stream on that side: the frames are lost, as garbage on a real connection would be.
          if (queue !== undefined) await queue.push(Uint8Array.from(frame));
        }
      },
      receiveStream: (bufferSize) => {
        const queue = new StreamQueue(bufferSize);
        const k = `${local}<-${remote}`;
        const list = this.streams.get(k) ?? [];
        list.push(queue);
        this.streams.set(k, list);
        return queue;
      },
    };
  }

  /** Holds every stream part-way: frames past the first `after` of a stream wait until `releaseFrames()`. */
  holdFramesAfter(after: number): void {
    let open = (): void => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    this.held = { after, gate, open };
  }

  /** Lets the held frames (and all later ones) go. */
  releaseFrames(): void {
    this.held?.open();
    this.held = undefined;
  }

  /** What node `to` received from anyone, by code. */
  received(to: string): Delivery[] {
    return this.log.filter((d) => d.to === to);
  }
}
