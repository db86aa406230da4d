/**
 * Execution status messages (WE's ContractExecutionMessage and ContractExecutionMessagesCache):
 * what the node records about each executable transaction — `Success` when its 105 is
 * mined, `Error` / `Failure` with WE's code and message otherwise — signed by the node, kept
 * for `expire-after` (60 min) up to `max-size` transactions, served by
 * `/contracts/status/{txId}` oldest first. The node's own messages go to its peers (WE's
 * NetworkContractExecutionMessage, P2P code 29: the signed bytes followed by the signature);
 * messages from other nodes are taken when their signature holds, once each.
 *
 * Signed bytes: sender public key ‖ txId (u16 length ‖ bytes) ‖ status name (u16 length ‖
 * UTF-8) ‖ code (0, or 1 ‖ u16 4 ‖ int32) ‖ message (u16 length ‖ UTF-8) ‖ timestamp (int64).
 */
import { encodeBase58, equalBytes } from '../crypto/encoding.js';
import { ExpiringCache } from '../replication/expiring-cache.js';
import type { KeyPair } from '../crypto/suite.js';
import { DecodeError } from '../errors/catalogue.js';
import { ByteReader, ByteWriter } from '../protocol/bytes.js';
import type { Protocol } from '../protocol/protocol.js';
import type { ExecutionStatus, StatusDraft } from './result.js';

/** WE cuts status messages to this many characters. */
export const MAX_STATUS_MESSAGE_LENGTH = 1000;

export interface ContractExecutionMessage {
  readonly senderPublicKey: Uint8Array;
  readonly txId: Uint8Array;
  readonly status: ExecutionStatus;
  readonly code: number | null;
  readonly message: string;
  readonly timestamp: bigint;
  /**
   * The sender's signature over statusMessageBytes. A method, not a field: the node signs its
   * own statuses on first call (record), so copying a message (`{ ...m }`) signs nothing, and a
   * copy answers the original's signature.
   */
  signature(): Uint8Array;
}

const utf8 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'));

export function statusMessageBytes(m: Omit<ContractExecutionMessage, 'signature'>): Uint8Array {
  const w = new ByteWriter(128 + m.message.length).bytes(m.senderPublicKey).shortBytes(m.txId).shortBytes(utf8(m.status));
  if (m.code === null) w.u8(0);
  else w.u8(1).u16(4).i32(m.code);
  return w.shortBytes(utf8(m.message)).i64(m.timestamp).result();
}

/** WE's limit on a whole message (signed bytes and signature). */
export const MAX_STATUS_MESSAGE_BYTES = 5 * 1024;

const STATUSES: ReadonlySet<string> = new Set<ExecutionStatus>(['Success', 'Error', 'Failure']);

/** A message as it travels between nodes: its signed bytes, then the signature. */
export function encodeStatusMessage(m: ContractExecutionMessage): Uint8Array {
  const body = statusMessageBytes(m);
  const signature = m.signature();
  const out = new Uint8Array(body.length + signature.length);
  out.set(body);
  out.set(signature, body.length);
  return out;
}

/** Reads a message another node sent; throws a DecodeError naming what does not parse. */
export function decodeStatusMessage(bytes: Uint8Array, publicKeyLength: number, signatureLength: number): ContractExecutionMessage {
  if (bytes.length > MAX_STATUS_MESSAGE_BYTES)
    throw new DecodeError(`Contract execution message of ${bytes.length} bytes, at most ${MAX_STATUS_MESSAGE_BYTES}`, 'ContractExecutionMessage');
  const r = new ByteReader(bytes);
  const senderPublicKey = r.bytes(publicKeyLength, 'senderPublicKey');
  const txId = r.shortBytes('txId');
  const status = Buffer.from(r.shortBytes('status')).toString('utf8');
  if (!STATUSES.has(status)) throw new DecodeError(`Unknown contract execution status '${status}'`, 'status');
  let code: number | null = null;
  const flag = r.u8('code flag');
  if (flag === 1) {
    const length = r.u16('code length');
    if (length !== 4) throw new DecodeError(`Code of ${length} bytes, expected 4`, 'code');
    code = r.i32('code');
  } else if (flag !== 0) throw new DecodeError(`Code flag ${flag}, expected 0 or 1`, 'code');
  const message = Buffer.from(r.shortBytes('message')).toString('utf8');
  const timestamp = r.i64('timestamp');
  const signature = r.bytes(signatureLength, 'signature');
  r.expectEnd('ContractExecutionMessage');
  return { senderPublicKey, txId, status: status as ExecutionStatus, code, message, timestamp, signature: () => signature };
}

