/**
 * One node's P2P network: the transport (transport.ts: WE's framing and signed handshakes),
 * the peer manager (peers.ts: known peers, dialing with back-off, suspension, one connection
 * per owner) and the chain protocol running over them (sync and gossip), plus what the REST
 * API and the miner need to know about peers.
 *
 * Who may connect: a node whose owner is a registered participant in the current state
 * (GenesisRegisterNode / RegisterNode, revoked by a RegisterNode removal), its handshake
 * signed by that participant's key; the transport asks `participantPublicKey` at every
 * handshake, so a revoked node is refused from its next connection on (an open connection is
 * not dropped, as in WE).
 *
 * WE's `miner.quorum`: the miner forges a key block only while at least `quorum` connected
 * peers hold the `miner` role now (`forgingBlocker`).
 */
import { randomBytes } from 'node:crypto';
import { lookup, reverse } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { PeerChain, PeerPool } from '../chain/peer-chain.js';
import { encodeBase58 } from '../crypto/encoding.js';
import type { KeyPair } from '../crypto/suite.js';
import { gostSubjectPublicKeyInfo } from '../crypto/pki/x509.js';
import type { Protocol } from '../protocol/protocol.js';
import type { Vote } from '../protocol/blocks/consensus.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import type { NetworkDeps, SyncSettings } from './chain-deps.js';
import { ChainMessages, skipsSendQueue } from './chain-messages.js';
import { sessionKeyLength } from './handshake.js';
import { ContractStatusMessages } from './contract-status-messages.js';
import { answerSnapshotRequest, FeatureOffMessages } from './feature-off-messages.js';
import { PeerAttributes, signNodeAttributes, type NodeMode } from './node-attributes.js';
import { peerFormsOf } from './peer-forms.js';
import { ContractValidatorResultMessages, ContractValidatorResultV2Messages } from './contract-validator-messages.js';
import type { PeerMessageChannel } from './message-channel.js';
import { CONFIDENTIAL_CONTRACT_CODES, PrivacyMessages } from './privacy-messages.js';
import { sendVote, VoteMessages, type VoteMessagesOptions } from './vote-messages.js';
import type { ScoreStats, SyncStatus } from './sync.js';
import { PeerManager, socketAddressText } from './peers.js';
import { createPeerTransport, type TransportTlsOptions } from './transport.js';
import {
  MessageCode,
  type HandshakeInfo,
  type NetworkTrafficObserver,
  type Peer,
  type PeerEndpoint,
  type PeerTransport,
  type PeerTransportEvents,
} from './types.js';
import { customValidationError } from '../errors/catalogue.js';

/** PEM files of `node.network.tls`. */
export interface NetworkTlsFiles {
  /** PEM private key of this node's certificate. */
  readonly keyFile: string;
  /** PEM certificate (chain) this node presents. */
  readonly certFile: string;
  /** PEM CA certificates a peer's certificate must chain to; absent: the system's. */
  readonly caFile: string | undefined;
}

/** The `node.network` settings the network runs on (settings.ts's NetworkSettings extends them). */
export interface NodeNetworkSettings {
  readonly bindAddress: string;
  readonly port: number;
  readonly declaredAddress: PeerEndpoint | undefined;
  readonly nodeName: string | undefined;
  readonly nonce: bigint | undefined;
  readonly knownPeers: readonly PeerEndpoint[];
  readonly maxSimultaneousConnections: number;
  readonly handshakeTimeoutMs: number;
  readonly connectionTimeoutMs: number;
  readonly breakIdleConnectionsTimeoutMs: number;
  readonly attemptConnectionDelayMs: number;
  readonly peersRequestIntervalMs: number;
  readonly enablePeersExchange: boolean;
  /** `peers-data-residence-time`: a known peer not seen for this long is forgotten (config peers never are). */
  readonly peersDataResidenceTimeMs: number;
  /** `suspension-residence-time`: how long a peer address stays suspended after a failed attempt or garbage. */
  readonly suspensionResidenceTimeMs: number;
  /**
   * TLS on every P2P connection (`node.network.tls`): WE's switch is a boolean with key
   * material from its keystore; Weft reads PEM files, so TLS is written as a section
   * `tls { enable = true, key-file, cert-file, ca-file }` (`tls = false` is accepted as WE
   * writes it). Undefined: plain TCP.
   */
  readonly tls?: NetworkTlsFiles | undefined;
}

