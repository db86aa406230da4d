/**
 * Execution status messages (WE's ContractExecutionMessage and ContractExecutionMessagesCache):
 * what the node records about each executable transaction — `Success` when its 105 is
 * mined, `Error` / `Failure` with WE's code and message otherwise — signed by the node, kept
 * for `expire-after` (60 min) up to `max-size` transactions, served by
 * `/contracts/status/{txId}` oldest first. Messages from other nodes (gossip) are taken
 * when their signature holds.
 *
 * Signed bytes: sender public key ‖ txId (u16 length ‖ bytes) ‖ status name (u16 length ‖
 * UTF-8) ‖ code (0, or 1 ‖ u16 4 ‖ int32) ‖ message (u16 length ‖ UTF-8) ‖ timestamp (int64).
 */
import { encodeBase58 } from '../crypto/encoding.js';
import type { KeyPair } from '../crypto/suite.js';
import { ByteWriter } from '../protocol/bytes.js';
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
  readonly signature: Uint8Array;
}

const utf8 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'));

export function statusMessageBytes(m: Omit<ContractExecutionMessage, 'signature'>): Uint8Array {
  const w = new ByteWriter(128 + m.message.length).bytes(m.senderPublicKey).shortBytes(m.txId).shortBytes(utf8(m.status));
  if (m.code === null) w.u8(0);
  else w.u8(1).u16(4).i32(m.code);
  return w.shortBytes(utf8(m.message)).i64(m.timestamp).result();
}

interface Entry {
  messages: ContractExecutionMessage[];
  expiresAt: bigint;
}

export interface StatusBookOptions {
  readonly protocol: Protocol;
  /** The node's key: it signs the messages it records. */
  readonly node: KeyPair;
  readonly now: () => bigint;
  readonly maxSize: number;
  readonly expireAfterMs: number;
}

export class ExecutionStatusBook {
  private readonly byTx = new Map<string, Entry>();
  private readonly listeners = new Set<(m: ContractExecutionMessage) => void>();

  constructor(private readonly options: StatusBookOptions) {}

  /** Signs and records a status of `txId`. */
  record(txId: Uint8Array, draft: StatusDraft): ContractExecutionMessage {
    const unsigned = {
      senderPublicKey: this.options.node.publicKey,
      txId,
      status: draft.status,
      code: draft.code,
      message: draft.message.slice(0, MAX_STATUS_MESSAGE_LENGTH),
      timestamp: this.options.now(),
    };
    const message: ContractExecutionMessage = { ...unsigned, signature: this.options.protocol.crypto.sign(this.options.node.privateKey, statusMessageBytes(unsigned)) };
    this.put(message);
    return message;
  }

  /** Takes a message another node signed; false when its signature does not hold. */
  accept(message: ContractExecutionMessage): boolean {
    const { signature, ...unsigned } = message;
    if (!this.options.protocol.crypto.verify(message.senderPublicKey, statusMessageBytes(unsigned), signature)) return false;
    this.put(message);
    return true;
  }

  /** Statuses of a transaction, oldest first; undefined when none is known. */
  statuses(txId: Uint8Array): readonly ContractExecutionMessage[] | undefined {
    const key = encodeBase58(txId);
    const e = this.byTx.get(key);
    if (e === undefined) return undefined;
    if (e.expiresAt <= this.options.now()) {
      this.byTx.delete(key);
      return undefined;
    }
    return [...e.messages].sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
  }

  /** Calls `listener` with every message recorded or accepted from now on; returns the unsubscribe. */
  subscribe(listener: (m: ContractExecutionMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private put(message: ContractExecutionMessage): void {
    const key = encodeBase58(message.txId);
    const now = this.options.now();
    let e = this.byTx.get(key);
    if (e === undefined || e.expiresAt <= now) {
      if (e !== undefined) this.byTx.delete(key);
      this.evict(now);
      e = { messages: [], expiresAt: 0n };
      this.byTx.set(key, e);
    }
    e.messages.push(message);
    e.expiresAt = now + BigInt(this.options.expireAfterMs);
    for (const l of this.listeners) l(message);
  }

  /** Keeps the book within max-size: expired entries first, then the oldest. */
  private evict(now: bigint): void {
    if (this.byTx.size < this.options.maxSize) return;
    for (const [k, e] of this.byTx) if (e.expiresAt <= now) this.byTx.delete(k);
    while (this.byTx.size >= this.options.maxSize) {
      const oldest = this.byTx.keys().next().value;
      if (oldest === undefined) break;
      this.byTx.delete(oldest);
    }
  }
}
