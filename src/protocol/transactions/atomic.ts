/**
 * Atomic (120, V1): a container of signed transactions that are mined all together or not
 * at all.
 *
 * Byte views:
 *  - body / full: sender ‖ OPTION(miner public key) ‖ u16 count ‖ (i32 length ‖ inner full
 *    bytes)* ‖ timestamp (full bytes: 0x00 ‖ body ‖ proofs);
 *  - proof source (what `proofs[0]` signs, and the id's input): sender ‖ u16 count ‖ inner
 *    ids ‖ timestamp — no miner at all, and each inner transaction replaced by its 32-byte id
 *    (for an inner ExecutedContract: the id of the executable transaction it wraps, so the
 *    sender's signature survives mining).
 * There is no fee anywhere (the JSON shows 0).
 *
 * A miner puts the atomic into a block by replacing each executable inner transaction with
 * its ExecutedContract, setting `miner` and appending its proof (`proofs[1]`), which signs
 * the proof source ‖ the ids of the inner ExecutedContract transactions (`mineAtomic`).
 *
 * Request JSON: `transactions` holds the signed JSON of each inner transaction (clients add
 * an `id`, which is ignored: every id is recomputed); `miner` is never read from requests.
 */
import type { Address } from '../../crypto/address.js';
import { ByteWriter } from '../bytes.js';
import { sender, timestamp } from './common.js';
import { isExecutableContract } from './contracts-executable.js';
import { ExecutedContract } from './contracts-executed.js';
import { jsonObject, option, PUBLIC_KEY, shortList, type AtomicBadge, type FieldType } from './fields.js';
import { defineTx, field, PROOFS, Transaction, type DataOf, type TransactionProtocol } from './schema.js';
import { DecodeError, genericError, insideField } from '../../errors/catalogue.js';

export const ATOMIC_TYPE = 120;

/**
 * The versions that carry an `atomicBadge` field (WE's AtomicInnerTransaction), by type:
 * [first, last] version.
 */
const BADGE_VERSIONS: ReadonlyMap<number, readonly [number, number]> = new Map([
  [3, [3, 3]], // Issue
  [4, [3, 3]], // Transfer
  [5, [3, 3]], // Reissue
  [6, [3, 3]], // Burn
  [8, [3, 3]], // Lease
  [9, [3, 3]], // LeaseCancel
  [10, [4, 4]], // CreateAlias
  [11, [3, 3]], // MassTransfer
  [12, [3, 3]], // Data
  [14, [2, 2]], // SponsorFee
  [102, [2, 2]], // Permit
  [103, [3, 7]], // CreateContract
  [104, [4, 7]], // CallContract
  [106, [3, 3]], // DisableContract
  [107, [3, 6]], // UpdateContract
  [111, [2, 2]], // RegisterNode
  [112, [3, 3]], // CreatePolicy
  [113, [3, 3]], // UpdatePolicy
  [114, [3, 3]], // PolicyDataHash
]);

/**
 * Whether a (type, version) has an atomic badge. The state layer refuses a transaction that
 * carries a badge outside an atomic container.
 */
export function supportsAtomicBadge(type: number, version: number): boolean {
  const range = BADGE_VERSIONS.get(type);
  return range !== undefined && version >= range[0] && version <= range[1];
}

/** Whether a (type, version) may sit inside an atomic: badge-carrying versions, and ExecutedContract (once mined). */
export function canBeInAtomic(type: number, version: number): boolean {
  return supportsAtomicBadge(type, version) || (type === ExecutedContract.type && version >= 1 && version <= 5);
}

/** The atomic badge of a transaction (null: none; undefined: its version has no badge field). */
export function atomicBadgeOf(tx: Transaction): AtomicBadge | null | undefined {
  return (tx.data as Readonly<Record<string, unknown>>)['atomicBadge'] as AtomicBadge | null | undefined;
}

/** The executable transaction an ExecutedContract wraps (its `tx` field). */
export function executedInnerTx(tx: Transaction): Transaction | undefined {
  return ExecutedContract.is(tx) ? tx.data.tx : undefined;
}

