/**
 * What the public gRPC service tests share: a grpc-js server on a loopback port serving the
 * services under test over a node's ApiServices, with WE's error mapping (grpcErrorOf) and
 * the API-key rule of WE's PrivacyGrpcAuth for the `privacy` scope (no key → 618, another
 * key → 614); the `user` scope is open, as under API-key auth.
 */
import * as grpc from '@grpc/grpc-js';
import type { Metadata } from '@grpc/grpc-js';
import { grpcErrorOf } from '../../src/contracts/grpc/server.js';
import type { PublicGrpcDeps, PublicGrpcService } from '../../src/api/grpc/public-service.js';
import type { ApiServices } from '../../src/api/services.js';
import { missingAuthorizationMetadata, privacyApiKeyNotValid } from '../../src/errors/catalogue.js';

export const GRPC_PRIVACY_KEY = 'grpc-privacy-key';

export function testDeps(services: ApiServices): PublicGrpcDeps {
  return {
    services,
    authorize: (metadata: Metadata, scope) => {
      if (scope === 'user') return;
      const key = metadata.get('x-api-key')[0];
      if (key === undefined) throw missingAuthorizationMetadata();
      if (key !== GRPC_PRIVACY_KEY) throw privacyApiKeyNotValid();
    },
    errorOf: grpcErrorOf,
  };
}

export interface PublicGrpcServer {
  readonly address: string;
  close(): Promise<void>;
}

export async function servePublicGrpc(services: readonly PublicGrpcService[]): Promise<PublicGrpcServer> {
  const server = new grpc.Server();
  for (const s of services) server.addService(s.definition, s.implementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, bound) => (err === null ? resolve(bound) : reject(err))),
  );
  return {
    address: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.forceShutdown();
        resolve();
      }),
  };
}

/** Metadata carrying an API key. */
export function withKey(key: string): grpc.Metadata {
  const m = new grpc.Metadata();
  m.set('x-api-key', key);
  return m;
}

/** A unary method of a generated client (its fullest overload: TypeScript infers from the last one). */
export type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: grpc.Metadata,
  options: Partial<grpc.CallOptions>,
  callback: (error: grpc.ServiceError | null, response: Res) => void,
) => unknown;

/** A unary call of a generated client as a promise (bind the method to its client). */
export function call<Req, Res>(method: UnaryMethod<Req, Res>, request: Req, metadata: grpc.Metadata = new grpc.Metadata()): Promise<Res> {
  return new Promise((resolve, reject) => method(request, metadata, {}, (error, response) => (error === null ? resolve(response) : reject(error))));
}

/** The refusal of a call: its status, WE's error code and message. */
export async function refusal(p: Promise<unknown>): Promise<{ code: grpc.status; errorCode: string | undefined; message: string }> {
  try {
    await p;
  } catch (e) {
    const err = e as grpc.ServiceError;
    const errorCode = err.metadata?.get('error-code')[0];
    return { code: err.code, errorCode: errorCode === undefined ? undefined : String(errorCode), message: err.details };
  }
  throw new Error('the call succeeded');
}
