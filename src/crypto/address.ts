/**
 * Addresses, aliases and recipients of one network (chain id + crypto suite).
 *
 * Address (26 bytes): 0x01 ‖ chainId ‖ secureHash(publicKey)[0..20) ‖ checksum(4),
 * checksum = secureHash(first 22 bytes)[0..4). Alias: `alias:<chainChar>:<name>`,
 * bytes 0x02 ‖ chainId ‖ u16 length ‖ UTF-8 name. Error kinds and messages follow
 * WE's Address/Alias/AddressOrAlias.
 */
import { base58Length, bytesKey, decodeBase58, encodeBase58, EncodingError, equalBytes } from './encoding.js';
import type { CryptoSuite } from './suite.js';
import { genericError, invalidAddress, invalidPublicKey } from '../errors/catalogue.js';

export const ADDRESS_VERSION = 1;
export const ALIAS_VERSION = 2;
export const ADDRESS_LENGTH = 26;
export const ADDRESS_HASH_LENGTH = 20;
export const ADDRESS_CHECKSUM_LENGTH = 4;
export const ADDRESS_STRING_LENGTH = base58Length(ADDRESS_LENGTH);
export const ADDRESS_PREFIX = 'address:';
export const ALIAS_PREFIX = 'alias:';
export const ALIAS_MIN_LENGTH = 4;
export const ALIAS_MAX_LENGTH = 30;
export const ALIAS_ALPHABET = '-.0123456789@_abcdefghijklmnopqrstuvwxyz';

const ALIAS_CHAR = /^[-.0-9@_a-z]*$/;

export class Address {
  #text: string | undefined;
  constructor(readonly bytes: Uint8Array) {}

  get chainId(): number {
    return this.bytes[1]!;
  }

  /** Base58 form, as WE writes it in JSON. */
  toString(): string {
    return (this.#text ??= encodeBase58(this.bytes));
  }

  toJSON(): string {
    return this.toString();
  }

  equals(other: Address | Alias): boolean {
    return other instanceof Address && equalBytes(this.bytes, other.bytes);
  }
}

export class Alias {
  private encoded: Uint8Array | undefined;
  constructor(
    readonly chainId: number,
    readonly name: string,
  ) {}

  /** 0x02 ‖ chainId ‖ u16 length ‖ UTF-8 name. */
  get bytes(): Uint8Array {
    if (this.encoded === undefined) {
      const name = Buffer.from(this.name, 'utf8');
      const out = new Uint8Array(4 + name.length);
      out[0] = ALIAS_VERSION;
      out[1] = this.chainId;
      out[2] = name.length >> 8;
      out[3] = name.length & 0xff;
      out.set(name, 4);
      this.encoded = out;
    }
    return this.encoded;
  }

  /** `alias:<chainChar>:<name>`. */
  toString(): string {
    return `${ALIAS_PREFIX}${String.fromCharCode(this.chainId)}:${this.name}`;
  }

  toJSON(): string {
    return this.toString();
  }

  equals(other: Address | Alias): boolean {
    return other instanceof Alias && other.chainId === this.chainId && other.name === this.name;
  }
}

export type Recipient = Address | Alias;

const publicKeyLengthMessage = (expected: number, found: number): string => `Bad public key bytes length: expected: '${expected}', found: '${found}'`;

/** How many addresses each of a scheme's memos keeps before it starts again empty. */
const MEMO_SIZE = 10_000;

/** Puts `address` in a memo, emptied first once full. */
function remember(memo: Map<string, Address>, key: string, address: Address): Address {
  if (memo.size >= MEMO_SIZE) memo.clear();
  memo.set(key, address);
  return address;
}

/** Addresses and aliases of one network. */
export class AddressScheme {
  private readonly byPublicKey = new Map<string, Address>();
  private readonly parsed = new Map<string, Address>();
  /** Valid addresses by their bytes (latin1): blocks and requests repeat recipients, each checked by a hash otherwise. */
  private readonly checked = new Map<string, Address>();

  constructor(
    readonly chainId: number,
    readonly crypto: CryptoSuite,
  ) {}

  get chainChar(): string {
    return String.fromCharCode(this.chainId);
  }

  fromPublicKey(publicKey: Uint8Array): Address {
    const id = bytesKey(publicKey);
    let address = this.byPublicKey.get(id);
    if (address === undefined) {
      const out = new Uint8Array(ADDRESS_LENGTH);
      out[0] = ADDRESS_VERSION;
      out[1] = this.chainId;
      out.set(this.crypto.secureHash(publicKey).subarray(0, ADDRESS_HASH_LENGTH), 2);
      out.set(this.checksum(out.subarray(0, 22)), 22);
      address = remember(this.byPublicKey, id, new Address(out));
    }
    return address;
  }

  private checksum(withoutChecksum: Uint8Array): Uint8Array {
    return this.crypto.secureHash(withoutChecksum).subarray(0, ADDRESS_CHECKSUM_LENGTH);
  }

  /** Validates version, network, length and checksum, in WE's order and with its messages (valid ones are remembered). */
  addressFromBytes(bytes: Uint8Array, field?: string): Address {
    if (bytes.length !== ADDRESS_LENGTH) return this.validatedAddressFromBytes(bytes, field);
    const id = bytesKey(bytes);
    return this.checked.get(id) ?? remember(this.checked, id, this.validatedAddressFromBytes(bytes, field));
  }