/** The 32 bytes an inner transaction contributes to the atomic's proof source. */
function proofSourceId(tx: Transaction): Uint8Array {
  return ExecutedContract.is(tx) ? tx.data.tx.id : tx.id;
}

const NOT_ATOMIC_CAPABLE = 'Transaction does not support atomic containers';

/**
 * ATOMIC_INNER_TRANSACTION: i32 length ‖ full bytes; JSON is the inner transaction's signed
 * request (in) or the node's transaction JSON (out).
 */
export const ATOMIC_INNER_TRANSACTION: FieldType<Transaction, TransactionProtocol> = {
  kind: 'ATOMIC_INNER_TRANSACTION',
  write: (w, v) => void w.longBytes(v.bytes),
  read: (r, p, f) => {
    const length = r.i32(f);
    if (length < 0 || length > r.remaining) {
      throw new DecodeError(`Incorrect transaction: ${f} claims ${length} bytes, ${r.remaining} are left`, f);
    }
    // Look at the header first: only transactions that can be inside an atomic are parsed
    // (WE's parser fails the cast to AtomicInnerTransaction); this also keeps nesting flat.
    const b = r.buf;
    const at = r.pos;
    if (length >= 3 && b[at] === 0 && !canBeInAtomic(b[at + 1]!, b[at + 2]!)) {
      throw new DecodeError(`Incorrect transaction: type ${b[at + 1]} version ${b[at + 2]} cannot be inside an atomic transaction`, f);
    }
    if (length >= 1 && b[at] !== 0) {
      throw new DecodeError(`Incorrect transaction: type ${(b[at]! << 24) >> 24} (old encoding) cannot be inside an atomic transaction`, f);
    }
    return insideField(f, () => p.readTransaction(r, length));
  },
  fromJson: (j, p, path) => {
    const body = jsonObject(j, path);
    // A nested atomic would never be accepted; refuse it before reading it (no recursion).
    if (body['type'] === ATOMIC_TYPE) throw genericError(NOT_ATOMIC_CAPABLE, path);
    const tx = insideField(path, () => p.transactionFromJson(body));
    if (!canBeInAtomic(tx.type, tx.version)) throw genericError(NOT_ATOMIC_CAPABLE, path);
    return tx;
  },
  toJson: (v) => v.toJson(),
};

const atomicFields = [
  sender,
  // Set by the miner; requests never carry it.
  field('miner', option(PUBLIC_KEY), { fromJson: () => null }),
  field('transactions', shortList(ATOMIC_INNER_TRANSACTION)),
  timestamp,
  PROOFS,
] as const;

export type AtomicData = DataOf<typeof atomicFields>;
export type AtomicTransaction = Transaction<AtomicData>;

function proofSource(tx: AtomicTransaction): Uint8Array {
  const inner = tx.data.transactions;
  const w = new ByteWriter(2 + tx.data.senderPublicKey.length + 2 + 32 * inner.length + 8);
  w.u8(ATOMIC_TYPE).u8(tx.version).bytes(tx.data.senderPublicKey).u16(inner.length);
  for (const t of inner) w.bytes(proofSourceId(t));
  w.i64(tx.data.timestamp);
  return w.result();
}

const sameAddress = (a: Address, b: Address): boolean => a.equals(b);

