/**
 * Running Docker-protocol contracts, whatever starts them (WE's DockerContractExecutor and
 * ContractReusedContainers): one running contract per (imageHash, image), shared by every
 * contract created from that image and all their transactions — or several, numbered from 0,
 * when the image is configured with more `instances` (each its own connection).
 *
 * A launcher (a local process, a Docker container) starts one with the four variables
 * every WE contract gets — CONNECTION_ID, CONNECTION_TOKEN, NODE, NODE_PORT — and the
 * runtime waits for its first Connect (`startup-timeout`, recoverable). It is dropped and
 * stopped when its stream ends, when it exits, when it sat idle for
 * `remove-container-after`, and at close; the next transaction starts a fresh one.
 */
import { createHash } from 'node:crypto';
import type { ExecutionBroker } from './broker.js';
import { ContractExecutionException } from '../errors/catalogue.js';
import type { ContractTokens } from './tokens.js';

/** WE's ContainerKey. */
export interface ContainerKey {
  readonly image: string;
  readonly imageHash: string;
}

/** What a launcher gives the contract. */
export interface ContractEnv {
  readonly CONNECTION_ID: string;
  readonly CONNECTION_TOKEN: string;
  readonly NODE: string;
  readonly NODE_PORT: string;
}

/** A started process or container. */
export interface LaunchedContract {
  /** Its name in messages and logs (`process 1234`, `container 3f2a…`). */
  readonly name: string;
  /** Resolves when it exits by itself (or after stop). */
  readonly exited: Promise<void>;
  /** Stops it and releases what it holds (removes a container). */
  stop(): Promise<void>;
}

export interface ContractLauncher {
  readonly kind: 'process' | 'docker';
  /** Host the contract reaches the node's gRPC server at (NODE). */
  readonly nodeHost: string;
  /**
   * Starts the contract of `key` with `env` (`instance`: which of the image's running
   * contracts it is); fails with a ContractExecutionException (fatal for a wrong digest or a
   * missing image).
   */
  launch(key: ContainerKey, env: ContractEnv, instance?: number): Promise<LaunchedContract>;
  /** Checks the image of an update exists and matches its hash, without starting it. */
  check(key: ContainerKey): Promise<void>;
}

export interface RuntimeLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
  /** Whether a level is logged (pino's); taken as yes when absent. */
  isLevelEnabled?(level: string): boolean;
}

export interface ContractRuntimeOptions {
  readonly startupTimeoutMs: number;
  readonly idleTimeoutMs: number;
  /** WE's remove-container-on-fail: stop what did not connect in time. */
  readonly removeOnFail: boolean;
  /** The node's gRPC port, as bound (NODE_PORT). */
  nodePort(): number;
  readonly log?: RuntimeLog;
}

/** A contract that is connected and can take transactions. */
export interface StartedContract {
  readonly connectionId: string;
  readonly name: string;
}

interface Entry {
  readonly key: ContainerKey;
  readonly instance: number;
  readonly connectionId: string;
  /** Settles once the contract is connected (or failed to be). */
  readonly ready: Promise<StartedContract>;
  launched: LaunchedContract | undefined;
  idleTimer: NodeJS.Timeout | undefined;
  /** When it was last used (performance.now()). */
  usedAt: number;
  removed: boolean;
}

const imageId = (key: ContainerKey): string => `${key.imageHash}|${key.image}`;
const keyId = (key: ContainerKey, instance: number): string => `${imageId(key)}#${instance}`;

export class ContractRuntime {
  private readonly entries = new Map<string, Entry>();
  private starts = 0;
  private closed = false;

  constructor(
    readonly launcher: ContractLauncher,
    private readonly broker: ExecutionBroker,
    private readonly tokens: ContractTokens,
    private readonly options: ContractRuntimeOptions,
  ) {}

  get kind(): 'process' | 'docker' {
    return this.launcher.kind;
  }

  /** Whether the contract of `key` (that instance of it) is connected now (WE's contractStarted). */
  isStarted(key: ContainerKey, instance = 0): boolean {
    const e = this.entries.get(keyId(key, instance));
    return e !== undefined && this.broker.isConnected(e.connectionId);
  }

  /** The connected contract of `key` (that instance of it), starting it when none runs (a start in progress is shared). */
  ensureStarted(key: ContainerKey, instance = 0): Promise<StartedContract> {
    if (this.closed) return Promise.reject(new ContractExecutionException('The contract engine is stopped'));
    const existing = this.entries.get(keyId(key, instance));
    if (existing !== undefined) {
      this.touch(existing);
      return existing.ready;
    }
    const entry = this.start(key, instance);
    this.entries.set(keyId(key, instance), entry);
    return entry.ready;
  }

