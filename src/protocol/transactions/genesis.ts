/**
 * Genesis transactions (we-core GenesisTransaction, GenesisPermitTransaction,
 * GenesisRegisterNodeTransaction): hand-written types outside the DSL. They have no
 * version byte, no sender and no proofs; fee is 0. Their id is a 64-byte pseudo-signature
 * `h ‖ h` where h = fastHash of a per-type byte string, which for two of the three types
 * is not the transaction's bytes:
 *
 * | type | bytes | hash input of h |
 * |---|---|---|
 * | 1 Genesis | 01 ‖ timestamp ‖ recipient(26) ‖ amount | 00 00 00 01 (type as a 4-byte int) ‖ timestamp ‖ recipient ‖ amount |
 * | 101 GenesisPermit | 65 ‖ target(26) ‖ role ‖ timestamp | 65 ‖ target ‖ timestamp ‖ role |
 * | 110 GenesisRegisterNode | 6E ‖ targetPublicKey ‖ timestamp | the bytes |
 *
 * Only the genesis block carries them; they cannot be broadcast (protocol.ts refuses).
 */
import type { Address } from '../../crypto/address.js';
import { concatBytes, encodeBase58 } from '../../crypto/encoding.js';
import { ByteReader, ByteWriter } from '../bytes.js';
import type { JsonObject } from '../json.js';
import type { ProtocolParams } from './fields.js';
import { ADDRESS, jsonLong, jsonString, PUBLIC_KEY } from './fields.js';
import { ROLES, roleFromByte, roleFromName, type RoleName } from './permissions.js';
import { genesisObject, recipientObject, type RideBinding } from './ride-binding.js';
import { Transaction, type TransactionProtocol, type TxCodec, type TypedTxCodec } from './schema.js';
import { DecodeError, genericError, invalidPublicKey, negativeAmount } from '../../errors/catalogue.js';

// ---------------------------------------------------------------------------
// Typed data

export interface GenesisData {
  readonly recipient: Address;
  readonly amount: bigint;
  readonly timestamp: bigint;
}

export interface GenesisPermitData {
  readonly target: Address;
  readonly role: RoleName;
  readonly timestamp: bigint;
}

export interface GenesisRegisterNodeData {
  readonly targetPublicKey: Uint8Array;
  readonly timestamp: bigint;
}

export type GenesisTransaction = Transaction<GenesisData>;
export type GenesisPermitTransaction = Transaction<GenesisPermitData>;
export type GenesisRegisterNodeTransaction = Transaction<GenesisRegisterNodeData>;

export const GENESIS_TYPE = 1;
export const GENESIS_PERMIT_TYPE = 101;
export const GENESIS_REGISTER_NODE_TYPE = 110;

const TIMESTAMP_LENGTH = 8;
const AMOUNT_LENGTH = 8;
const ADDRESS_LENGTH = 26;

// ---------------------------------------------------------------------------
// A codec for a type without version byte and proofs

interface GenesisCodecSpec<D extends object> {
  readonly type: number;
  readonly name: string;
  /** Bytes after the type byte (WE's BASE_LENGTH). */
  baseLength(p: ProtocolParams): number;
  writeTail(w: ByteWriter, data: D): void;
  readTail(r: ByteReader, p: ProtocolParams): D;
  /** What h hashes. */
  hashInput(data: D): Uint8Array;
  /** The keys after type, id, fee, timestamp, signature. */
  jsonFields(data: D, p: ProtocolParams): JsonObject;
  fromJson(body: JsonObject, p: ProtocolParams): D;
  validate(data: D, p: ProtocolParams): void;
}

