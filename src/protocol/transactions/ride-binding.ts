/**
 * Transactions as a script sees them (we-core RealTransactionWrapper and lang
 * waves/Bindings; reference ride.md §4): what a family's RIDE binding — the case object WE
 * binds to `tx`, and returns from `transactionById` — is made of. Each family module binds
 * its own classes: Genesis, Transfer, Issue, Reissue, Burn, Lease, LeaseCancel, CreateAlias,
 * MassTransfer V1, SetScript, SetAssetScript V1, Exchange, SponsorFee V1, Data,
 * CreateContract, CallContract, DisableContract, UpdateContract. Every other class
 * (MassTransfer V2+, SponsorFee V2, permits, node registration, policies, atomics, executed
 * contracts, genesis permits) has no binding: WE fails with an uncaught error as soon as
 * `tx` is read.
 */
import { Alias, type Address } from '../../crypto/address.js';
import { CaseObj, RideList, unit, type Value } from '../../ride/values.js';
import { ADDRESS, ALIAS, type WavesTypes } from '../../ride/we-types.js';
import type { Transaction } from './schema.js';

/** A case object's own fields, in order. */
export type RideFields = Array<readonly [string, Value]>;

/** What a binding is made for: the case types of the script that reads it, and whether its `tx` carries proofs. */
export interface BindingContext {
  readonly types: WavesTypes;
  readonly proofs: boolean;
}

/** The binding of one transaction class, whose transactions are `T`: their case object, or undefined for a version WE binds to nothing. */
export type RideBinding<T extends Transaction> = (tx: T, ctx: BindingContext) => CaseObj | undefined;

/** An Option value: the bytes, or unit. */
export const option = (v: Uint8Array | null | undefined): Value => (v === null || v === undefined ? unit : v);

export const addressObject = (bytes: Uint8Array): CaseObj => CaseObj.of(ADDRESS, [['bytes', bytes]]);

export function recipientObject(r: Address | Alias): CaseObj {
  return r instanceof Alias ? CaseObj.of(ALIAS, [['alias', r.name]]) : addressObject(r.bytes);
}

/** Proofs as WE binds them: always 8, the missing ones empty. */
export const proofsList = (proofs: readonly Uint8Array[]): RideList =>
  new RideList([...proofs, ...Array.from({ length: Math.max(0, 8 - proofs.length) }, () => new Uint8Array(0))]);

function header(tx: Transaction): RideFields {
  return [
    ['id', tx.id],
    ['fee', tx.fee],
    ['timestamp', tx.timestamp],
    ['version', BigInt(tx.version)],
  ];
}

function proven(tx: Transaction, proofs: boolean): RideFields {
  const pk = tx.senderPublicKey!;
  const fields: RideFields = [
    ['sender', addressObject(tx.protocol.addresses.fromPublicKey(pk).bytes)],
    ['senderPublicKey', pk],
    ['bodyBytes', tx.bodyBytes],
    ...header(tx),
  ];
  if (proofs) fields.push(['proofs', proofsList(tx.proofs)]);
  return fields;
}

/** The case object of the class named `name`: its own fields, then the sender's, the body bytes, the header and (when the script's `tx` has them) the proofs. */
export function provenObject(tx: Transaction, ctx: BindingContext, name: string, own: RideFields): CaseObj {
  const type = ctx.types.byName.get(name);
  if (type === undefined) throw new Error(`no case type ${name}`);
  return CaseObj.of(type, [...own, ...proven(tx, ctx.proofs)]);
}

/** A genesis transaction's case object: its own fields, then the header alone (it has no sender and no proofs). */
export function genesisObject(tx: Transaction, ctx: BindingContext, own: RideFields): CaseObj {
  return CaseObj.of(ctx.types.genesis, [...own, ...header(tx)]);
}
