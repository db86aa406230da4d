/**
 * WE's GrpcAuth and PrivacyGrpcAuth (api/grpc/auth/*.scala) over the REST API's
 * authenticator (api/auth.ts): the same keys and tokens, read from gRPC metadata.
 *
 * - API-key mode: `user` services (node info, addresses, aliases, transactions, blockchain
 *   events, contract statuses, privacy recipients/owners/hashes) are open; `privacy` ones need
 *   the privacy key in `X-API-Key` (any case): none → UNAUTHENTICATED 618, wrong →
 *   PERMISSION_DENIED 614.
 * - OAuth2: a token in `authorization` ("Bearer " optional) with any known role for `user`,
 *   the privacy role and the node owner among its node addresses for `privacy`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import * as grpcJs from '@grpc/grpc-js';
import { missingAuthorizationMetadata } from '../../errors/catalogue.js';
import type { Protocol } from '../../protocol/protocol.js';
import { createAuthenticator, nodeOAuth2Context } from '../auth.js';
import type { AuthMode } from '../services.js';

export type GrpcAuthScope = 'user' | 'privacy';

/** Checks a call's metadata for a scope; throws the WeError to answer. */
export type GrpcAuthorize = (metadata: grpcJs.Metadata, scope: GrpcAuthScope) => void;

const text = (metadata: grpcJs.Metadata, key: string): string | undefined => {
  const value = metadata.get(key)[0];
  return value === undefined ? undefined : typeof value === 'string' ? value : value.toString('utf8');
};

/** The node's gRPC auth for its auth mode (`node.api.auth`), tokens checked against its owner and clock. */
export function grpcAuthorizer(mode: AuthMode, protocol: Protocol, ownerPublicKey: Uint8Array, now: () => bigint): GrpcAuthorize {
  const auth = createAuthenticator(mode, protocol.crypto, nodeOAuth2Context(protocol, ownerPublicKey, now));
  return (metadata, scope) => {
    // grpc-js keeps metadata keys lower-case: `X-API-Key` arrives as `x-api-key`.
    const apiKey = text(metadata, 'x-api-key');
    const authorization = text(metadata, 'authorization');
    if (mode.type === 'api-key' && scope === 'privacy' && apiKey === undefined) throw missingAuthorizationMetadata();
    const headers: IncomingHttpHeaders = {};
    if (apiKey !== undefined) headers['x-api-key'] = apiKey;
    if (authorization !== undefined) headers.authorization = /^bearer /i.test(authorization) ? authorization : `Bearer ${authorization}`;
    auth.authorize(scope, headers);
  };
}

/** The `user` check of calls that hand over only their `authorization` metadata (the contract port's status and confidential services). */
export function userAuthorization(authorize: GrpcAuthorize): (authorization: string | undefined) => void {
  return (authorization) => {
    const metadata = new grpcJs.Metadata();
    if (authorization !== undefined) metadata.set('authorization', authorization);
    authorize(metadata, 'user');
  };
}
