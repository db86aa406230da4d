/**
 * The node side of a WASM execution (WE's WASMServiceImpl): the callbacks wevm's host
 * functions make — storage, balances, transfers, issues, leases, payments between
 * contracts — kept per execution and turned into the 105's results and asset operations.
 * It runs on the execution's thread (vm.ts); what it reads of the node's state it asks
 * through WasmStateReads, which the node answers from the execution's view.
 *
 * Problems the node detects here abort the whole execution with WE's node-side codes
 * (WEVMExecutionException): 401 bytecode missing, 501 data missing, 502 invalid argument,
 * 503 invalid transfer or balance, 400 lease to a contract.
 */
import { Address, type Recipient } from '../../crypto/address.js';
import { encodeBase58 } from '../../crypto/encoding.js';
import { ByteReader } from '../../protocol/bytes.js';
import type { Protocol } from '../../protocol/protocol.js';
import { CONTRACT_DATA_ENTRY, type DataEntry } from '../../protocol/transactions/fields.js';
import type { ContractAssetOperation, ContractOperations, ContractResults, ContractTransferIn } from '../../protocol/transactions/contracts.js';
import { InternalError } from '../../errors/internal.js';

export const DATA_IS_MISSING = 501;
export const INVALID_ARGUMENT = 502;
export const INVALID_TRANSFER = 503;
export const BYTECODE_NOT_FOUND = 401;
export const LEASE_TO_CONTRACT = 400;

/** WE's WEVMExecutionException: ends the execution with `code`. */
export class WevmAbort extends InternalError {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'WevmAbort';
  }
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const utf8 = (b: Uint8Array): string => Buffer.from(b).toString('utf8');
const ID_LENGTH = 32;

/**
 * What a WASM execution reads of the node's state — each one of the execution view's reads
 * (ContractExecutionView: contract, contractData, balance, asset, lease, aliasOwner,
 * height), answered with only what the execution needs of it.
 */
export interface WasmStateReads {
  /** The bytecode of a WASM contract; undefined for none or a Docker one. */
  contractBytecode(contractId: Uint8Array): Uint8Array | undefined;
  contractData(contractId: Uint8Array, key: string): DataEntry | undefined;
  balance(holder: Uint8Array, assetId: Uint8Array | null): bigint;
  assetExists(assetId: Uint8Array): boolean;
  leaseExists(leaseId: Uint8Array): boolean;
  aliasOwner(name: string): Uint8Array | undefined;
  height(): number;
}

/** The executable transaction as the execution sees it. */
export interface WasmExecutionTx {
  readonly id: Uint8Array;
  readonly idBase58: string;
  readonly senderPublicKey: Uint8Array;
  /** The sender's address bytes. */
  readonly sender: Uint8Array;
  /** The payments attached to it. */
  readonly payments: readonly ContractTransferIn[];
}

type Holder = { readonly kind: 'account'; readonly address: Address } | { readonly kind: 'contract'; readonly contractId: Uint8Array };

interface Payment {
  readonly assetId: Uint8Array | null;
  readonly recipient: Uint8Array;
  readonly amount: bigint;
}

export class WasmService {
  /** (contract, key) → the entry read or set, and whether it was set. */
  private readonly data = new Map<string, { contractId: Uint8Array; entry: DataEntry; set: boolean }>();
  private readonly operations = new Map<string, { contractId: Uint8Array; ops: ContractAssetOperation[] }>();
  private readonly assetNonce = new Map<string, number>();
  private readonly leaseNonce = new Map<string, number>();
  private readonly balances = new Map<string, bigint>();
  /** recipient contract → payment number → (payer contract, payments). */
  private readonly payments = new Map<string, Map<number, { payer: Uint8Array; list: Payment[] }>>();
  private readonly hasAttachedPayments: boolean;

