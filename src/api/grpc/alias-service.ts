/**
 * AliasPublicService (WE's AliasServiceImpl), over the functions of `/alias/*`:
 * AddressByAlias — a bare alias name of this chain, NOT_FOUND 302 when unknown;
 * AliasesByAddress — `alias:<chain>:<name>` each, 102 for a bad address.
 */
import { AliasPublicServiceService, type AliasRequest } from '@wavesenterprise/js-contract-grpc-client/alias/alias_public_service.js';
import type { AddressRequest } from '@wavesenterprise/js-contract-grpc-client/entity/address.js';
import { addressByAlias, aliasesOfAddress } from '../routes/alias.js';
import { unary, type PublicGrpcDeps, type PublicGrpcService } from './public-service.js';

export function aliasPublicService(deps: PublicGrpcDeps): PublicGrpcService {
  const { services } = deps;
  return {
    definition: AliasPublicServiceService,
    implementation: {
      addressByAlias: unary(deps, 'user', (request: AliasRequest) => ({ address: addressByAlias(services, request.alias) })),
      aliasesByAddress: unary(deps, 'user', (request: AddressRequest) => ({ aliases: aliasesOfAddress(services, request.address) })),
    },
  };
}
