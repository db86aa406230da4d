/**
 * AddressPublicService (WE's AddressServiceImpl), over the functions the REST routes of the
 * same meaning use: GetAddresses — the node keystore's addresses (`/addresses`);
 * GetAddressData — an account's entries sorted by key, `offset` ≥ 0 and `limit` > 0 checked
 * together (199 `Invalid parameters: […]`), 102 for a bad address
 * (`/addresses/data/{address}`); GetAddressDataByKey — one entry, NOT_FOUND 304 without one
 * (`/addresses/data/{address}/{key}`; no key is the empty key, as in WE).
 */
import {
  AddressPublicServiceService,
  type AddressDataByKeyRequest,
  type AddressDataRequest,
} from '@wavesenterprise/js-contract-grpc-client/address/address_public_service.js';
import { dataEntryToMessage } from '../../contracts/grpc/mapping.js';
import { pageEntries, readIntQueries, sortedDataEntries } from '../account-reads.js';
import { accountDataEntry } from '../routes/addresses.js';
import { unary, type PublicGrpcDeps, type PublicGrpcService } from './public-service.js';

export function addressPublicService(deps: PublicGrpcDeps): PublicGrpcService {
  const { services } = deps;
  return {
    definition: AddressPublicServiceService,
    implementation: {
      getAddresses: unary(deps, 'user', () => ({ addresses: [...services.wallet.addresses()] })),
      getAddressData: unary(deps, 'user', (request: AddressDataRequest) => {
        const ints = readIntQueries([
          { name: 'offset', raw: request.offset, rule: 'non-negative' },
          { name: 'limit', raw: request.limit, rule: 'positive' },
        ]);
        const address = services.protocol.addresses.parseAddress(request.address, 'address');
        return { entries: pageEntries(sortedDataEntries(services, address.bytes), ints['offset'], ints['limit']).map(dataEntryToMessage) };
      }),
      getAddressDataByKey: unary(deps, 'user', (request: AddressDataByKeyRequest) => ({
        entries: [dataEntryToMessage(accountDataEntry(services, request.address, request.key ?? ''))],
      })),
    },
  };
}