function genesisCodec<D extends object>(spec: GenesisCodecSpec<D>): TypedTxCodec<Transaction<D>> {
  const dataOf = (tx: Transaction): D => tx.data as D;
  return {
    type: spec.type,
    name: spec.name,
    versions: [1],
    hasProofs: false,
    modernHeader: () => false,
    is: (tx): tx is Transaction<D> => tx.type === spec.type,

    bodyBytes(tx) {
      const w = new ByteWriter(80);
      w.u8(spec.type);
      spec.writeTail(w, dataOf(tx));
      return w.result();
    },

    proofSourceBytes(tx) {
      return tx.bodyBytes;
    },

    fullBytes(tx) {
      return tx.bodyBytes;
    },

    id(tx) {
      const h = tx.protocol.crypto.fastHash(spec.hashInput(dataOf(tx)));
      return concatBytes(h, h);
    },

    toJson(tx) {
      const id = tx.idBase58;
      return {
        type: spec.type,
        id,
        fee: 0n,
        timestamp: tx.timestamp,
        signature: id,
        ...spec.jsonFields(dataOf(tx), tx.protocol),
      };
    },

    read(r, p) {
      const head = r.u8('type');
      if (head !== spec.type) throw new DecodeError(`Expected transaction type ${spec.type}, got ${head}`, 'type');
      if (r.remaining < spec.baseLength(p)) throw new DecodeError('Data does not match base length', 'transaction');
      return { data: spec.readTail(r, p) as Record<string, unknown>, proofs: [] };
    },

    fromJson(body, p) {
      return spec.fromJson(body, p) as Record<string, unknown>;
    },

    validate(tx) {
      if (tx.proofs.length > 0) throw genericError(`${spec.name} transactions carry no proofs`, 'proofs');
      spec.validate(dataOf(tx), tx.protocol);
    },
  };
}

function checkAddress(a: Address, field: string): void {
  if (a.bytes.length !== ADDRESS_LENGTH) throw genericError(`Address of ${a.bytes.length} bytes, expected ${ADDRESS_LENGTH}`, field);
}

const i64 = (v: bigint): Uint8Array => new ByteWriter(8).i64(v).result();

// ---------------------------------------------------------------------------
// Type 1

export const Genesis = genesisCodec<GenesisData>({
  type: GENESIS_TYPE,
  name: 'Genesis',
  baseLength: () => TIMESTAMP_LENGTH + ADDRESS_LENGTH + AMOUNT_LENGTH,
  writeTail: (w, d) => void w.i64(d.timestamp).bytes(d.recipient.bytes).i64(d.amount),
  readTail: (r, p) => {
    const timestamp = r.i64('timestamp');
    const recipient = ADDRESS.read(r, p, 'recipient');
    const amount = r.i64('amount');
    return { recipient, amount, timestamp };
  },
  // we-core writes the type id as a 4-byte int here, unlike in the bytes.
  hashInput: (d) => concatBytes(Uint8Array.of(0, 0, 0, GENESIS_TYPE), i64(d.timestamp), d.recipient.bytes, i64(d.amount)),
  jsonFields: (d) => ({ recipient: d.recipient.toString(), amount: d.amount }),
  fromJson: (body, p) => ({
    recipient: ADDRESS.fromJson(body['recipient'], p, 'recipient'),
    amount: jsonLong(body['amount'], 'amount'),
    timestamp: jsonLong(body['timestamp'], 'timestamp'),
  }),
  validate: (d) => {
    checkAddress(d.recipient, 'recipient');
    if (d.amount < 0n) throw negativeAmount(d.amount, 'WEST', 'amount');
  },
});

// ---------------------------------------------------------------------------
// Type 101