/** WE's AtomicValidation.validateInnerTransactions, in WE's order and with WE's messages. */
function validateInner(tx: AtomicTransaction): void {
  const txs = tx.data.transactions;
  const fail = (message: string): never => {
    throw genericError(message, 'transactions');
  };
  if (txs.length <= 1) fail('Atomic transaction must contain more than 1 transaction');
  const ids = new Set(txs.map((t) => t.idBase58));
  if (ids.size !== txs.length) fail('Atomic transaction cannot contain duplicated transactions');
  if (txs.some(isAtomic)) fail('Atomic transaction cannot contain another atomic transaction');
  const atomicSender = tx.protocol.addresses.fromPublicKey(tx.data.senderPublicKey);
  for (const t of txs) {
    if (ExecutedContract.is(t)) continue;
    const badge = atomicBadgeOf(t);
    if (badge === undefined || badge === null) {
      fail(`To use transaction '${t.idBase58}' inside atomic container, the transaction must have atomic badge`);
    } else if (badge.trustedSender !== null) {
      if (!sameAddress(badge.trustedSender, atomicSender)) {
        fail(
          `The trusted address '${badge.trustedSender.toString()}' of the transaction '${t.idBase58}' does not match the atomic sender '${atomicSender.toString()}'`,
        );
      }
    } else {
      const innerSender = t.sender;
      if (innerSender === undefined || !sameAddress(innerSender, atomicSender)) {
        fail(
          `The sender address '${innerSender?.toString() ?? ''}' of the transaction '${t.idBase58}' does not match the atomic sender '${atomicSender.toString()}'`,
        );
      }
    }
  }
  if (tx.data.miner !== null) {
    if (txs.some(isExecutableContract)) fail('Mined atomic transaction cannot contain executable transactions');
  } else if (txs.some((t) => ExecutedContract.is(t))) {
    fail('Atomic transaction cannot contain executed transactions');
  }
}

export const Atomic = defineTx({
  type: ATOMIC_TYPE,
  name: 'Atomic',
  versions: [1],
  fields: atomicFields,
  proofSource,
  validate: validateInner,
});

export function isAtomic(tx: Transaction): tx is AtomicTransaction {
  return tx.type === ATOMIC_TYPE;
}

/** What the miner's proof (`proofs[1]`) signs: the proof source ‖ the ids of the inner ExecutedContract transactions. */
export function minerProofSource(tx: AtomicTransaction): Uint8Array {
  const executed = tx.data.transactions.filter((t) => ExecutedContract.is(t));
  const w = new ByteWriter(tx.proofSourceBytes.length + 32 * executed.length);
  w.bytes(tx.proofSourceBytes);
  for (const t of executed) w.bytes(t.id);
  return w.result();
}

/** True when the atomic is mined and its last proof is the miner's signature over `minerProofSource`. */
export function hasValidMinerProof(tx: AtomicTransaction): boolean {
  const miner = tx.data.miner;
  if (miner === null || tx.proofs.length < 2) return false;
  return tx.protocol.crypto.verify(miner, minerProofSource(tx), tx.proofs[tx.proofs.length - 1]!);
}

/**
 * The atomic as a miner puts it into a block (WE's AtomicUtils.addExecutedTxs + addMinerProof):
 * each executable inner transaction replaced by the ExecutedContract that wraps it, `miner`
 * set, and the miner's proof appended.
 */
export function mineAtomic(
  tx: AtomicTransaction,
  executed: readonly Transaction[],
  miner: { readonly publicKey: Uint8Array; readonly privateKey: Uint8Array },
): AtomicTransaction {
  const byWrappedId = new Map<string, Transaction>();
  for (const e of executed) {
    const wrapped = executedInnerTx(e);
    if (wrapped !== undefined) byWrappedId.set(wrapped.idBase58, e);
  }
  const transactions = tx.data.transactions.map((t) => {
    if (!isExecutableContract(t)) return t;
    const e = byWrappedId.get(t.idBase58);
    if (e === undefined) throw genericError(`No executed transaction found for id '${t.idBase58}' to generate signed atomic`);
    return e;
  });
  const p = tx.protocol;
  const unsigned = p.transaction(Atomic, tx.version, { ...tx.data, miner: miner.publicKey, transactions }, tx.proofs);
  const proof = p.crypto.sign(miner.privateKey, minerProofSource(unsigned));
  return p.transaction(Atomic, tx.version, unsigned.data, [...tx.proofs, proof]);
}

/** The reverse of `mineAtomic` (WE's AtomicUtils.rollbackExecutedTxs), for rollbacks. */
export function unmineAtomic(tx: AtomicTransaction): AtomicTransaction {
  const transactions = tx.data.transactions.map((t) => (ExecutedContract.is(t) ? t.data.tx : t));
  const proofs = tx.data.miner === null ? tx.proofs : tx.proofs.slice(0, -1);
  return tx.protocol.transaction(Atomic, tx.version, { ...tx.data, miner: null, transactions }, proofs);
}

export const codecs = [Atomic];