  constructor(
    readonly protocol: Protocol,
    private readonly reads: WasmStateReads,
    private readonly tx: WasmExecutionTx,
    private readonly contractId: Uint8Array,
    /** The last block's timestamp (WE's lastBlockTimestamp). */
    private readonly blockTimestamp: bigint,
  ) {
    const attached = tx.payments;
    this.hasAttachedPayments = attached.length > 0;
    if (attached.length > 0) {
      const sender = tx.sender;
      const list = attached.map((p) => {
        const from = this.balanceOf({ kind: 'account', address: new Address(sender) }, p.assetId);
        if (from - p.amount < 0n) throw new WevmAbort(INVALID_TRANSFER, `Balance ${from} is less then expected send amount`);
        this.setBalance({ kind: 'account', address: new Address(sender) }, p.assetId, from - p.amount);
        const to = this.balanceOf({ kind: 'contract', contractId }, p.assetId);
        this.setBalance({ kind: 'contract', contractId }, p.assetId, to + p.amount);
        return { assetId: p.assetId, recipient: contractId, amount: p.amount };
      });
      this.payments.set(hex(contractId), new Map([[0, { payer: contractId, list }]]));
    }
  }

  // --- balances --------------------------------------------------------------

  private balanceKey(h: Holder, assetId: Uint8Array | null): string {
    return `${h.kind === 'account' ? 'a' + hex(h.address.bytes) : 'c' + hex(h.contractId)}|${assetId === null ? '' : hex(assetId)}`;
  }

  private balanceOf(h: Holder, assetId: Uint8Array | null): bigint {
    const cached = this.balances.get(this.balanceKey(h, assetId));
    if (cached !== undefined) return cached;
    return this.reads.balance(h.kind === 'account' ? h.address.bytes : h.contractId, assetId);
  }

  private setBalance(h: Holder, assetId: Uint8Array | null, value: bigint): void {
    this.balances.set(this.balanceKey(h, assetId), value);
  }

  private withdraw(contractId: Uint8Array, assetId: Uint8Array | null, amount: bigint): void {
    const h: Holder = { kind: 'contract', contractId };
    const next = this.balanceOf(h, assetId) - amount;
    if (next < 0n) {
      throw new WevmAbort(
        INVALID_TRANSFER,
        `Contract ${encodeBase58(contractId)} reached negative balance ${next} for asset ${assetId === null ? 'None' : `Some(${encodeBase58(assetId)})`}`,
      );
    }
    this.setBalance(h, assetId, next);
  }

  /** WE's getRecipient: `0 ‖ address-or-alias bytes` (account) or `1 ‖ contract id`. */
  private holderOf(bytes: Uint8Array): Holder {
    if (bytes[0] === 0) {
      const rest = bytes.subarray(1);
      try {
        if (rest[0] === 1) return { kind: 'account', address: this.protocol.addresses.addressFromBytes(rest.subarray(0, 26)) };
        if (rest[0] === 2) {
          const r = new ByteReader(rest, 2);
          const alias = this.protocol.addresses.alias(utf8(r.shortBytes('alias')));
          const owner = this.reads.aliasOwner(alias.name);
          if (owner === undefined) throw new WevmAbort(INVALID_ARGUMENT, `could not resolve alias ${alias.toString()}`);
          return { kind: 'account', address: new Address(owner) };
        }
      } catch (e) {
        if (e instanceof WevmAbort) throw e;
      }
      throw new WevmAbort(INVALID_ARGUMENT, 'wrong addressOrAlias bytes');
    }
    if (bytes[0] === 1) return { kind: 'contract', contractId: bytes.slice(1, ID_LENGTH + 1) };
    throw new WevmAbort(INVALID_ARGUMENT, 'wrong asset holder bytes');
  }

  private addOperation(contractId: Uint8Array, op: ContractAssetOperation): void {
    const key = hex(contractId);
    let e = this.operations.get(key);
    if (e === undefined) {
      e = { contractId, ops: [] };
      this.operations.set(key, e);
    }
    e.ops.push(op);
  }

  // --- the callbacks -----------------------------------------------------------

  getChainId(): number {
    return this.protocol.chainId;
  }