export interface NetworkLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface NodeNetworkOptions {
  readonly protocol: Protocol;
  /** The chain as peers see it (chain/peer-chain.ts). */
  readonly chain: PeerChain;
  readonly pool: PeerPool;
  readonly owner: KeyPair;
  readonly settings: NodeNetworkSettings;
  /** `PoA` or `PoS`, as the handshake carries it. */
  readonly consensusType: string;
  /** Application version in the handshake (WE's, e.g. [1, 14, 0]). */
  readonly version: readonly [number, number, number];
  /** `network.mode`, told to peers in this node's attributes (42); default: `default`. */
  readonly mode?: NodeMode;
  /** `miner.quorum`: connected miner peers needed to forge. */
  readonly quorum: number;
  /** `miner.no-quorum-mining-delay`: when to look again without a quorum. */
  readonly noQuorumMiningDelayMs: number;
  /** Node time, ms. */
  readonly now: () => bigint;
  readonly log: NetworkLog;
  /** WE's `synchronization.*` settings (defaults from WE's application.conf). */
  readonly sync?: Partial<SyncSettings>;
  /** A random source for the nonce (tests make it fixed). */
  readonly randomNonce?: () => bigint;
  /** Told of every message in and out (the node's metrics); absent: nothing is counted. */
  readonly traffic?: NetworkTrafficObserver;
  /** PKI mode TEST/ON: which certificates of peers' blocks are kept (chain-deps.ts). */
  readonly certificatePolicy?: NetworkDeps['certificatePolicy'];
  /** Each micro-block's stage times at DEBUG (micro-block-timeline.ts); absent: not recorded. */
  readonly microBlockLog?: NetworkDeps['microBlockLog'];
  /**
   * CFT: the node's VoteBook, which peers' votes (33) are offered to and relayed from, and
   * the verifier threads their signatures are checked on (vote-messages.ts); absent: votes
   * are read and dropped, as a node without CFT does.
   */
  readonly votes?: Pick<VoteMessagesOptions, 'book' | 'verifyEach'>;
}

/** A connected peer as the API shows it (WE's PeerInfo JSON). */
export interface ConnectedPeerView {
  readonly address: string;
  readonly declaredAddress: string | undefined;
  readonly nodeOwnerAddress: string;
  readonly peerName: string;
  readonly peerNonce: bigint;
  readonly applicationVersion: string;
  readonly applicationConsensus: string;
}

function randomLong(): bigint {
  return randomBytes(8).readBigInt64BE(0);
}

/** An IP literal for a host name (the handshake carries IP bytes). */
async function resolveHost(host: string): Promise<string> {
  if (isIP(host) !== 0) return host;
  return (await lookup(host)).address;
}

export class NodeNetwork {
  private closing: Promise<void> | undefined;
  /** Confidential data over the peers (messages 30, 31, 39, 40, 44 and large-item streams); the node wires replication to it. */
  readonly privacy: PrivacyMessages;
  /** Confidential contract data over the peers (messages 52–55); the node wires its replication to it. */
  readonly confidentialContracts: PrivacyMessages;
  readonly contractStatuses: ContractStatusMessages = new ContractStatusMessages(() => this.connected());
  readonly contractValidatorResults: ContractValidatorResultMessages = new ContractValidatorResultMessages(() => this.connected());
  readonly contractValidatorResultsV2: ContractValidatorResultV2Messages = new ContractValidatorResultV2Messages(() => this.connected());
  /** The channels of the modules above the network, tried in turn for a message the peer manager does not take. */
  private readonly channels: readonly PeerMessageChannel[];
  /** The messages of WE features this node does not run (CFT votes, snapshots, CRL sync). */
  private readonly featureOff: FeatureOffMessages;
  /** CFT votes (33) on a node that runs CFT; undefined otherwise (featureOff drops them). */
  private readonly votes: VoteMessages | undefined;
  /** This node's attributes (42), signed once. */
  private readonly ownAttributes: Uint8Array;