/** Where a message in the book came from. */
export type StatusOrigin = 'own' | 'peer';

export interface StatusBookOptions {
  readonly protocol: Protocol;
  /** The node's key: it signs the messages it records. */
  readonly node: KeyPair;
  readonly now: () => bigint;
  readonly maxSize: number;
  readonly expireAfterMs: number;
}

export class ExecutionStatusBook {
  /** Per transaction (Base58 id), its messages: kept `expireAfterMs` after the last one came, `maxSize` transactions at most. */
  private readonly byTx: ExpiringCache<string, ContractExecutionMessage[]>;
  private readonly listeners = new Set<(m: ContractExecutionMessage, origin: StatusOrigin) => void>();

  private readonly signStatus: (bytes: Uint8Array) => Uint8Array;

  constructor(private readonly options: StatusBookOptions) {
    this.signStatus = (bytes) => options.protocol.crypto.sign(options.node.privateKey, bytes);
    this.byTx = new ExpiringCache({ maxSize: options.maxSize, ttlMs: options.expireAfterMs, now: () => Number(options.now()) });
  }

  /**
   * Records a status of `txId`, signed by the node. The signature is made when something
   * first asks for it (the peers' copy, a REST or gRPC answer), once: a status no one reads —
   * a node without peers records one per execution — costs no signature.
   */
  record(txId: Uint8Array, draft: StatusDraft): ContractExecutionMessage {
    const unsigned = {
      senderPublicKey: this.options.node.publicKey,
      txId,
      status: draft.status,
      code: draft.code,
      message: draft.message.slice(0, MAX_STATUS_MESSAGE_LENGTH),
      timestamp: this.options.now(),
    };
    let signature: Uint8Array | undefined;
    const sign = this.signStatus;
    const message: ContractExecutionMessage = { ...unsigned, signature: () => (signature ??= sign(statusMessageBytes(unsigned))) };
    this.put(message, 'own');
    return message;
  }

  /**
   * Takes a message another node signed: 'new' when recorded, 'known' when the book holds
   * it already (nothing changes), 'invalid' when its signature does not hold.
   */
  accept(message: ContractExecutionMessage): 'new' | 'known' | 'invalid' {
    const signature = message.signature();
    if (!this.options.protocol.crypto.verify(message.senderPublicKey, statusMessageBytes(message), signature)) return 'invalid';
    const held = this.byTx.get(encodeBase58(message.txId));
    if (held !== undefined && held.some((m) => equalBytes(m.senderPublicKey, message.senderPublicKey) && equalBytes(m.signature(), signature))) return 'known';
    this.put(message, 'peer');
    return 'new';
  }

  /** Statuses of a transaction, oldest first; undefined when none is known. */
  statuses(txId: Uint8Array): readonly ContractExecutionMessage[] | undefined {
    const messages = this.byTx.get(encodeBase58(txId));
    if (messages === undefined) return undefined;
    return [...messages].sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
  }

  /** The distinct nodes (public keys) that recorded an `Error` for a transaction, first ones first. */
  errorSenders(txId: Uint8Array): Uint8Array[] {
    const senders = new Map<string, Uint8Array>();
    for (const m of this.statuses(txId) ?? []) if (m.status === 'Error') senders.set(encodeBase58(m.senderPublicKey), m.senderPublicKey);
    return [...senders.values()];
  }

  /** Calls `listener` with every message recorded or newly accepted from now on; returns the unsubscribe. */
  subscribe(listener: (m: ContractExecutionMessage, origin: StatusOrigin) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private put(message: ContractExecutionMessage, origin: StatusOrigin): void {
    const key = encodeBase58(message.txId);
    const messages = this.byTx.get(key) ?? [];
    messages.push(message);
    // Written again: kept expire-after from now.
    this.byTx.set(key, messages);
    for (const l of this.listeners) l(message, origin);
  }
}