  getBytecode(contractId: Uint8Array): Uint8Array {
    const bytecode = this.reads.contractBytecode(contractId);
    if (bytecode === undefined) throw new WevmAbort(BYTECODE_NOT_FOUND, `bytecode for ${encodeBase58(contractId)} is missing`);
    return bytecode;
  }

  getStorage(contractId: Uint8Array, key: Uint8Array): DataEntry {
    const keyText = utf8(key);
    const id = `${hex(contractId)}|${keyText}`;
    const known = this.data.get(id);
    if (known !== undefined) return known.entry;
    const entry = this.reads.contractData(contractId, keyText);
    if (entry === undefined) throw new WevmAbort(DATA_IS_MISSING, `data entry of contract ${encodeBase58(contractId)} (${keyText}) is missing`);
    this.data.set(id, { contractId, entry, set: false });
    return entry;
  }

  /** `value`: a contract data entry's bytes (key included). */
  setStorage(contractId: Uint8Array, value: Uint8Array): void {
    const entry = CONTRACT_DATA_ENTRY.read(new ByteReader(value), this.protocol, 'value');
    this.data.set(`${hex(contractId)}|${entry.key}`, { contractId, entry, set: true });
  }

  getBalance(assetId: Uint8Array, holder: Uint8Array): bigint {
    return this.balanceOf(this.holderOf(holder), assetId.length === 0 ? null : assetId);
  }

  transfer(contractId: Uint8Array, assetIdBytes: Uint8Array, recipient: Uint8Array, amount: bigint): void {
    if (amount < 0n) throw new WevmAbort(INVALID_TRANSFER, `cant transfer negative amount ${amount}`);
    const assetId = assetIdBytes.length === 0 ? null : assetIdBytes;
    const h = this.holderOf(recipient);
    this.setBalance(h, assetId, this.balanceOf(h, assetId) + amount);
    this.addOperation(
      contractId,
      h.kind === 'account'
        ? { operationType: 'transfer', assetId, recipient: h.address, amount }
        : { operationType: 'contract-payment', assetId, recipient: h.contractId, amount },
    );
  }

  /** WE's nonce loop: fastHash(txId ‖ nonce), nonce from 1, skipping ids already in state. */
  private nextId(nonces: Map<string, number>, contractId: Uint8Array, exists: (id: Uint8Array) => boolean, what: string): { id: Uint8Array; nonce: number } {
    let nonce = nonces.get(hex(contractId)) ?? 1;
    let id: Uint8Array;
    do {
      const input = new Uint8Array(this.tx.id.length + 1);
      input.set(this.tx.id);
      input[this.tx.id.length] = nonce & 0xff;
      id = this.protocol.crypto.fastHash(input);
      if (nonce === 127) throw new WevmAbort(INVALID_TRANSFER, `${what} overflow for tx ${this.tx.idBase58}`);
      nonce++;
    } while (exists(id));
    nonces.set(hex(contractId), nonce);
    return { id, nonce: nonce - 1 };
  }

  issue(contractId: Uint8Array, name: Uint8Array, description: Uint8Array, quantity: bigint, decimals: bigint, isReissuable: boolean): Uint8Array {
    if (quantity < 0n || decimals < 0n)
      throw new WevmAbort(INVALID_TRANSFER, `unexpected issue quantity ${quantity} and decimals ${decimals} for tx ${this.tx.idBase58}`);
    const { id, nonce } = this.nextId(this.assetNonce, contractId, (x) => this.reads.assetExists(x), 'asset id');
    this.addOperation(contractId, {
      operationType: 'issue',
      assetId: id,
      name: utf8(name),
      description: utf8(description),
      quantity,
      decimals: Number(BigInt.asIntN(8, decimals)),
      isReissuable,
      nonce,
    });
    this.setBalance({ kind: 'contract', contractId }, id, quantity);
    return id;
  }

  burn(contractId: Uint8Array, assetIdBytes: Uint8Array, amount: bigint): void {
    if (assetIdBytes.length === 0) throw new WevmAbort(INVALID_TRANSFER, 'cant burn system token');
    if (amount < 0n) throw new WevmAbort(INVALID_TRANSFER, `cant burn negative amount ${amount}`);
    this.addOperation(contractId, { operationType: 'burn', assetId: assetIdBytes, amount });
    this.withdraw(contractId, assetIdBytes, amount);
  }

