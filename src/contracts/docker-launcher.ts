/**
 * The Docker runtime: WE's DockerEngine over the Engine API on the daemon's socket
 * (dockerode). For an image and its imageHash:
 *
 *   inspect by imageHash → (not found) pull the normalised name, with the registry's
 *   credentials → inspect by name → the image Id (without `sha256:`) must equal imageHash
 *   (WE's fatal digest error otherwise) and the full name must be among its RepoTags or
 *   RepoDigests (else pull again and re-check) → create a container from the Id with the
 *   four variables, the memory and memory-swap limits → start.
 *
 * Networking: without `docker-engine.grpc-server.host` the container shares the host's
 * network and reaches the node at 127.0.0.1; with it, the container uses Docker's default
 * network and NODE is that host. The container's output goes to the node log; it is
 * force-removed when the runtime drops it.
 */
import { PassThrough } from 'node:stream';
import Docker from 'dockerode';
import { ContractExecutionException, imageDigestMismatch } from '../errors/catalogue.js';
import { forwardLines } from './output-lines.js';
import { normalizeImageName, type ImageName } from './packages.js';
import type { ContainerKey, ContractEnv, ContractLauncher, LaunchedContract, RuntimeLog } from './runtime.js';
import type { RegistryAuth } from './settings.js';

export interface DockerLauncherOptions {
  /** `docker-host` (`unix:///path`, `tcp://host:port`); undefined: DOCKER_HOST or /var/run/docker.sock. */
  readonly dockerHost: string | undefined;
  readonly memoryMb: number;
  readonly memorySwapMb: number;
  readonly defaultRegistryDomain: string | undefined;
  readonly registries: readonly RegistryAuth[];
  /** `grpc-server.host`: NODE for the containers; undefined means host networking and 127.0.0.1. */
  readonly nodeHost: string | undefined;
  /** Extra environment per image (configured packages with runtime docker). */
  envFor?(image: string): Readonly<Record<string, string>>;
  readonly log?: RuntimeLog;
}

const MB = 1024 * 1024;

/** A dockerode client for `docker-host`. */
export function dockerClient(dockerHost: string | undefined): Docker {
  const host = dockerHost ?? process.env['DOCKER_HOST'];
  if (host === undefined || host === '') return new Docker({ socketPath: '/var/run/docker.sock' });
  if (host.startsWith('unix://')) return new Docker({ socketPath: host.slice('unix://'.length) });
  const url = new URL(host.replace(/^tcp:/, 'http:'));
  return new Docker({ host: url.hostname, port: Number(url.port === '' ? 2375 : url.port), protocol: 'http' });
}

function statusCodeOf(e: unknown): number | undefined {
  const code = (e as { statusCode?: unknown }).statusCode;
  return typeof code === 'number' ? code : undefined;
}

export class DockerLauncher implements ContractLauncher {
  readonly kind = 'docker' as const;
  readonly nodeHost: string;
  readonly docker: Docker;

  constructor(private readonly options: DockerLauncherOptions) {
    this.docker = dockerClient(options.dockerHost);
    this.nodeHost = options.nodeHost ?? '127.0.0.1';
  }

  /** Whether the daemon answers (WE pings it at start-up). */
  async ping(): Promise<boolean> {
    try {
      await this.docker.ping();
      return true;
    } catch {
      return false;
    }
  }

  private authFor(name: ImageName): Docker.AuthConfig | undefined {
    const r = this.options.registries.find((x) => x.domain === name.domain);
    return r === undefined ? undefined : { username: r.username, password: r.password, serveraddress: r.domain };
  }

  private async pull(name: ImageName): Promise<void> {
    try {
      const stream = await this.docker.pull(name.fullName, { authconfig: this.authFor(name) });
      await new Promise<void>((resolve, reject) => this.docker.modem.followProgress(stream, (err: Error | null) => (err === null ? resolve() : reject(err))));
    } catch (e) {
      const why = statusCodeOf(e) === 404 ? ', image is not found in registry' : ' from registry';
      throw new ContractExecutionException(`Can't pull image '${name.fullName}'${why}`, undefined, true, { cause: e });
    }
  }

