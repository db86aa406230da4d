/**
 * A WE 1.14 node for tests, written from we-node's network code with its own wire (wire.ts):
 * it connects to Weft nodes or accepts their connections as a registered participant, speaks
 * as WE does after the V3 handshake (GetPeers, RawAttributes, Score), follows and serves the
 * chain (GetSignatures/Signatures, GetBlocks → HistoryBlock 45 or MissingBlock 41,
 * MicroBlockRequest → MicroBlockResponseV2 47), relays transactions as 46 and micro-block
 * inventories, and mines in its PoA turn: key blocks broadcast as 23, micro-blocks announced
 * by MicroBlockInventoryV2 43 (feature 173). Every frame a peer sends it is checked against
 * WE's layouts and against the forms WE gives a peer of its version (1.14: 45/46/47, 43);
 * what fails is kept in `violations`, and a test fails on any.
 */
import { randomBytes } from 'node:crypto';
import { createServer, connect as tcpConnect, type Server, type Socket } from 'node:net';
import { Block } from '../../src/protocol/blocks/block.js';
import { parseMicroBlock, produceMicroBlock } from '../../src/protocol/blocks/micro-block.js';
import type { Protocol } from '../../src/protocol/protocol.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import type { KeyPair } from '../../src/crypto/suite.js';
import { WeChainView } from './chain-view.js';
import {
  checkFixedLayout,
  contractExecutionBody,
  decodeContractExecution,
  decodeFrame,
  decodeHandshake,
  decodeInventory,
  decodePeers,
  decodeRawAttributes,
  decodeSignatures,
  decodeWithCertChain,
  encodeFrame,
  encodeHandshake,
  encodeInventory,
  encodeMicroBlockResponseV2,
  encodePeers,
  encodeRawAttributes,
  encodeSignatures,
  encodeWithCertChain,
  handshakePayload,
  inventorySignedBytes,
  LayoutViolation,
  separateBlockAndTxMessages,
  WE_CODES,
  type ContractExecutionStatus,
  type Frame,
  type HandshakeV3,
  type MicroBlockInventory,
  type WeCode,
} from './wire.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
/** WE's minimum peer version (HandshakeHandler). */
const MIN_VERSION: readonly [number, number, number] = [1, 8, 4];

export interface WePeerOptions {
  readonly protocol: Protocol;
  readonly name: string;
  /** The node owner: a registered participant (and a miner, to mine) on the chain. */
  readonly owner: KeyPair;
  readonly chain: WeChainView;
  /** Registered participants' public keys (genesis): whose handshakes are accepted. */
  readonly participants: readonly Uint8Array[];
  readonly version?: readonly [number, number, number];
  /** The port it declares in its handshake (its listening port), if any. */
  readonly declaredPort?: number;
  /** Mine in its PoA turn (default false). */
  readonly mine?: boolean;
  /** Feature 173 active on the chain: WE's miner announces by 43 and expects 43 (default true). */
  readonly microBlockInventoryV2?: boolean;
  /** Feature 160 active: micro-blocks v5 (default true). */
  readonly modifiedTotalSign?: boolean;
  /** Transactions for its next micro-block, asked for after each key block it forges and then every micro-block interval. */
  readonly transactions?: () => Transaction[];
  readonly microBlockIntervalMs?: number;
}

export interface Received {
  readonly at: number;
  readonly connection: number;
  readonly code: number;
  readonly payload: Buffer;
}

/** One TCP connection after (or while) its handshake. */
export class WeConnection {
  private static nextId = 1;
  readonly id = WeConnection.nextId++;
  remote: HandshakeV3 | undefined;
  attributes: { nodeMode: number; p2pTls: boolean } | undefined;
  closed = false;
  closedAt: number | undefined;
  closeReason: string | undefined;
  private buffer: Buffer = Buffer.alloc(0);
  private readonly sessionKey: KeyPair;
  /** Block ids asked by GetBlocks: a 23 carrying one of them is a history reply in the pre-1.11.1 form. */
  readonly requestedBlocks = new Set<string>();
  score = 0n;
  handshakeDone!: Promise<void>;
  private resolveHandshake!: () => void;
  private rejectHandshake!: (e: Error) => void;