export const GenesisPermit = genesisCodec<GenesisPermitData>({
  type: GENESIS_PERMIT_TYPE,
  name: 'GenesisPermit',
  baseLength: () => ADDRESS_LENGTH + 1 + TIMESTAMP_LENGTH,
  writeTail: (w, d) => void w.bytes(d.target.bytes).u8(ROLES[d.role]).i64(d.timestamp),
  readTail: (r, p) => {
    const target = ADDRESS.read(r, p, 'target');
    const role = roleFromByte(r.i8('role'), 'role');
    const timestamp = r.i64('timestamp');
    return { target, role, timestamp };
  },
  // Field order of the hash input differs from the bytes: target ‖ timestamp ‖ role.
  hashInput: (d) => concatBytes(Uint8Array.of(GENESIS_PERMIT_TYPE), d.target.bytes, i64(d.timestamp), Uint8Array.of(ROLES[d.role])),
  jsonFields: (d) => ({ target: d.target.toString(), role: d.role }),
  fromJson: (body, p) => ({
    target: ADDRESS.fromJson(body['target'], p, 'target'),
    role: roleFromName(jsonString(body['role'], 'role'), 'role'),
    timestamp: jsonLong(body['timestamp'], 'timestamp'),
  }),
  validate: (d) => {
    checkAddress(d.target, 'target');
    roleFromName(d.role, 'role');
  },
});

// ---------------------------------------------------------------------------
// Type 110

export const GenesisRegisterNode = genesisCodec<GenesisRegisterNodeData>({
  type: GENESIS_REGISTER_NODE_TYPE,
  name: 'GenesisRegisterNode',
  baseLength: (p) => p.crypto.publicKeyLength + TIMESTAMP_LENGTH,
  writeTail: (w, d) => void w.bytes(d.targetPublicKey).i64(d.timestamp),
  readTail: (r, p) => {
    const targetPublicKey = PUBLIC_KEY.read(r, p, 'targetPublicKey');
    const timestamp = r.i64('timestamp');
    return { targetPublicKey, timestamp };
  },
  hashInput: (d) => concatBytes(Uint8Array.of(GENESIS_REGISTER_NODE_TYPE), d.targetPublicKey, i64(d.timestamp)),
  jsonFields: (d, p) => ({
    targetPublicKey: encodeBase58(d.targetPublicKey),
    target: p.addresses.fromPublicKey(d.targetPublicKey).toString(),
  }),
  fromJson: (body, p) => ({
    targetPublicKey: PUBLIC_KEY.fromJson(body['targetPublicKey'], p, 'targetPublicKey'),
    timestamp: jsonLong(body['timestamp'], 'timestamp'),
  }),
  validate: (d, p) => {
    if (d.targetPublicKey.length !== p.crypto.publicKeyLength) {
      throw invalidPublicKey(`Bad public key bytes length: expected: '${p.crypto.publicKeyLength}', found: '${d.targetPublicKey.length}'`, 'targetPublicKey');
    }
  },
});

export const codecs: readonly TxCodec[] = [Genesis, GenesisPermit, GenesisRegisterNode];

/** GenesisTransaction as a script sees it (the permit and node-registration genesis types have no binding). */
export const genesisBinding: RideBinding<GenesisTransaction> = (tx, ctx) =>
  genesisObject(tx, ctx, [
    ['amount', tx.data.amount],
    ['recipient', recipientObject(tx.data.recipient)],
  ]);

// ---------------------------------------------------------------------------
// Constructors (WE's create methods)

export function genesisTransaction(p: TransactionProtocol, recipient: Address, amount: bigint, timestamp: bigint): GenesisTransaction {
  return p.transaction<GenesisData>(Genesis, 1, { recipient, amount, timestamp });
}

export function genesisPermitTransaction(p: TransactionProtocol, target: Address, role: RoleName, timestamp: bigint): GenesisPermitTransaction {
  return p.transaction<GenesisPermitData>(GenesisPermit, 1, { target, role, timestamp });
}

export function genesisRegisterNodeTransaction(p: TransactionProtocol, targetPublicKey: Uint8Array, timestamp: bigint): GenesisRegisterNodeTransaction {
  return p.transaction<GenesisRegisterNodeData>(GenesisRegisterNode, 1, { targetPublicKey, timestamp });
}

/** True for types 1, 101 and 110. */
export function isGenesisType(type: number): boolean {
  return type === GENESIS_TYPE || type === GENESIS_PERMIT_TYPE || type === GENESIS_REGISTER_NODE_TYPE;
}