  private validatedAddressFromBytes(bytes: Uint8Array, field?: string): Address {
    if (bytes.length < 1) throw invalidAddress('head of empty list', field);
    if (bytes.length < 2) throw invalidAddress('next on empty iterator', field);
    const version = (bytes[0]! << 24) >> 24;
    if (version !== ADDRESS_VERSION) throw invalidAddress(`Unknown address version: ${version}`, field);
    const network = (bytes[1]! << 24) >> 24;
    if (network !== this.chainId) {
      throw invalidAddress(
        `Data from other network: expected: ${this.chainId}(${this.chainChar}), actual: ${network}(${String.fromCharCode(bytes[1]!)})`,
        field,
      );
    }
    if (bytes.length !== ADDRESS_LENGTH) {
      throw invalidAddress(`Wrong addressBytes length: expected: ${ADDRESS_LENGTH}, actual: ${bytes.length}`, field);
    }
    if (!equalBytes(bytes.subarray(22), this.checksum(bytes.subarray(0, 22)))) {
      throw invalidAddress(
        "Bad address checksum. Address is corrupted or generated using a different crypto (check 'node.crypto.type' config parameter).",
        field,
      );
    }
    return new Address(Uint8Array.from(bytes));
  }

  /** Base58 address with an optional `address:` prefix (valid ones are remembered: clients repeat them). */
  parseAddress(text: string, field?: string): Address {
    const known = this.parsed.get(text);
    if (known !== undefined) return known;
    return remember(this.parsed, text, this.parseAddressUncached(text, field));
  }

  private parseAddressUncached(text: string, field?: string): Address {
    const b58 = text.startsWith(ADDRESS_PREFIX) ? text.slice(ADDRESS_PREFIX.length) : text;
    if (b58.length > ADDRESS_STRING_LENGTH) {
      throw invalidAddress(`Wrong address string length: max=${ADDRESS_STRING_LENGTH}, actual: ${b58.length}`, field);
    }
    let bytes: Uint8Array;
    try {
      bytes = decodeBase58(b58);
    } catch (e) {
      throw invalidAddress(`Unable to decode base58: ${(e as EncodingError).message}`, field);
    }
    return this.addressFromBytes(bytes, field);
  }

  /** An alias of this network by bare name (WE's Alias.buildWithCurrentChainId). */
  alias(name: string, field?: string): Alias {
    return this.buildAlias(this.chainId, name, field);
  }

  private buildAlias(chainId: number, name: string, field?: string): Alias {
    if (name.length < ALIAS_MIN_LENGTH || name.length > ALIAS_MAX_LENGTH) {
      throw genericError(`Alias '${name}' length should be between ${ALIAS_MIN_LENGTH} and ${ALIAS_MAX_LENGTH}`, field);
    }
    if (!ALIAS_CHAR.test(name)) {
      throw genericError(`Alias should contain only following characters: ${ALIAS_ALPHABET}`, field);
    }
    if (chainId !== this.chainId) throw genericError("Alias network char doesn't match current scheme", field);
    return new Alias(chainId, name);
  }

  /** `alias:<chainChar>:<name>`. */
  parseAlias(text: string, field?: string): Alias {
    const patternInfo = "Alias string pattern is 'alias:<chain-id>:<address-alias>";
    if (!text.startsWith(ALIAS_PREFIX)) throw genericError(patternInfo, field);
    const rest = text.slice(ALIAS_PREFIX.length);
    if (rest.length < 2 || rest[1] !== ':') throw genericError(patternInfo, field);
    const chainCode = rest.charCodeAt(0);
    return this.buildAlias(chainCode > 0xff ? -1 : chainCode, rest.slice(2), field);
  }

  /** Alias bytes 0x02 ‖ chainId ‖ u16 ‖ name (WE's Alias.fromBytes). */
  aliasFromBytes(bytes: Uint8Array, field?: string): Alias {
    if (bytes[0] !== ALIAS_VERSION) throw genericError('Bad alias bytes', field);
    if (bytes.length < 4) throw genericError('Bad alias bytes', field);
    if (bytes[1] !== this.chainId) throw genericError("Alias network byte doesn't match current scheme", field);
    return this.buildAlias(bytes[1], Buffer.from(bytes.subarray(4)).toString('utf8'), field);
  }

  /** An address (optionally `address:`-prefixed) or `alias:<c>:<name>`. */
  parseRecipient(text: string, field?: string): Recipient {
    return text.startsWith(ALIAS_PREFIX) ? this.parseAlias(text, field) : this.parseAddress(text, field);
  }

  /** Public key from Base58, with WE's checks and messages (PublicKeyAccount.fromBase58String). */
  parsePublicKey(text: string, field?: string): Uint8Array {
    const maxLength = base58Length(this.crypto.publicKeyLength);
    const fail = (why: string): never => {
      throw invalidPublicKey(`Can't create public key from string '${text}': ${why}`, field);
    };
    if (text.length > maxLength) fail(`Bad public key string length: expected: '${maxLength}', found: '${text.length}'`);
    let bytes: Uint8Array = new Uint8Array(0);
    try {
      bytes = decodeBase58(text);
    } catch (e) {
      fail(`Unable to decode base58: ${(e as EncodingError).message}`);
    }
    if (bytes.length !== this.crypto.publicKeyLength) fail(publicKeyLengthMessage(this.crypto.publicKeyLength, bytes.length));
    return bytes;
  }

  /** Public key bytes of the right length (PublicKeyAccount.fromBytes). */
  publicKeyFromBytes(bytes: Uint8Array, field?: string): Uint8Array {
    if (bytes.length !== this.crypto.publicKeyLength) {
      throw invalidPublicKey(publicKeyLengthMessage(this.crypto.publicKeyLength, bytes.length), field);
    }
    return bytes;
  }
}
