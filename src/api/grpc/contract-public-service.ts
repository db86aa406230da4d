/**
 * ContractPublicService (WE's ContractPublicServiceImpl; not in the npm package, its request
 * from we-core's contract/contract_public_service.proto): GetContractBalances — one balance
 * per asset id asked, an empty or absent id meaning WEST, as `/contracts/asset-balances`
 * reads them (NOT_FOUND 600 for an unknown contract, 118 for an unknown asset).
 */
import { long } from '../../contracts/grpc/mapping.js';
import { contractBalances } from '../routes/contracts.js';
import { CONTRACT_PUBLIC_SERVICE_DEFINITION, type ContractBalancesByIdRequest } from './public-api-1.14.js';
import { unary, type PublicGrpcDeps, type PublicGrpcService } from './public-service.js';

export function contractPublicService(deps: PublicGrpcDeps): PublicGrpcService {
  const { services } = deps;
  return {
    definition: CONTRACT_PUBLIC_SERVICE_DEFINITION,
    implementation: {
      getContractBalances: unary(deps, 'user', (request: ContractBalancesByIdRequest) => ({
        assetsBalances: contractBalances(
          services,
          request.contractId,
          request.assetsIds.map((id) => (id === '' ? undefined : id)),
        ).map((b) => ({ assetId: b.assetId, amount: long(b.balance), decimals: b.decimals })),
      })),
    },
  };
}