  reissue(contractId: Uint8Array, assetIdBytes: Uint8Array, amount: bigint, isReissuable: boolean): void {
    if (amount <= 0n) throw new WevmAbort(INVALID_TRANSFER, `can't reissue ${amount} amount asset`);
    if (assetIdBytes.length === 0) throw new WevmAbort(INVALID_ARGUMENT, `incorrect assetId ${utf8(assetIdBytes)}`);
    this.addOperation(contractId, { operationType: 'reissue', assetId: assetIdBytes, quantity: amount, isReissuable });
  }

  lease(contractId: Uint8Array, recipient: Uint8Array, amount: bigint): Uint8Array {
    if (amount < 0n) throw new WevmAbort(INVALID_TRANSFER, `cant lease negative amount ${amount}`);
    const h = this.holderOf(recipient);
    const { id, nonce } = this.nextId(this.leaseNonce, contractId, (x) => this.reads.leaseExists(x), 'leaseId');
    if (h.kind === 'contract') throw new WevmAbort(LEASE_TO_CONTRACT, 'lease to contract is not supported yet');
    this.addOperation(contractId, { operationType: 'lease', leaseId: id, nonce, recipient: h.address as Recipient, amount });
    return id;
  }

  cancelLease(contractId: Uint8Array, leaseId: Uint8Array): void {
    this.addOperation(contractId, { operationType: 'cancel-lease', leaseId });
  }

  getBlockTimestamp(): bigint {
    return this.blockTimestamp;
  }

  getBlockHeight(): bigint {
    return BigInt(this.reads.height());
  }

  /** `tx(field)`: "txId" or "sender" (the sender's public key). */
  txField(field: Uint8Array): Uint8Array {
    const name = utf8(field);
    if (name === 'txId') return this.tx.id;
    if (name === 'sender') return this.tx.senderPublicKey;
    throw new Error(`scala.MatchError: ${name} (of class java.lang.String)`);
  }

  private paymentsOf(paymentId: Uint8Array): Payment[] {
    const cid = paymentId.subarray(0, ID_LENGTH);
    const num = Number(BigInt.asIntN(32, new DataView(paymentId.buffer, paymentId.byteOffset + ID_LENGTH, 8).getBigInt64(0)));
    const byNum = this.payments.get(hex(cid));
    if (byNum === undefined) throw new WevmAbort(INVALID_TRANSFER, `payments for contract ${encodeBase58(cid)} not found`);
    const p = byNum.get(num);
    if (p === undefined) throw new WevmAbort(INVALID_TRANSFER, `${num} not found in payments for contract ${encodeBase58(cid)}`);
    return p.list;
  }

  getTxPayments(paymentId: Uint8Array): bigint {
    return BigInt(this.paymentsOf(paymentId).length);
  }

  getTxPaymentAssetId(paymentId: Uint8Array, number: bigint): Uint8Array {
    const list = this.paymentsOf(paymentId);
    if (number >= BigInt(list.length)) throw new WevmAbort(INVALID_TRANSFER, `${number} exceeds ${list.length} for payment list`);
    return list[Number(number)]!.assetId ?? new Uint8Array(0);
  }

  getTxPaymentAmount(paymentId: Uint8Array, number: bigint): bigint {
    const list = this.paymentsOf(paymentId);
    if (number >= BigInt(list.length)) throw new WevmAbort(INVALID_TRANSFER, `${number} exceeds ${list.length} for payment list`);
    return list[Number(number)]!.amount;
  }