  /** Marks the contract of `key` (that instance of it) as used now (the idle clock restarts). */
  used(key: ContainerKey, instance = 0): void {
    const e = this.entries.get(keyId(key, instance));
    if (e !== undefined) this.touch(e);
  }

  private start(key: ContainerKey, instance: number): Entry {
    const connectionId = createHash('sha256')
      .update(`${keyId(key, instance)}|${process.pid}|${++this.starts}`)
      .digest('hex')
      .slice(0, 16);
    const entry: Entry = {
      key,
      instance,
      connectionId,
      ready: undefined as unknown as Promise<StartedContract>,
      launched: undefined,
      idleTimer: undefined,
      usedAt: 0,
      removed: false,
    };
    (entry as { ready: Promise<StartedContract> }).ready = this.launchAndConnect(entry);
    entry.ready.catch(() => void this.remove(entry, 'start failed'));
    return entry;
  }

  private async launchAndConnect(entry: Entry): Promise<StartedContract> {
    const { key, connectionId } = entry;
    const env: ContractEnv = {
      CONNECTION_ID: connectionId,
      CONNECTION_TOKEN: await this.tokens.connectionToken(connectionId),
      NODE: this.launcher.nodeHost,
      NODE_PORT: String(this.options.nodePort()),
    };
    const connected = this.broker.expect(connectionId, () => void this.remove(entry, 'connection lost'));
    // A start that fails before connecting must not leave the expectation's rejection unobserved.
    connected.catch(() => undefined);
    let launched: LaunchedContract;
    try {
      launched = await this.launcher.launch(key, env, entry.instance);
    } catch (e) {
      this.broker.forget(connectionId);
      throw e;
    }
    entry.launched = launched;
    if (entry.removed) {
      await launched.stop();
      throw new ContractExecutionException(`Contract '${key.image}' was stopped while starting`);
    }
    void launched.exited.then(() => this.remove(entry, 'exited'));
    const exitedFirst = launched.exited.then(() => {
      throw new ContractExecutionException(`Contract ${launched.name} of image '${key.image}' exited before it connected`, 1);
    });
    exitedFirst.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new ContractExecutionException(`Container '${launched.name}' startup timeout for image '${key.image}', imageId '${key.imageHash}'`, 1)),
        this.options.startupTimeoutMs,
      );
    });
    try {
      await Promise.race([connected, exitedFirst, timedOut]);
    } finally {
      clearTimeout(timer);
    }
    this.options.log?.info({ image: key.image, contract: launched.name, connectionId }, 'contract connected');
    this.touch(entry);
    return { connectionId, name: launched.name };
  }

  /**
   * Marks a use: the idle clock restarts. One timer per running contract, looking at the time
   * of the last use when it fires, instead of a timer cleared and set again on every call.
   */
  private touch(entry: Entry): void {
    entry.usedAt = performance.now();
    if (entry.idleTimer === undefined) this.watchIdle(entry, this.options.idleTimeoutMs);
  }

  private watchIdle(entry: Entry, inMs: number): void {
    entry.idleTimer = setTimeout(() => {
      entry.idleTimer = undefined;
      if (entry.removed) return;
      const idleMs = performance.now() - entry.usedAt;
      if (idleMs >= this.options.idleTimeoutMs) void this.remove(entry, 'idle');
      else this.watchIdle(entry, this.options.idleTimeoutMs - idleMs);
    }, inMs);
    entry.idleTimer.unref();
  }

  /** Drops every running contract of `key` (the next transaction starts a new one). */
  async invalidate(key: ContainerKey): Promise<void> {
    const image = imageId(key);
    await Promise.all([...this.entries.values()].filter((e) => imageId(e.key) === image).map((e) => this.remove(e, 'invalidated')));
  }

  private async remove(entry: Entry, why: string): Promise<void> {
    if (entry.removed) return;
    entry.removed = true;
    if (this.entries.get(keyId(entry.key, entry.instance)) === entry) this.entries.delete(keyId(entry.key, entry.instance));
    if (entry.idleTimer !== undefined) clearTimeout(entry.idleTimer);
    this.broker.forget(entry.connectionId);
    const launched = entry.launched;
    if (launched === undefined) return;
    if (why === 'start failed' && !this.options.removeOnFail) return;
    this.options.log?.debug({ image: entry.key.image, contract: launched.name, why }, 'stopping contract');
    try {
      await launched.stop();
    } catch (e) {
      this.options.log?.warn({ err: e, contract: launched.name }, 'could not stop contract');
    }
  }

  /** Stops every contract (node shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.entries.values()].map((e) => this.remove(e, 'node stop')));
  }
}
