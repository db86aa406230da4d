/**
 * The contract between the P2P transport (framing, handshake, sockets: transport.ts) and
 * what runs over it (gossip, sync, the peers API: node-network.ts). WE's wire facts:
 * reference/chain-consensus-network.md §11.
 *
 * A `PeerTransport` accepts and dials TCP connections (TLS optional), runs WE's V3
 * handshake on each, and hands over a `Peer` once the remote owner key is proven and
 * allowed. After that a peer carries framed messages: `code` + payload bytes.
 */

/** WE's message codes used by Weft (§11.4). */
export const MessageCode = {
  GetPeers: 3,
  Peers: 4,
  GetSignatures: 20,
  Signatures: 21,
  Block: 23,
  Score: 24,
  Transaction: 25,
  MicroBlockInventory: 26,
  MicroBlockRequest: 27,
  MicroBlockResponse: 28,
  /** A contract execution status signed by the node that executed (routed by contract-status-messages.ts). */
  ContractExecutionMessage: 29,
  /** Confidential data (src/privacy, routed by privacy-messages.ts). */
  PrivateDataRequest: 30,
  PrivateDataResponse: 31,
  /** A contract validator's signed results hash (routed by contract-validator-messages.ts). */
  ContractValidatorResults: 32,
  /** CFT: a validator's vote for a liquid block (Weft runs no CFT: checked and dropped, feature-off-messages.ts). */
  Vote: 33,
  GetBlocks: 34,
  /** Consensual snapshots (WE's feature, off in Weft: feature-off-messages.ts). */
  SnapshotNotification: 35,
  SnapshotRequest: 36,
  GenesisSnapshotRequest: 37,
  GenesisSnapshotError: 38,
  PrivacyInventoryV1: 39,
  PrivacyInventoryRequest: 40,
  MissingBlock: 41,
  /** A node's signed attributes: node mode and P2P TLS (node-attributes.ts). */
  RawAttributes: 42,
  /** A micro-block inventory naming its key block (feature 173). */
  MicroBlockInventoryV2: 43,
  /** Block with the certificates its transactions carried (reply to GetBlocks). */
  HistoryBlock: 45,
  /** Transaction with the certificate chain it carries. */
  BroadcastedTransaction: 46,
  /** Micro-block with the certificates its transactions carried (and CRL hashes). */
  MicroBlockResponseV2: 47,
  PrivacyInventoryV2: 44,
  /** CRL sync between PKI nodes (no handler in WE's open-source node: checked and dropped, feature-off-messages.ts). */
  MissingCrlsRequest: 48,
  CrlDataByHashesRequest: 49,
  CrlDataByTimestampRangeRequest: 50,
  CrlDataResponse: 51,
  /** Confidential contract data (src/contracts/confidential, routed by privacy-messages.ts). */
  ConfidentialDataRequest: 52,
  ConfidentialDataResponse: 53,
  ConfidentialInventoryRequest: 54,
  ConfidentialInventory: 55,
  /** A contract validator's signed results of a confidential call (routed by contract-validator-messages.ts). */
  ContractValidatorResultsV2: 56,
} as const;
export type MessageCode = (typeof MessageCode)[keyof typeof MessageCode];

/** host:port as configured or declared. */
export interface PeerEndpoint {
  readonly host: string;
  readonly port: number;
}

/** What a node says about itself in its handshake. */
export interface HandshakeInfo {
  /** Network byte (e.g. 'T'.charCodeAt(0)). */
  readonly chainId: number;
  readonly version: readonly [major: number, minor: number, patch: number];
  /** e.g. "PoA", compared case-insensitively. */
  readonly consensusType: string;
  readonly declaredAddress: PeerEndpoint | undefined;
  readonly nonce: bigint;
  readonly nodeName: string;
  /** Owner address bytes (26). */
  readonly ownerAddress: Uint8Array;
  /** Per-connection session public key: 32 bytes (WAVES X25519) or 104 (GOST, a DER SubjectPublicKeyInfo). */
  readonly sessionPublicKey: Uint8Array;
}

/** This node's per-connection session key pair (X25519, raw 32 bytes each); its public half went out in the handshake. */
export interface SessionKeyPair {
  readonly publicKey: Uint8Array;
  readonly privateKey: Uint8Array;
}

