/**
 * `/peers/*` (WE's PeersApiRoute and PeersApiService) and `/debug/utx-rebroadcast` (WE's
 * DebugApiRoute; served here because it is the pool going out to the peers).
 *
 * all, connected and suspended are user routes (open in api-key mode); connect, allowedNodes
 * and hostname/{address} are admin. WE wraps the end of the `/peers` tree in the admin check
 * (the directive of `hostname` sits outside its path), so any other `/peers/...` without the
 * key is a 403 too.
 *
 * `POST /peers/identity` is the REST form of WE's peer identity exchange (the specification
 * documents it; WE 1.14 answers it only over the P2P port, handshake-free byte 0x66, with
 * its PeersIdentityService): a registered participant sends its address and its signature
 * of the address bytes, and gets the public key of this node's owner — the key it uses for
 * the network and for confidential data. Errors as WE maps that service's: 102 bad address,
 * 101 bad or wrong signature, 606 (401) not a participant, 199 `Invalid server state` when
 * this node's own owner is not registered.
 *
 * A node that runs no P2P network (`node.network.port = 0`) has no peers: the lists are empty,
 * `hostname` answers not connected, and `connect` and `utx-rebroadcast` are refused (199),
 * since there is nothing to connect with or send to.
 */
import { Type } from '@sinclair/typebox';
import { decodeBase58, encodeBase58 } from '../../crypto/encoding.js';
import { customValidationError, invalidSignature, participantNotRegistered } from '../../errors/catalogue.js';
import { text } from '../params.js';
import { defineRoutes, route } from '../routing.js';
import * as S from '../schemas.js';
import type { ApiContext } from '../routing.js';
import type { PeersService } from '../services.js';

const err = (description: string) => ({ description, schema: S.ErrorBody });
const denied = err('2 API key missing or wrong');

const AllPeers = Type.Object(
  {
    peers: Type.Array(
      Type.Object({
        address: Type.String({ description: 'Known peer address, `/ip:port`' }),
        lastSeen: S.Int64({ description: 'When it was last seen (ms)' }),
      }),
      { description: 'At most 1000' },
    ),
  },
  { $id: 'PeersAll' },
);

const ConnectedPeers = Type.Object(
  {
    peers: Type.Array(
      Type.Object({
        address: Type.String({ description: 'Remote socket address, `/ip:port`' }),
        declaredAddress: Type.String({ description: 'Address the peer declared in its handshake (`/ip:port`), `N/A` when none' }),
        nodeOwnerAddress: Type.String({ description: "The peer's node owner address" }),
        peerName: Type.String(),
        peerNonce: S.Int64(),
        applicationVersion: Type.String({ description: '`major.minor.patch`' }),
        applicationConsensus: Type.String({ description: 'e.g. `PoA`' }),
      }),
    ),
  },
  { $id: 'PeersConnected' },
);

const SuspendedPeers = Type.Array(
  Type.Object({
    hostname: Type.String({ description: 'Suspended host, `/ip`' }),
    timestamp: S.Int64({ description: 'When it was suspended (ms)' }),
  }),
  { $id: 'PeersSuspended', description: 'At most 1000' },
);

const ConnectRequest = Type.Object(
  {
    host: Type.String({ description: 'Host name or IP' }),
    port: S.Int32({ description: 'P2P port' }),
  },
  { $id: 'ConnectReq' },
);

const ConnectAnswer = Type.Object(
  {
    hostname: Type.String(),
    status: Type.Literal('Trying to connect'),
  },
  { $id: 'PeersConnectAnswer' },
);

const AllowedNodes = Type.Object(
  {
    allowedNodes: Type.Array(Type.Object({ address: Type.String(), publicKey: Type.String({ description: 'Base58' }) }), {
      description: 'Registered network participants (GenesisRegisterNode / RegisterNode)',
    }),
    timestamp: S.Int64({ description: 'Node time (ms)' }),
  },
  { $id: 'PeersAllowedNodes' },
);

const HostnameAnswer = Type.Object(
  {
    connected: Type.Boolean(),
    hostname: Type.Optional(Type.String({ description: 'Host name of the connection (reverse lookup, else the IP)' })),
    ip: Type.Optional(Type.String()),
  },
  { $id: 'PeersHostname' },
);

const IdentityRequest = Type.Object(
  {
    address: Type.String({ description: "The requesting node owner's address (a registered participant)" }),
    signature: Type.String({ description: 'Its signature of the address bytes, Base58' }),
  },
  { $id: 'PeerIdentityRequest' },
);

const IdentityAnswer = Type.Object({ publicKey: Type.String({ description: "This node owner's public key, Base58" }) }, { $id: 'PeerIdentityAnswer' });

/** WE's PeersIdentityService.getIdentity: the requester must be a participant whose signature over its address bytes verifies. */
function peerIdentity(ctx: ApiContext, rawAddress: string, rawSignature: string): { publicKey: string } {
  const { protocol } = ctx.services;
  const address = protocol.addresses.parseAddress(rawAddress, 'address');
  let signature: Uint8Array;
  try {
    signature = decodeBase58(rawSignature);
  } catch {
    throw invalidSignature('signature');
  }
  const state = ctx.services.chain.state();
  const requester = state.participant(address.bytes);
  if (requester === undefined) throw participantNotRegistered(address.toString(), 'address');
  if (!protocol.crypto.verify(requester.publicKey, address.bytes, signature)) throw invalidSignature('signature');
  const ownerAddress = protocol.addresses.fromPublicKey(ctx.services.nodeOwnerPublicKey).bytes;
  const owner = state.participant(ownerAddress);
  if (owner === undefined) throw customValidationError('Invalid server state');
  return { publicKey: encodeBase58(owner.publicKey) };
}

