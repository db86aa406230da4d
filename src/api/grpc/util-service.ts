/**
 * UtilPublicService (WE's UtilServiceImpl): GetNodeTime — the machine's clock and the node
 * time, as `/utils/time` answers them.
 */
import { UtilPublicServiceService } from '@wavesenterprise/js-contract-grpc-client/util/util_public_service.js';
import { long } from '../../contracts/grpc/mapping.js';
import { unary, type PublicGrpcDeps, type PublicGrpcService } from './public-service.js';

export function utilPublicService(deps: PublicGrpcDeps): PublicGrpcService {
  const { services } = deps;
  return {
    definition: UtilPublicServiceService,
    implementation: {
      getNodeTime: unary(deps, 'user', () => ({ system: long(services.node.systemTime()), ntp: long(services.now()) })),
    },
  };
}