  private constructor(
    readonly options: NodeNetworkOptions,
    readonly info: Omit<HandshakeInfo, 'sessionPublicKey'>,
    private readonly transport: PeerTransport,
    readonly peers: PeerManager,
    /** The node attributes (42) peers sent. */
    private readonly attributes: PeerAttributes,
    private readonly chainMessages: ChainMessages,
    /** The port the P2P server listens on. */
    readonly port: number,
  ) {
    this.privacy = new PrivacyMessages(() => this.connected(), attributes);
    this.confidentialContracts = new PrivacyMessages(() => this.connected(), attributes, CONFIDENTIAL_CONTRACT_CODES);
    this.channels = [this.privacy, this.confidentialContracts, this.contractStatuses, this.contractValidatorResults, this.contractValidatorResultsV2];
    const log = { debug: (m: string) => options.log.debug({}, m) };
    this.featureOff = new FeatureOffMessages(options.protocol.crypto, info.ownerAddress, log);
    this.votes =
      options.votes === undefined ? undefined : new VoteMessages({ ...options.votes, protocol: options.protocol, peers: () => this.connected(), log });
    this.ownAttributes = signNodeAttributes(options.protocol, options.owner, { mode: options.mode ?? 'default', p2pTls: options.settings.tls !== undefined });
  }

  /** Listens on `bind-address:port`, then starts dialing the known peers. */
  static async start(o: NodeNetworkOptions): Promise<NodeNetwork> {
    const s = o.settings;
    const nonce = s.nonce ?? (o.randomNonce ?? randomLong)();
    const declared = s.declaredAddress === undefined ? undefined : { host: await resolveHost(s.declaredAddress.host), port: s.declaredAddress.port };
    const ownerAddress = o.protocol.addresses.fromPublicKey(o.owner.publicKey).bytes;
    const info: Omit<HandshakeInfo, 'sessionPublicKey'> = {
      chainId: o.protocol.chainId,
      version: o.version,
      consensusType: o.consensusType,
      declaredAddress: declared,
      nonce,
      nodeName: s.nodeName ?? `Node-${nonce}`,
      ownerAddress,
    };
    // The transport's events reach the network once it exists (the transport is built first).
    const ref: { network?: NodeNetwork } = {};
    const events: PeerTransportEvents = {
      onPeer: (peer) => ref.network?.onPeer(peer),
      onMessage: (peer, code, payload) => ref.network?.onMessage(peer, code, payload),
      onClose: (peer, reason, misbehaved) => ref.network?.onClose(peer, reason, misbehaved),
    };
    const transport = createPeerTransport({
      info,
      sign: (message) => o.protocol.crypto.sign(o.owner.privateKey, message),
      verify: (publicKey, message, signature) => o.protocol.crypto.verify(publicKey, message, signature),
      participantPublicKey: (address) => o.chain.participantPublicKey(address),
      events,
      skipsSendQueue,
      // GOST: an ephemeral GOST R 34.10-2012 key per connection, sent as its 104-byte SubjectPublicKeyInfo (WE's SessionKeyLength).
      ...(o.protocol.crypto.type === 'gost'
        ? {
            sessionKeys: () => {
              const pair = o.protocol.crypto.generateKeyPair();
              return { publicKey: gostSubjectPublicKeyInfo(pair.publicKey), privateKey: pair.privateKey };
            },
            sessionKeyLength: sessionKeyLength('gost'),
          }
        : {}),
      handshakeTimeoutMs: s.handshakeTimeoutMs,
      connectTimeoutMs: s.connectionTimeoutMs,
      idleTimeoutMs: s.breakIdleConnectionsTimeoutMs,
      maxConnections: s.maxSimultaneousConnections,
      logger: o.log,
      ...(s.tls === undefined ? {} : { tls: readTlsFiles(s.tls) }),
      ...(o.traffic === undefined ? {} : { traffic: o.traffic }),
      handshakeFreeMessages: {
        codes: new Set([MessageCode.SnapshotRequest, MessageCode.GenesisSnapshotRequest]),
        answer: (code, payload) => answerSnapshotRequest(o.protocol.crypto, ownerAddress, code, payload),
      },
    });
    const port = await transport.listen(s.bindAddress, s.port);
    const own: PeerEndpoint[] = [{ host: s.bindAddress, port }];
    if (s.bindAddress === '0.0.0.0' || s.bindAddress === '::') own.push({ host: '127.0.0.1', port }, { host: '::1', port }, { host: 'localhost', port });
    if (declared !== undefined) own.push(declared);
    if (s.declaredAddress !== undefined) own.push(s.declaredAddress);
    const manager = new PeerManager({
      dial: (endpoint) => transport.connect(endpoint),
      ownOwnerAddress: ownerAddress,
      ownEndpoints: own,
      knownPeers: s.knownPeers,
      maxConnections: s.maxSimultaneousConnections,
      attemptDelayMs: s.attemptConnectionDelayMs,
      suspensionMs: s.suspensionResidenceTimeMs,
      peersResidenceMs: s.peersDataResidenceTimeMs,
      peersExchangeIntervalMs: s.enablePeersExchange ? s.peersRequestIntervalMs : undefined,
      now: () => Number(o.now()),
      log: o.log,
    });
    const attributes = new PeerAttributes(o.protocol, { debug: (m) => o.log.debug({}, m), warn: (m) => o.log.warn({}, m) });
    const deps: NetworkDeps = {
      chain: o.chain,
      pool: o.pool,
      protocol: o.protocol,
      now: o.now,
      logger: { debug: (m) => o.log.debug({}, m), info: (m) => o.log.info({}, m), warn: (m) => o.log.warn({}, m) },
      ...(o.sync === undefined ? {} : { settings: o.sync }),
      ownerKeys: o.owner,
      ...(o.certificatePolicy === undefined ? {} : { certificatePolicy: o.certificatePolicy }),
      ...(o.microBlockLog === undefined ? {} : { microBlockLog: o.microBlockLog }),
      forms: peerFormsOf(attributes),
    };
    const network = new NodeNetwork(o, info, transport, manager, attributes, new ChainMessages(deps), port);
    ref.network = network;
    o.log.info(
      {
        port,
        bindAddress: s.bindAddress,
        declaredAddress: declared === undefined ? null : socketAddressText(declared),
        nodeName: info.nodeName,
        knownPeers: s.knownPeers.length,
      },
      'P2P network listening',
    );
    manager.start();
    return network;
  }