/**
 * The stream frames arriving on one connection for one large privacy item (WE's
 * ChunkedStream): each frame's payload, the chunk magic included, up to and including the
 * empty end frame.
 */
export interface IncomingFrames extends AsyncIterable<Uint8Array> {
  /** Stops taking frames (what is left of the stream is dropped); the iteration ends with an error. */
  cancel(reason?: Error): void;
}

/** A connected, handshaken peer. */
export interface Peer {
  /** Unique per connection, for logs and maps. */
  readonly id: number;
  /** Remote socket endpoint as seen by us ("/ip:port" in WE's JSON). */
  readonly remote: PeerEndpoint;
  /** Whether we dialed it. */
  readonly outbound: boolean;
  /** The remote node's handshake (owner address proven by its signature). */
  readonly info: HandshakeInfo;
  /** The remote owner's public key (from the chain's node registry). */
  readonly ownerPublicKey: Uint8Array;
  /**
   * Queues one message. Returns false (and drops it) when the bounded send queue is full;
   * never throws for a closed peer (returns false).
   */
  send(code: MessageCode, payload: Uint8Array): boolean;
  /** Closes the connection (idempotent); `reason` goes to the log and to 'close' listeners. */
  close(reason: string, misbehaved?: boolean): void;
  readonly closed: boolean;
}

/**
 * A peer on a real connection (transport.ts) also carries what confidential data needs:
 * the connection's session keys and large-item streams.
 */
export interface StreamPeer extends Peer {
  /** Whether the connection runs TLS (privacy data then travels in clear inside it). */
  readonly tls: boolean;
  /** This side's session key pair of the connection (the peer's public half is `info.sessionPublicKey`). */
  readonly session: SessionKeyPair;
  /**
   * Writes stream frames (`int32 length ‖ payload`, each payload starting with the chunk
   * magic, the last one empty) with back-pressure; one stream at a time per connection
   * (a second waits for the first). Resolves once the last frame is handed to the socket.
   */
  sendStream(frames: AsyncIterable<Uint8Array>): Promise<void>;
  /**
   * Takes the next stream arriving on this connection, reading at most `bufferSize` frames
   * ahead (the socket is paused beyond that). Streams are handed out in arrival order.
   */
  receiveStream(bufferSize: number): IncomingFrames;
}

export const isStreamPeer = (peer: Peer): peer is StreamPeer => 'receiveStream' in peer && 'session' in peer;

export interface PeerTransportEvents {
  /** A handshake completed and the peer was allowed. */
  onPeer(peer: Peer): void;
  /** A framed message arrived from a peer. Throwing closes only that peer. */
  onMessage(peer: Peer, code: MessageCode, payload: Uint8Array): void;
  /**
   * The peer's connection ended (any reason); `misbehaved` when the peer sent something
   * malformed (a bad frame, a message its handler refused): the node suspends its address.
   */
  onClose(peer: Peer, reason: string, misbehaved: boolean): void;
}

/**
 * What the transport tells about its traffic, one call per framed message (the node's
 * metrics count them by code). Optional: without one the transport counts nothing.
 */
export interface NetworkTrafficObserver {
  /** A whole, checked message arrived from a peer; `bytes` is its frame on the wire. */
  received(code: MessageCode, bytes: number): void;
  /** A message went to a peer's socket or its send queue (a dropped one is not reported). */
  sent(code: MessageCode, bytes: number): void;
}

export interface PeerTransport {
  /** Starts listening; resolves with the bound port. */
  listen(host: string, port: number): Promise<number>;
  /** Dials and handshakes; resolves with the peer or rejects (refused, timeout, not allowed). */
  connect(endpoint: PeerEndpoint): Promise<Peer>;
  /** Connected peers. */
  peers(): readonly Peer[];
  /** Closes the server and every connection. */
  close(): Promise<void>;
}

/** Timer functions the network's schedules run on (injectable: tests drive them by hand). */
export interface Timers {
  setTimeout(f: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Node's timers, unref'd so a pending retry never keeps the process alive. */
export const NODE_TIMERS: Timers = {
  setTimeout: (f, ms) => {
    const t = setTimeout(f, ms);
    t.unref();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};
