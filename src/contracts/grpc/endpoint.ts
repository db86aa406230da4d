/**
 * The node's gRPC port (`node.api.grpc`): one grpc-js server, h2c, that the contract services
 * (server.ts) and the public API's services (api/grpc/) are registered on, as WE serves them
 * all on port 6865. The node opens it when the public gRPC API is on or contracts run; a
 * contract engine started on its own (tests, tools) opens one of its own.
 */
import { chmodSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';

/** Largest message a client may send: a Broadcast of the largest transaction, a SendData chunk. */
const MAX_RECEIVE_MESSAGE_BYTES = 8 * 1024 * 1024;

export class GrpcEndpoint {
  /** Channelz off: its per-call trackers (timestamps, counters) serve no one here — the node exposes no channelz service. */
  private readonly server = new grpc.Server({ 'grpc.max_receive_message_length': MAX_RECEIVE_MESSAGE_BYTES, 'grpc.enable_channelz': 0 });
  private port: number | undefined;

  /** Listens (h2c) on `bindAddress:port`; port 0 picks a free one. Resolves to the bound port. */
  async listen(bindAddress: string, port: number): Promise<number> {
    const host = bindAddress.includes(':') ? `[${bindAddress}]` : bindAddress;
    this.port = await new Promise<number>((resolve, reject) => {
      this.server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (err, bound) => (err === null ? resolve(bound) : reject(err)));
    });
    return this.port;
  }

  /**
   * Also listens (h2c) on the unix socket `path`, which every local user may connect to (as
   * they may to a loopback port): contracts in a network namespace of their own reach the
   * server through it (process-sandbox.ts).
   */
  async listenUnix(path: string): Promise<void> {
    await new Promise<number>((resolve, reject) => {
      this.server.bindAsync(`unix:${path}`, grpc.ServerCredentials.createInsecure(), (err, bound) => (err === null ? resolve(bound) : reject(err)));
    });
    chmodSync(path, 0o666);
  }

  /** Registers a service (grpc-js takes it while serving). */
  serve(definition: grpc.ServiceDefinition, implementation: grpc.UntypedServiceImplementation): void {
    this.server.addService(definition, implementation);
  }

  get boundPort(): number | undefined {
    return this.port;
  }

  /** Stops accepting calls and ends the open ones (streams included) within 2 s. */
  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, 2000);
      this.server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