  // -------------------------------------------------------------------------
  // Transport events

  private onPeer(peer: Peer): void {
    if (this.closing !== undefined) {
      peer.close('the node is stopping');
      return;
    }
    // WE's order after a handshake: GetPeers (the peer manager's), the node attributes, then the score (sync's).
    if (!this.peers.accept(peer).accepted) return;
    peer.send(MessageCode.RawAttributes, this.ownAttributes);
    this.chainMessages.onPeer(peer);
  }

  private onMessage(peer: Peer, code: MessageCode, payload: Uint8Array): void {
    this.peers.seen(peer);
    if (this.peers.handle(peer, code, payload)) return;
    if (code === MessageCode.RawAttributes) return this.attributes.onMessage(peer, payload);
    if (this.votes?.handle(peer, code, payload) === true) return;
    if (this.featureOff.handle(peer, code, payload)) return;
    if (this.channels.some((channel) => channel.handle(peer, code, payload))) return;
    this.chainMessages.onMessage(peer, code, payload);
  }

  private onClose(peer: Peer, reason: string, misbehaved: boolean): void {
    if (!this.peers.closed(peer, reason)) return;
    if (misbehaved) {
      const at = peer.outbound ? peer.remote : (peer.info.declaredAddress ?? peer.remote);
      this.peers.suspend(at, reason);
    }
    this.chainMessages.onClose(peer, reason);
  }

  // -------------------------------------------------------------------------
  // What the API and the miner read

  /** Connected peers, newest connection last. */
  connected(): readonly Peer[] {
    return this.peers.connected();
  }

  connectedViews(): ConnectedPeerView[] {
    return this.connected().map((p) => ({
      address: socketAddressText(p.remote),
      declaredAddress: p.info.declaredAddress === undefined ? undefined : socketAddressText(p.info.declaredAddress),
      nodeOwnerAddress: encodeBase58(p.info.ownerAddress),
      peerName: p.info.nodeName,
      peerNonce: p.info.nonce,
      applicationVersion: p.info.version.join('.'),
      applicationConsensus: p.info.consensusType,
    }));
  }

  /** Connected peers whose owner holds the miner role now (WE's MinerAttribute count), watchers (by their attributes) left out: they never mine. */
  minerPeers(): number {
    const now = this.options.now();
    return this.connected().filter((p) => !this.attributes.isWatcher(p) && this.options.chain.isMiner(p.info.ownerAddress, now)).length;
  }