const UtxRebroadcast = Type.Object(
  { txsToBroadcast: Type.String({ description: 'How many pool transactions were sent, as a string' }) },
  { $id: 'UtxRebroadcast' },
);

const peersOf = (ctx: ApiContext): PeersService | undefined => ctx.services.peers;

export const peersRoutes = defineRoutes(
  { name: 'peers', description: 'The P2P network: peers of this node', prefixAuth: { prefix: '/peers', level: 'admin' } },
  [
    route({
      method: 'GET',
      path: '/peers/all',
      auth: 'user',
      summary: 'Known peer addresses and when each was last seen',
      responses: { 200: AllPeers },
      handler: (_req, ctx) => ({ peers: (peersOf(ctx)?.all() ?? []).map((p) => ({ address: p.address, lastSeen: p.lastSeen })) }),
    }),
    route({
      method: 'GET',
      path: '/peers/connected',
      auth: 'user',
      summary: 'Peers connected now (handshake done)',
      responses: { 200: ConnectedPeers },
      handler: (_req, ctx) => ({
        peers: (peersOf(ctx)?.connected() ?? []).map((p) => ({
          address: p.address,
          declaredAddress: p.declaredAddress ?? 'N/A',
          nodeOwnerAddress: p.nodeOwnerAddress,
          peerName: p.peerName,
          peerNonce: p.peerNonce,
          applicationVersion: p.applicationVersion,
          applicationConsensus: p.applicationConsensus,
        })),
      }),
    }),
    route({
      method: 'GET',
      path: '/peers/suspended',
      auth: 'user',
      summary: 'Hosts not dialed for a while after a failed connection or garbage',
      responses: { 200: SuspendedPeers },
      handler: (_req, ctx) => (peersOf(ctx)?.suspended() ?? []).map((s) => ({ hostname: s.hostname, timestamp: s.timestamp })),
    }),
    route({
      method: 'POST',
      path: '/peers/connect',
      auth: 'admin',
      summary: 'Connects to a peer',
      description: 'Answers at once; the connection (and its handshake) goes on in the background — see `/peers/connected`.',
      body: { schema: ConnectRequest, read: 'schema' },
      responses: { 200: ConnectAnswer, 400: err('1 malformed body; 199 unknown host, port out of range, or no P2P network on this node'), 403: denied },
      handler: async ({ body }, ctx) => {
        const peers = peersOf(ctx);
        if (peers === undefined) throw customValidationError('This node runs no P2P network (node.network.port = 0)', 'host');
        if (body.port < 0 || body.port > 65535) throw customValidationError(`port out of range:${body.port}`, 'port');
        const { hostname } = await peers.connect(body.host, body.port);
        return { hostname, status: 'Trying to connect' as const };
      },
    }),
    route({
      method: 'POST',
      path: '/peers/identity',
      auth: 'user',
      summary: "The public key of this node's owner, for a registered participant that proves its address",
      description: 'The requester signs its address bytes with its key. WE 1.14 answers this over the P2P port only; the specification documents it over REST.',
      body: { schema: IdentityRequest, read: 'schema' },
      responses: {
        200: IdentityAnswer,
        400: err('1 malformed body; 102 invalid address; 101 bad or wrong signature; 199 `Invalid server state` (this node owner is not registered)'),
        401: err("606 `Address '<a>' does not have access to the network`: not a registered participant"),
      },
      handler: ({ body }, ctx) => peerIdentity(ctx, body.address, body.signature),
    }),
    route({
      method: 'GET',
      path: '/peers/allowedNodes',
      auth: 'admin',
      summary: 'Registered network participants (the nodes allowed to connect)',
      responses: { 200: AllowedNodes, 403: denied },
      handler: (_req, ctx) => {
        const state = ctx.services.chain.state();
        const addresses = ctx.services.protocol.addresses;
        const allowedNodes: Array<{ address: string; publicKey: string }> = [];
        for (const address of state.participants()) {
          const p = state.participant(address);
          if (p !== undefined) allowedNodes.push({ address: addresses.fromPublicKey(p.publicKey).toString(), publicKey: encodeBase58(p.publicKey) });
        }
        return { allowedNodes, timestamp: ctx.services.now() };
      },
    }),
    route({
      method: 'GET',
      path: '/peers/hostname/{address}',
      auth: 'admin',
      summary: 'Host name and IP of the connection to a node owner',
      params: { address: text('Node owner address, Base58') },
      responses: { 200: HostnameAnswer, 400: err('102 invalid address'), 403: denied },
      handler: async ({ params }, ctx) => {
        const address = ctx.services.protocol.addresses.parseAddress(params.address, 'address');
        const found = await peersOf(ctx)?.hostname(address.bytes);
        return found === undefined ? { connected: false } : { connected: true, hostname: found.hostname, ip: found.ip };
      },
    }),
    route({
      method: 'GET',
      path: '/debug/utx-rebroadcast',
      auth: 'admin',
      summary: 'Sends every pool transaction to the peers again',
      responses: { 200: UtxRebroadcast, 400: err('199 the node runs no P2P network'), 403: denied },
      handler: (_req, ctx) => {
        const peers = peersOf(ctx);
        if (peers === undefined) throw customValidationError('This node runs no P2P network (node.network.port = 0): there are no peers to rebroadcast to');
        return { txsToBroadcast: String(peers.rebroadcastPool()) };
      },
    }),
  ],
);