  constructor(
    readonly peer: WePeer,
    readonly socket: Socket,
    readonly outbound: boolean,
  ) {
    this.sessionKey = peer.protocol.crypto.generateKeyPair();
    this.handshakeDone = new Promise((resolve, reject) => {
      this.resolveHandshake = resolve;
      this.rejectHandshake = reject;
    });
    this.handshakeDone.catch(() => undefined);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('close', () => this.onClose('the remote side closed the connection'));
    socket.on('error', (e) => this.onClose(`socket error: ${e.message}`));
    if (outbound) socket.write(this.ownHandshake());
  }

  get open(): boolean {
    return !this.closed && this.remote !== undefined;
  }

  /** The remote's version gets 45/46/47 (NodeVersion ≥ 1.11.1). */
  get separateForms(): boolean {
    return this.remote !== undefined && separateBlockAndTxMessages(this.remote.version);
  }

  send(code: WeCode, payload: Uint8Array = Buffer.alloc(0)): void {
    this.sendRaw(encodeFrame(code, payload));
  }

  /** Bytes as they are (a test's own frame). */
  sendRaw(bytes: Uint8Array): void {
    if (this.closed) return;
    this.socket.write(bytes);
  }

  close(reason: string): void {
    this.onClose(reason);
    this.socket.destroy();
  }

  private ownHandshake(): Buffer {
    const p = this.peer;
    const payload = handshakePayload({
      chainId: p.protocol.chainId,
      version: p.version,
      consensusType: 'PoA',
      declaredAddress: p.declaredPort === undefined ? undefined : { ip: Buffer.from([127, 0, 0, 1]), port: p.declaredPort },
      // ApplicationInfo's nodeNonce: random unless configured.
      nonce: randomBytes(8).readBigInt64BE(),
      nodeName: p.name,
      sessionPublicKey: this.sessionKey.publicKey,
    });
    return encodeHandshake(payload, p.address, p.protocol.crypto.sign(p.owner.privateKey, payload));
  }

  private onClose(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.closedAt = Date.now();
    this.closeReason = reason;
    this.rejectHandshake(new Error(`${this.peer.name}: connection ${this.id} closed before the handshake: ${reason}`));
    this.peer.onConnectionClosed(this);
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    try {
      if (this.remote === undefined) {
        const h = decodeHandshake(this.buffer);
        if (h === undefined) return;
        this.buffer = this.buffer.subarray(h.length);
        this.acceptHandshake(h.handshake);
        if (this.closed) return;
      }
      for (;;) {
        const f = decodeFrame(this.buffer);
        if (f === undefined) return;
        this.buffer = this.buffer.subarray(f.length);
        this.peer.onFrame(this, f.frame);
        if (this.closed) return;
      }
    } catch (e) {
      if (!(e instanceof LayoutViolation)) throw e;
      // WE's codecs close the channel on what they cannot read.
      this.peer.violation(this, undefined, e.message);
      this.close(`undecodable input: ${e.message}`);
    }
  }

  /** HandshakeHandler's checks, then the server's reply and WE's first messages. */
  private acceptHandshake(h: HandshakeV3): void {
    const p = this.peer;
    const problem = p.handshakeProblem(h);
    if (problem !== undefined) {
      p.violation(this, undefined, `handshake refused: ${problem}`);
      this.close(`handshake refused: ${problem}`);
      return;
    }
    this.remote = h;
    if (!this.outbound) this.socket.write(this.ownHandshake());
    this.resolveHandshake();
    p.afterHandshake(this);
  }
}

