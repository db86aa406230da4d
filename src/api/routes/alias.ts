/**
 * `/alias/*` (WE's AliasApiRoute): the address behind an alias name, the aliases of an
 * address.
 */
import * as A from '../account-schemas.js';
import { text } from '../params.js';
import { defineRoutes, route } from '../routing.js';
import * as S from '../schemas.js';
import { aliasDoesNotExist } from '../../errors/catalogue.js';

const err = (description: string) => ({ description, schema: S.ErrorBody });

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
    handler: ({ params }, ctx) => {
      const alias = ctx.services.protocol.addresses.alias(params.alias, 'alias');
      const owner = ctx.services.chain.state().aliasOwner(alias.name);
      if (owner === undefined) throw aliasDoesNotExist({ alias: alias.toString() }).at('alias');
      return { address: ctx.services.protocol.addresses.addressFromBytes(owner).toString() };
    },
  }),
  route({
    method: 'GET',
    path: '/alias/by-address/{address}',
    auth: 'user',
    summary: 'The aliases of an address, as `alias:<chain>:<name>`',
    params: { address: text('Address, Base58') },
    responses: { 200: A.AliasList, 400: err('102 invalid address') },
    handler: ({ params }, ctx) => {
      const scheme = ctx.services.protocol.addresses;
      const address = scheme.parseAddress(params.address, 'address');
      return ctx.services.chain
        .state()
        .aliasesOf(address.bytes)
        .map((name) => scheme.alias(name).toString());
    },
  }),
]);
