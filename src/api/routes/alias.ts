/**
 * `/alias/*` (WE's AliasApiRoute): the address behind an alias name, the aliases of an
 * address.
 */
import * as A from '../account-schemas.js';
import { text } from '../params.js';
import { defineRoutes, route } from '../routing.js';
import * as S from '../schemas.js';
import type { ApiServices } from '../services.js';
import { aliasDoesNotExist } from '../../errors/catalogue.js';

const err = (description: string) => ({ description, schema: S.ErrorBody });

/** The address owning an alias name of this chain (199 for an invalid name, 302 for an unknown one). */
export function addressByAlias(services: ApiServices, name: string): string {
  const alias = services.protocol.addresses.alias(name, 'alias');
  const owner = services.chain.state().aliasOwner(alias.name);
  if (owner === undefined) throw aliasDoesNotExist({ alias: alias.toString() }).at('alias');
  return services.protocol.addresses.addressFromBytes(owner).toString();
}

/** The aliases of an address as `alias:<chain>:<name>` (102 for an invalid address). */
export function aliasesOfAddress(services: ApiServices, rawAddress: string): string[] {
  const scheme = services.protocol.addresses;
  const address = scheme.parseAddress(rawAddress, 'address');
  return services.chain
    .state()
    .aliasesOf(address.bytes)
    .map((name) => scheme.alias(name).toString());
}

export const aliasRoutes = defineRoutes({ name: 'alias', description: 'Aliases: resolving a name, listing the aliases of an address' }, [
  route({
    method: 'GET',
    path: '/alias/by-alias/{alias}',
    auth: 'user',
    summary: 'The address an alias name belongs to',
    description: 'The bare name, without the `alias:<chain>:` prefix.',
    params: { alias: text('Alias name') },
    responses: {
      200: A.AddressAnswer,
      400: err('199 the name is not a valid alias (length 4–30, characters `-.0123456789@_a-z`)'),
      404: err("302 `alias 'alias:<chain>:<name>' doesn't exist`"),
    },
    handler: ({ params }, ctx) => ({ address: addressByAlias(ctx.services, params.alias) }),
  }),
  route({
    method: 'GET',
    path: '/alias/by-address/{address}',
    auth: 'user',
    summary: 'The aliases of an address, as `alias:<chain>:<name>`',
    params: { address: text('Address, Base58') },
    responses: { 200: A.AliasList, 400: err('102 invalid address') },
    handler: ({ params }, ctx) => aliasesOfAddress(ctx.services, params.address),
  }),
]);