export class WePeer {
  readonly protocol: Protocol;
  readonly name: string;
  readonly owner: KeyPair;
  readonly address: Uint8Array;
  readonly version: readonly [number, number, number];
  readonly declaredPort: number | undefined;
  readonly chain: WeChainView;
  readonly connections: WeConnection[] = [];
  readonly received: Received[] = [];
  /** Everything a peer sent that a WE 1.14 node would not have sent a 1.14 peer, or could not read. */
  readonly violations: string[] = [];
  /** Blocks this peer forged (key blocks) and micro-blocks it produced, by id. */
  readonly forged: Block[] = [];
  readonly producedMicroBlocks: string[] = [];
  private readonly participants = new Map<string, Uint8Array>();
  private server: Server | undefined;
  private miningTimer: NodeJS.Timeout | undefined;
  private lastMicroAt = 0;
  private readonly seenTx = new Set<string>();
  private readonly options: WePeerOptions;
  /** How its micro-blocks are announced: 43 as WE's miner does with feature 173; a test may pick V1 (26), which WE also accepts. */
  inventoryCode: 26 | 43 = 43;

  constructor(options: WePeerOptions) {
    this.options = options;
    this.protocol = options.protocol;
    this.name = options.name;
    this.owner = options.owner;
    this.address = options.protocol.addresses.fromPublicKey(options.owner.publicKey).bytes;
    this.version = options.version ?? [1, 14, 0];
    this.declaredPort = options.declaredPort;
    this.chain = options.chain;
    for (const pk of options.participants) this.participants.set(hex(options.protocol.addresses.fromPublicKey(pk).bytes), pk);
  }

  // ------------------------------------------------------------ connections

  /** Listens for Weft nodes connecting to it (its declared port). */
  async listen(port: number, host = '127.0.0.1'): Promise<void> {
    const server = createServer((socket) => this.connections.push(new WeConnection(this, socket, false)));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
  }

  /** Connects to a node and completes the handshake (the client sends first). */
  async connect(port: number, host = '127.0.0.1', timeoutMs = 10_000): Promise<WeConnection> {
    const socket = tcpConnect({ host, port });
    const c = new WeConnection(this, socket, true);
    this.connections.push(c);
    const timer = setTimeout(() => c.close('handshake timeout'), timeoutMs);
    try {
      await c.handshakeDone;
    } finally {
      clearTimeout(timer);
    }
    return c;
  }

  openConnections(): WeConnection[] {
    return this.connections.filter((c) => c.open);
  }

  /** Starts the mining loop (if `mine`). */
  start(): void {
    if (this.options.mine !== true || this.miningTimer !== undefined) return;
    this.miningTimer = setInterval(() => this.mineStep(), 100);
  }

