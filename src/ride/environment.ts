/**
 * What a script reads from the chain. `RideEnvironment` is the state interface the chain
 * layer implements over the state a transaction is validated on (pool and block
 * validation alike) — each method maps to one StateView read (chain/scripts/verifier.ts). `WavesEnvironment` adds WE's semantics on top (lang `Environment` as
 * we-node's WavesEnvironment implements it): address and alias checks, their messages,
 * unknown keys and aliases.
 */
import type { AddressScheme } from '../crypto/address.js';
import type { CaseObj } from './values.js';
import { UncaughtError } from './errors.js';
import { WeError } from '../errors/catalogue.js';

/** State reads of a script, at the state the transaction is validated on. */
export interface RideEnvironment {
  /** `height`: the height of the block the transaction is validated for (WE's currentBlockHeight). */
  height(): number;
  /** Balance of an address (26 bytes) in WEST (null) or an asset (StateView.balance). */
  balance(address: Uint8Array, assetId: Uint8Array | null): bigint;
  /** Address bytes owning an alias name, if the alias exists (StateView.aliasOwner). */
  aliasOwner(name: string): Uint8Array | undefined;
  /** A data entry of an account (StateView.dataEntry). */
  dataEntry(address: Uint8Array, key: string): StoredDataEntry | undefined;
  /** Height of a confirmed transaction (StateView.transactionHeight). */
  transactionHeight(id: Uint8Array): number | undefined;
  /** A confirmed transaction by id (the store's transaction index), bound as scripts see a transaction. */
  transactionById(id: Uint8Array): CaseObj | undefined;
}

/** What a script's `transactionById`, `getX`, balances and aliases see (lang Recipient). */
export type Recipient = { readonly address: Uint8Array } | { readonly alias: string };

export type DataKind = 'integer' | 'boolean' | 'binary' | 'string';

/** An account's data entry as the state keeps it (the protocol's DataEntry has this shape). */
export type StoredDataEntry =
  | { readonly key: string; readonly type: 'integer'; readonly value: bigint }
  | { readonly key: string; readonly type: 'boolean'; readonly value: boolean }
  | { readonly key: string; readonly type: 'binary'; readonly value: Uint8Array }
  | { readonly key: string; readonly type: 'string'; readonly value: string };

/** The reason of a crypto error, as Scala renders the case class: `InvalidAddress(<reason>)`. */
function cryptoErrorText(e: WeError): string {
  if (e.kind === 'InvalidAddress') return `InvalidAddress(${e.message.replace(/^invalid address: /, '')})`;
  return `${e.kind}(${e.message})`;
}

/** we-node's WavesEnvironment over a RideEnvironment. */
export class WavesEnvironment {
  constructor(
    readonly state: RideEnvironment,
    readonly addresses: AddressScheme,
  ) {}

  get chainId(): number {
    return this.addresses.chainId;
  }

  private alias(name: string): { ok: true } | { error: string } {
    try {
      this.addresses.alias(name);
      return { ok: true };
    } catch (e) {
      if (e instanceof WeError) return { error: cryptoErrorText(e) };
      throw e;
    }
  }

  private validAddress(bytes: Uint8Array): boolean {
    try {
      this.addresses.addressFromBytes(bytes);
      return true;
    } catch (e) {
      if (e instanceof WeError) return false;
      throw e;
    }
  }

  /** Environment.data: None (unit) for a bad address, an unknown or malformed alias, a missing key or another type. */
  data(recipient: Recipient, key: string, kind: DataKind): StoredDataEntry['value'] | undefined {
    let address: Uint8Array | undefined;
    if ('address' in recipient) {
      if (!this.validAddress(recipient.address)) return undefined;
      address = recipient.address;
    } else {
      if ('error' in this.alias(recipient.alias)) return undefined;
      address = this.state.aliasOwner(recipient.alias);
      if (address === undefined) return undefined;
    }
    const entry = this.state.dataEntry(address, key);
    return entry !== undefined && entry.type === kind ? entry.value : undefined;
  }

  /** Environment.resolveAlias: a malformed name is an uncaught error in WE (`explicitGet`). */
  resolveAlias(name: string): { address: Uint8Array } | { error: string } {
    const checked = this.alias(name);
    if ('error' in checked) throw new UncaughtError(`java.lang.Exception: ${checked.error}`);
    const owner = this.state.aliasOwner(name);
    if (owner === undefined) return { error: `AliasDoesNotExist(alias:${String.fromCharCode(this.chainId)}:${name})` };
    return { address: owner };
  }

  /** Environment.accountBalanceOf. */
  accountBalanceOf(recipient: Recipient, assetId: Uint8Array | null): { balance: bigint } | { error: string } {
    let address: Uint8Array;
    if ('address' in recipient) {
      const bytes = recipient.address;
      if (bytes.length === 0) throw new UncaughtError('java.lang.ArrayIndexOutOfBoundsException: Index 0 out of bounds for length 0');
      const version = (bytes[0]! << 24) >> 24;
      if (version === 1) {
        // AddressOrAlias.fromBytes reads the 26 bytes from the start and ignores the rest.
        const head = bytes.subarray(0, 26);
        try {
          address = this.addresses.addressFromBytes(head).bytes;
        } catch (e) {
          if (e instanceof WeError) return { error: cryptoErrorText(e) };
          throw e;
        }
      } else if (version === 2) {
        let name: string;
        try {
          name = this.addresses.aliasFromBytes(bytes).name;
        } catch (e) {
          if (e instanceof WeError) return { error: cryptoErrorText(e) };
          throw e;
        }
        const owner = this.state.aliasOwner(name);
        if (owner === undefined) return { error: `AliasDoesNotExist(alias:${String.fromCharCode(this.chainId)}:${name})` };
        address = owner;
      } else {
        return { error: `InvalidAddress(Unknown address/alias version ${version})` };
      }
    } else {
      const checked = this.alias(recipient.alias);
      if ('error' in checked) return checked;
      const owner = this.state.aliasOwner(recipient.alias);
      if (owner === undefined) return { error: `AliasDoesNotExist(alias:${String.fromCharCode(this.chainId)}:${recipient.alias})` };
      address = owner;
    }
    return { balance: this.state.balance(address, assetId) };
  }
}