  /** Payments a contract attaches to a call: `u16 count ‖ (0 | 1 ‖ asset id) ‖ i64 amount`*. */
  addPayments(contractId: Uint8Array, paymentId: Uint8Array, bytes: Uint8Array): void {
    if (bytes.length <= 2) return;
    const recipient = paymentId.slice(0, ID_LENGTH);
    const num = Number(BigInt.asIntN(32, new DataView(paymentId.buffer, paymentId.byteOffset + ID_LENGTH, 8).getBigInt64(0)));
    const count = (bytes[0]! << 8) | bytes[1]!;
    let pos = 2;
    const list: Payment[] = [];
    for (let i = 0; i < count; i++) {
      let assetId: Uint8Array | null = null;
      if (bytes[pos] === 1) {
        assetId = bytes.slice(pos + 1, pos + 1 + ID_LENGTH);
        pos += 1 + ID_LENGTH;
      } else if (bytes[pos] === 0) pos += 1;
      else throw new WevmAbort(INVALID_ARGUMENT, `expecting 0 (assetId not defined) or 1 (assetId is defined). But got ${bytes[pos]}`);
      if (pos + 8 > bytes.length) throw new WevmAbort(INVALID_ARGUMENT, 'payments are cut short');
      const amount = new DataView(bytes.buffer, bytes.byteOffset + pos, 8).getBigInt64(0);
      if (amount < 0n) throw new WevmAbort(INVALID_TRANSFER, `amount ${amount} < 0`);
      pos += 8;
      list.push({ assetId, recipient, amount });
    }
    for (const t of list) {
      const h: Holder = { kind: 'contract', contractId: t.recipient };
      this.setBalance(h, t.assetId, this.balanceOf(h, t.assetId) + t.amount);
      this.withdraw(contractId, t.assetId, t.amount);
    }
    let byNum = this.payments.get(hex(recipient));
    if (byNum === undefined) {
      byNum = new Map();
      this.payments.set(hex(recipient), byNum);
    }
    byNum.set(num, { payer: contractId, list });
  }

  fastHash(bytes: Uint8Array): Uint8Array {
    return this.protocol.crypto.fastHash(bytes);
  }

  secureHash(bytes: Uint8Array): Uint8Array {
    return this.protocol.crypto.secureHash(bytes);
  }

  sigVerify(message: Uint8Array, signature: Uint8Array, publicKey: Uint8Array): boolean {
    return this.protocol.crypto.verify(publicKey, message, signature);
  }

  /**
   * WE's getContractExecution: the entries each contract set (by key), and per contract the
   * payments it made to other contracts followed by its asset operations. The payments
   * attached to the transaction itself are left out (the transaction carries them).
   */
  execution(): { results: ContractResults[]; assetOperations: ContractOperations[] } {
    const results = new Map<string, { contractId: Uint8Array; entries: DataEntry[] }>();
    for (const d of this.data.values()) {
      if (!d.set) continue;
      const key = hex(d.contractId);
      let r = results.get(key);
      if (r === undefined) {
        r = { contractId: d.contractId, entries: [] };
        results.set(key, r);
      }
      r.entries.push(d.entry);
    }
    if (this.hasAttachedPayments) this.payments.get(hex(this.contractId))?.delete(0);
    const paymentsByPayer = new Map<string, { contractId: Uint8Array; ops: ContractAssetOperation[] }>();
    for (const byNum of this.payments.values()) {
      for (const { payer, list } of byNum.values()) {
        const key = hex(payer);
        let e = paymentsByPayer.get(key);
        if (e === undefined) {
          e = { contractId: payer, ops: [] };
          paymentsByPayer.set(key, e);
        }
        for (const p of list) e.ops.push({ operationType: 'contract-payment', assetId: p.assetId, recipient: p.recipient, amount: p.amount });
      }
    }
    const ids = new Map<string, Uint8Array>();
    for (const [k, v] of paymentsByPayer) ids.set(k, v.contractId);
    for (const [k, v] of this.operations) ids.set(k, v.contractId);
    const assetOperations: ContractOperations[] = [...ids].map(([k, contractId]) => ({
      contractId,
      operations: [...(paymentsByPayer.get(k)?.ops ?? []), ...(this.operations.get(k)?.ops ?? [])],
    }));
    return {
      results: [...results.values()].map((r) => ({
        contractId: r.contractId,
        results: r.entries.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
      })),
      assetOperations,
    };
  }
}