  private async inspect(ref: string): Promise<Docker.ImageInspectInfo | undefined> {
    try {
      return await this.docker.getImage(ref).inspect();
    } catch (e) {
      if (statusCodeOf(e) === 404) return undefined;
      throw new ContractExecutionException(`Can't inspect image with id '${ref}'`, undefined, true, { cause: e });
    }
  }

  /** WE's inspectContractImage: the checked image for a contract. */
  async inspectContractImage(key: ContainerKey): Promise<Docker.ImageInspectInfo> {
    const name = normalizeImageName(key.image, this.options.defaultRegistryDomain);
    let info = await this.inspect(key.imageHash);
    if (info === undefined) {
      this.options.log?.warn({ image: key.image, imageHash: key.imageHash }, `Image is not found. Pulling image by name '${name.fullName}' from registry...`);
      await this.pull(name);
      info = await this.inspect(name.fullName);
      if (info === undefined) throw new ContractExecutionException(`Can't inspect image with id '${name.fullName}'`, undefined, true);
    }
    const check = (i: Docker.ImageInspectInfo): boolean => {
      const id = i.Id.replace(/^sha256:/, '');
      if (id !== key.imageHash) throw imageDigestMismatch(id, key.image, key.imageHash);
      return [...(i.RepoDigests ?? []), ...(i.RepoTags ?? [])].includes(name.fullName);
    };
    if (check(info)) return info;
    this.options.log?.warn(
      { image: key.image },
      `Image name check failed: tags and digests don't contain its full name '${name.fullName}'. Pulling image from registry to update its tags and digests...`,
    );
    await this.pull(name);
    const pulled = await this.inspect(name.fullName);
    if (pulled === undefined || !check(pulled)) {
      throw new ContractExecutionException(
        `Invalid image name '${key.image}' for image with id '${info.Id}'. RepoTags and RepoDigests don't contain its full name '${name.fullName}'`,
        undefined,
        true,
      );
    }
    return pulled;
  }

  async check(key: ContainerKey): Promise<void> {
    await this.inspectContractImage(key);
  }

  async launch(key: ContainerKey, env: ContractEnv): Promise<LaunchedContract> {
    const image = await this.inspectContractImage(key);
    const extra = this.options.envFor?.(key.image) ?? {};
    const variables = { ...extra, ...env };
    let container: Docker.Container;
    try {
      container = await this.docker.createContainer({
        Image: image.Id,
        Env: Object.entries(variables).map(([k, v]) => `${k}=${v}`),
        HostConfig: {
          Memory: this.options.memoryMb * MB,
          MemorySwap: this.options.memorySwapMb * MB,
          ...(this.options.nodeHost === undefined ? { NetworkMode: 'host' } : {}),
        },
      });
      await container.start();
    } catch (e) {
      throw new ContractExecutionException(`Can't start container for image '${key.image}': ${(e as Error).message}`, undefined, true, { cause: e });
    }
    const name = `container ${container.id.slice(0, 12)}`;
    this.followLogs(container, { image: key.image, contract: name });
    const exited = container.wait().then(
      () => undefined,
      () => undefined,
    );
    return {
      name,
      exited,
      stop: async () => {
        try {
          await container.remove({ force: true });
        } catch (e) {
          if (statusCodeOf(e) !== 404 && statusCodeOf(e) !== 409) throw e;
        }
      },
    };
  }

  private followLogs(container: Docker.Container, tag: object): void {
    const log = this.options.log;
    if (log === undefined) return;
    void container
      .logs({ follow: true, stdout: true, stderr: true })
      .then((stream) => {
        const output = (level: 'info' | 'warn'): PassThrough => {
          const through = new PassThrough();
          const streamTag = { ...tag, stream: level === 'info' ? 'stdout' : 'stderr' };
          forwardLines(through, (text) => log[level](streamTag, text));
          // The log stream may close without an 'end' (an error, the container removed): its held line goes out either way.
          for (const event of ['end', 'close', 'error']) stream.once(event, () => through.end());
          return through;
        };
        this.docker.modem.demuxStream(stream, output('info'), output('warn'));
      })
      .catch(() => undefined);
  }
}
