/**
 * The node's gRPC port (`node.api.grpc`, 6865 by default, on loopback unless
 * `bind-address` says otherwise): opened when the public gRPC API is on (`node.api.grpc.enable`,
 * WE's default yes) or contracts run, before the contract engine starts (contracts are told
 * its port); the public services are registered once the node's API services exist.
 */
import { GrpcEndpoint } from '../contracts/grpc/endpoint.js';
import { logGrpcListening } from '../contracts/engine.js';
import { defaultContractsSettings, type ContractsSettings } from '../contracts/settings.js';
import type { Logger } from 'pino';
import type { StartContext } from './assembly.js';
import type { NodeConfig } from './config.js';
import type { ApiServices } from '../api/services.js';
import type { Blockchain } from '../chain/blockchain.js';
import type { KeyPair } from '../crypto/suite.js';
import { grpcAuthorizer, userAuthorization } from '../api/grpc/auth.js';
import { contractStatusService, statusServiceDeps } from '../contracts/grpc/status-service.js';
import { grpcErrorOf } from '../contracts/grpc/server.js';
import type { ExecutionStatusBook } from '../contracts/statuses.js';
import { servePublicGrpcApi } from '../api/grpc/public-api.js';

/** The contract keys of a config (WE's defaults when it names none): where the gRPC port listens, whether contracts run. */
const contractSettingsOf = (config: NodeConfig): ContractsSettings => config.contracts ?? defaultContractsSettings(config.node.dataDirectory);

/** Opens the node's gRPC port when anything is served on it; undefined otherwise. Closed at the node's stop. */
export async function openGrpcEndpoint(ctx: StartContext): Promise<GrpcEndpoint | undefined> {
  const { config } = ctx;
  const contracts = contractSettingsOf(config);
  if (!config.api.grpc.enabled && !contracts.enable) return undefined;
  const endpoint = ctx.started.add('gRPC API', new GrpcEndpoint(), (e) => e.close());
  const port = await endpoint.listen(contracts.grpc.bindAddress, contracts.grpc.port);
  logGrpcListening(ctx.loggers.get('node'), contracts.grpc.bindAddress, port);
  return endpoint;
}

/**
 * Registers the public gRPC API on the node's port when `node.api.grpc.enable` is on, and
 * WE's ContractStatusService over the node's status book where no contract engine serves it.
 */
export function servePublicGrpc(
  endpoint: GrpcEndpoint | undefined,
  o: {
    readonly config: NodeConfig;
    readonly services: ApiServices;
    readonly chain: Blockchain;
    readonly owner: KeyPair;
    readonly now: () => bigint;
    readonly log: Logger;
    /** The node's execution status book, served here when `contractsRun` is false. */
    readonly statuses: ExecutionStatusBook;
    readonly contractsRun: boolean;
  },
): void {
  if (endpoint === undefined || !o.config.api.grpc.enabled) return;
  const authorize = grpcAuthorizer(o.config.api.auth, o.services.protocol, o.owner.publicKey, o.now);
  servePublicGrpcApi(endpoint, { services: o.services, chain: o.chain, settings: o.config.api.grpc, authorize, log: o.log });
  if (!o.contractsRun) {
    const grpcSettings = contractSettingsOf(o.config).grpc;
    const statuses = contractStatusService(statusServiceDeps(grpcSettings, o.statuses, o.services.protocol, userAuthorization(authorize)), grpcErrorOf);
    endpoint.serve(statuses.definition, statuses.implementation);
  }
}