  /** Why the miner must not forge a key block now (WE's quorum; catching up), or undefined. */
  forgingBlocker(): { readonly reason: string; readonly retryInMs: number } | undefined {
    if (this.chainMessages.syncing()) return { reason: 'the node is catching up from a peer', retryInMs: 100 };
    const quorum = this.options.quorum;
    if (quorum <= 0) return undefined;
    const miners = this.minerPeers();
    if (miners < quorum) return { reason: `Quorum not available '${miners}/${quorum}', not forging block`, retryInMs: this.options.noQuorumMiningDelayMs };
    return undefined;
  }

  /**
   * Dials a peer now (POST /peers/connect). The host is resolved first (an unknown host is
   * error 199); answers the host name as WE does (the name given, or the reverse lookup of an IP).
   */
  async connect(host: string, port: number): Promise<{ hostname: string }> {
    let ip: string;
    try {
      ip = await resolveHost(host);
    } catch {
      throw customValidationError(`${host}: Name or service not known`, 'host');
    }
    this.peers.connect({ host: ip, port });
    return { hostname: isIP(host) === 0 ? host : await reverseName(ip) };
  }

  /** Host name and IP of the connection to a node owner. */
  async hostnameOf(ownerAddress: Uint8Array): Promise<{ hostname: string; ip: string } | undefined> {
    const peer = this.peers.peerOf(ownerAddress);
    if (peer === undefined) return undefined;
    const ip = peer.remote.host.replace(/^\[(.*)\]$/, '$1');
    return { hostname: await reverseName(ip), ip };
  }

  /** A transaction this node admitted (REST broadcast): to the peers not known to have it. */
  broadcastTransaction(tx: Transaction): void {
    this.chainMessages.broadcastTransaction(tx);
  }

  /** Sends a CFT vote (this node's own) to every connected peer (33); returns how many it went to. */
  broadcastVote(vote: Vote): number {
    return this.votes?.broadcast(vote) ?? sendVote(this.connected(), vote);
  }

  /** Sync progress: whether the node is catching up, from whom, scores, blocks taken from peers. */
  syncStatus(): SyncStatus {
    return this.chainMessages.status();
  }

  /** The loaders' figures `/debug/info` shows: the micro-block loader's cache sizes and the score observer's stats. */
  loaderStats(): { readonly microBlockSynchronizerCacheSizes: ReturnType<ChainMessages['gossip']['cacheSizes']>; readonly scoreObserverStats: ScoreStats } {
    return { microBlockSynchronizerCacheSizes: this.chainMessages.gossip.cacheSizes(), scoreObserverStats: this.chainMessages.sync.scoreStats() };
  }

  /** Sends every pool transaction to the connected peers again (WE's forced rebroadcast); returns how many transactions. */
  rebroadcastPool(): number {
    const txs = this.options.pool.all();
    for (const tx of txs) this.chainMessages.broadcastTransaction(tx, true);
    this.options.log.debug({ transactions: txs.length, peers: this.connected().length }, 'pool rebroadcast');
    return txs.length;
  }

  /** Stops dialing, closes every connection and the server. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.peers.stop();
      this.chainMessages.close();
      this.votes?.close();
      await this.transport.close();
    })();
    return this.closing;
  }
}

/** Reverse DNS of an IP within a second; the IP itself when there is no name (Java's getHostName). */
async function reverseName(ip: string): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const names = await Promise.race([
      reverse(ip),
      new Promise<string[]>((resolve) => {
        timer = setTimeout(() => resolve([]), 1000);
        timer.unref();
      }),
    ]);
    return names[0] ?? ip;
  } catch {
    return ip;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

/** The PEM files of `node.network.tls`, read at start (a missing file stops the node, naming it). */
function readTlsFiles(files: NetworkTlsFiles): TransportTlsOptions {
  const read = (path: string, what: string): Buffer => {
    try {
      return readFileSync(path);
    } catch (e) {
      throw new Error(`node.network.tls.${what}: cannot read ${path}: ${(e as Error).message}`, { cause: e });
    }
  };
  return {
    key: read(files.keyFile, 'key-file'),
    cert: read(files.certFile, 'cert-file'),
    ...(files.caFile === undefined ? {} : { ca: read(files.caFile, 'ca-file') }),
  };
}