  async stop(): Promise<void> {
    if (this.miningTimer !== undefined) clearInterval(this.miningTimer);
    this.miningTimer = undefined;
    for (const c of this.connections) c.close('stopped');
    const server = this.server;
    this.server = undefined;
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  handshakeProblem(h: HandshakeV3): string | undefined {
    if (hex(h.ownerAddress) === hex(this.address)) return 'the peer is this node itself';
    if (h.chainId !== this.protocol.chainId) return `chain id ${h.chainId}, expected ${this.protocol.chainId}`;
    const [a, b, c] = h.version;
    const [x, y, z] = MIN_VERSION;
    if (a < x || (a === x && (b < y || (b === y && c < z)))) return `version ${h.version.join('.')} < 1.8.4`;
    if (h.consensusType.toLowerCase() !== 'poa') return `consensus ${h.consensusType}`;
    const key = this.participants.get(hex(h.ownerAddress));
    if (key === undefined) return 'owner is not a registered participant';
    if (!this.protocol.crypto.verify(key, h.payload, h.signature)) return 'invalid handshake signature';
    return undefined;
  }

  /** PeerSynchronizer, NodeAttributesSender and the score observer, in that order. */
  afterHandshake(c: WeConnection): void {
    c.send(3);
    const body = Buffer.from([0, 0]); // NodeMode.Default, no P2P TLS
    c.send(42, encodeRawAttributes(this.owner.publicKey, body, this.protocol.crypto.sign(this.owner.privateKey, body)));
    c.send(24, scoreBytes(this.chain.score()));
    // A WE 1.14 node sends its attributes right after its handshake: without them it would be taken for a default node.
    setTimeout(() => {
      if (!c.closed && c.attributes === undefined) this.violation(c, undefined, 'no RawAttributes (42) within 5 s of the handshake');
    }, 5000).unref();
  }

  onConnectionClosed(c: WeConnection): void {
    void c;
  }

  violation(c: WeConnection, code: number | undefined, text: string): void {
    const from = c.remote?.nodeName ?? `connection ${c.id}`;
    this.violations.push(`${from}${code === undefined ? '' : ` (${code} ${WE_CODES[code as WeCode] ?? ''})`}: ${text}`);
  }

  /** Codes `c` received since `since`. */
  receivedCodes(since = 0, connection?: WeConnection): number[] {
    return this.received.filter((r) => r.at >= since && (connection === undefined || r.connection === connection.id)).map((r) => r.code);
  }

  broadcast(code: WeCode, payload: Uint8Array, except?: WeConnection): void {
    for (const c of this.openConnections()) if (c !== except) c.send(code, payload);
  }

  // ------------------------------------------------------------ messages

  onFrame(c: WeConnection, f: Frame): void {
    this.received.push({ at: Date.now(), connection: c.id, code: f.code, payload: f.payload });
    try {
      this.handle(c, f);
    } catch (e) {
      if (!(e instanceof LayoutViolation)) throw e;
      this.violation(c, f.code, e.message);
      // MessageCodec drops the channel on a message its spec cannot read.
      c.close(`${WE_CODES[f.code as WeCode]}: ${e.message}`);
    }
  }

  private handle(c: WeConnection, f: Frame): void {
    const code = f.code as WeCode;
    const p = this.protocol;
    switch (code) {
      case 3:
        checkFixedLayout(code, f.payload);
        c.send(4, encodePeers(this.declaredPort === undefined ? [] : [{ host: '127.0.0.1', port: this.declaredPort }]));
        return;
      case 4:
        decodePeers(f.payload);
        return;
      case 20: {
        const known = decodeSignatures(20, f.payload);
        for (const id of known) {
          const ids = this.chain.idsAfter(id);
          if (ids !== undefined) {
            c.send(21, encodeSignatures(ids));
            return;
          }
        }
        return;
      }
      case 21: {
        const ids = decodeSignatures(21, f.payload);
        const missing = ids.filter((id) => !this.chain.knows(id));
        if (missing.length > 0) {
          for (const id of missing) c.requestedBlocks.add(hex(id));
          c.send(34, Buffer.concat(missing.slice(0, 100)));
        }
        return;
      }
      case 23:
      case 45: {
        let bytes = f.payload;
        if (code === 45) bytes = decodeWithCertChain(45, f.payload).body;
        const block = wrapped(() => Block.fromBytes(p, bytes), 'block');
        if (code === 23 && c.requestedBlocks.has(hex(block.id)) && c.separateForms)
          this.violation(c, 23, 'a GetBlocks reply to a 1.14 peer is HistoryBlock 45 (HistoryReplier), not Block 23');
        c.requestedBlocks.delete(hex(block.id));
        this.takeBlock(c, block, code === 23);
        return;
      }
      case 24:
        checkFixedLayout(code, f.payload);
        c.score = BigInt(`0x${f.payload.toString('hex')}`);
        if (c.score > this.chain.score()) c.send(20, encodeSignatures(this.chain.lastIds()));
        return;
      case 25:
      case 46: {
        const body = code === 46 ? decodeWithCertChain(46, f.payload).body : f.payload;
        if (code === 25 && c.separateForms)
          this.violation(c, 25, 'transactions go to a 1.14 peer as BroadcastedTransaction 46 (EnabledTxBroadcaster), not Transaction 25');
        const tx = wrapped(() => p.transactionFromBytes(body), 'transaction');
        if (!this.seenTx.has(tx.idBase58)) {
          this.seenTx.add(tx.idBase58);
          this.broadcast(46, encodeWithCertChain(body), c);
        }
        return;
      }
      case 26:
      case 43: {
        const inv = decodeInventory(code, f.payload);
        if (code === 26 && (this.options.microBlockInventoryV2 ?? true))
          this.violation(c, 26, 'with feature 173 active a WE miner announces micro-blocks by MicroBlockInventoryV2 43 (MinerBase.buildInventory)');
        const signed = inventorySignedBytes(p.addresses.fromPublicKey(inv.sender).bytes, inv);
        if (!p.crypto.verify(inv.sender, signed, inv.signature)) {
          this.violation(c, code, 'inventory signature does not verify over address ‖ total ‖ (key block ‖) prev');
          return;
        }
        if (!this.chain.knows(inv.totalBlockSig) && hex(inv.prevBlockSig) === hex(this.chain.tip.id)) c.send(27, inv.totalBlockSig);
        else if (!this.chain.knows(inv.prevBlockSig)) c.send(20, encodeSignatures(this.chain.lastIds()));
        return;
      }
      case 27: {
        checkFixedLayout(code, f.payload);
        const micro = this.chain.microBlock(f.payload);
        if (micro !== undefined) c.send(c.separateForms ? 47 : 28, c.separateForms ? encodeMicroBlockResponseV2(micro.bytes) : micro.bytes);
        return;
      }
      case 28:
      case 47: {
        if (code === 28 && c.separateForms) this.violation(c, 28, 'a micro-block goes to a 1.14 peer as MicroBlockResponseV2 47, not 28');
        const body = code === 47 ? decodeWithCertChain(47, f.payload).body : f.payload;
        const micro = wrapped(() => parseMicroBlock(p, body), 'micro-block');
        if (this.chain.knows(micro.totalLiquidBlockSig)) return;
        try {
          const liquid = this.chain.appendMicroBlock(micro);
          const key = this.chain.keyBlock!;
          // MicroBlockLoader relays what it applied.
          this.relayInventory(micro.generator, liquid.id, micro.prevLiquidBlockSig, key.id, c);
        } catch (e) {
          this.violation(c, code, `micro-block does not apply on the tip: ${(e as Error).message}`);
        }
        return;
      }
      case 29: {
        const m = decodeContractExecution(f.payload);
        if (!p.crypto.verify(m.sender, m.body, m.signature)) this.violation(c, 29, 'contract execution status signature does not verify');
        return;
      }
      case 41:
        checkFixedLayout(code, f.payload);
        return;
      case 42: {
        const a = decodeRawAttributes(f.payload);
        if (!p.crypto.verify(a.sender, a.body, a.signature)) this.violation(c, 42, 'RawAttributes signature does not verify over the body');
        if (c.remote !== undefined && hex(p.addresses.fromPublicKey(a.sender).bytes) !== hex(c.remote.ownerAddress))
          this.violation(c, 42, 'RawAttributes signed by another key than the handshake owner');
        c.attributes = { nodeMode: a.nodeMode, p2pTls: a.p2pTls };
        return;
      }
      default:
        checkFixedLayout(code, f.payload);
    }
  }

  private takeBlock(c: WeConnection, block: Block, broadcast: boolean): void {
    let appended: boolean;
    try {
      appended = this.chain.appendBlock(block);
    } catch (e) {
      this.violation(c, 23, (e as Error).message);
      return;
    }
    if (!appended) {
      c.send(20, encodeSignatures(this.chain.lastIds()));
      return;
    }
    // A key block that was broadcast and applied is relayed to the others.
    if (broadcast) this.broadcast(23, block.bytes, c);
  }

  private relayInventory(generator: Uint8Array, total: Uint8Array, prev: Uint8Array, key: Uint8Array, except?: WeConnection): void {
    void generator;
    // A relay passes on the miner's inventory; this peer only holds the micro-block, so it re-announces when it is the miner.
    if (hex(generator) !== hex(this.owner.publicKey)) return;
    this.broadcast(this.inventoryCode, this.inventory(total, prev, key), except);
  }

  /** This miner's signed inventory of a micro-block, in the form `inventoryCode` says. */
  inventory(total: Uint8Array, prev: Uint8Array, key: Uint8Array): Buffer {
    const v2 = this.inventoryCode === 43;
    const fields = { totalBlockSig: Buffer.from(total), prevBlockSig: Buffer.from(prev), keyBlockSig: v2 ? Buffer.from(key) : undefined };
    const signature = Buffer.from(this.protocol.crypto.sign(this.owner.privateKey, inventorySignedBytes(this.address, fields)));
    const inv: MicroBlockInventory = { code: this.inventoryCode, sender: Buffer.from(this.owner.publicKey), ...fields, signature };
    return encodeInventory(inv);
  }

  // ------------------------------------------------------------ mining

  private mineStep(): void {
    const now = BigInt(Date.now());
    const chain = this.chain;
    if (this.openConnections().length === 0) return;
    const ownTurn = chain.canForgeAt(now) && hex(chain.expectedMiner(now)) === hex(this.address);
    if (ownTurn) {
      const block = chain.forgeKeyBlock(now, this.owner.privateKey);
      chain.appendBlock(block);
      this.forged.push(block);
      this.lastMicroAt = Date.now();
      this.broadcast(23, block.bytes);
      this.broadcast(24, scoreBytes(chain.score()));
      return;
    }
    const key = chain.keyBlock;
    if (key === undefined || hex(key.generator) !== hex(this.owner.publicKey) || !chain.inKeyBlockRound(now)) return;
    if (Date.now() - this.lastMicroAt < (this.options.microBlockIntervalMs ?? 1000)) return;
    const txs = this.options.transactions?.() ?? [];
    if (txs.length === 0) return;
    this.lastMicroAt = Date.now();
    const { microBlock, liquidBlock } = produceMicroBlock(
      this.protocol,
      chain.tip,
      { transactions: txs },
      {
        timestamp: now,
        privateKey: this.owner.privateKey,
        modifiedTotalSign: this.options.modifiedTotalSign ?? true,
      },
    );
    const prev = chain.tip.id;
    chain.appendOwnMicroBlock(microBlock, liquidBlock);
    this.producedMicroBlocks.push(hex(microBlock.totalLiquidBlockSig));
    this.broadcast(this.inventoryCode, this.inventory(liquidBlock.id, prev, key.id));
  }

  /** A signed ContractExecutionMessage (29) as a WE contract node sends its statuses. */
  contractStatus(m: Omit<ContractExecutionStatus, 'sender'>): Buffer {
    const body = contractExecutionBody({ ...m, sender: this.owner.publicKey });
    return Buffer.concat([body, this.protocol.crypto.sign(this.owner.privateKey, body)]);
  }
}

/** ScoreSpec: BigInt.toByteArray (two's complement, minimal). */
export function scoreBytes(score: bigint): Buffer {
  let h = score.toString(16);
  if (h.length % 2 === 1) h = `0${h}`;
  const b = Buffer.from(h, 'hex');
  return b[0]! >= 0x80 ? Buffer.concat([Buffer.from([0]), b]) : b;
}

function wrapped<T>(read: () => T, what: string): T {
  try {
    return read();
  } catch (e) {
    throw new LayoutViolation(`${what} bytes do not decode: ${(e as Error).message}`);
  }
}
