/**
 * What the node keeps about the chain, as typed values with their binary encodings.
 * Appliers read and write these through a StateView / MutableState; the store persists
 * them (see store.ts) with history per height.
 */
import { ByteReader, ByteWriter } from '../protocol/bytes.js';
// Stored data entries use 4-byte value lengths so any entry fits (contract entries too).
import { CONTRACT_DATA_ENTRY as DATA_ENTRY_WIDE, type DataEntry } from '../protocol/transactions/fields.js';
import type { Protocol } from '../protocol/protocol.js';

/** An asset as the node knows it (WE's AssetInfo + script + sponsorship). */
export interface AssetInfo {
  /** Public key of the issuer (its address follows from it). */
  readonly issuer: Uint8Array;
  readonly height: number;
  readonly timestamp: bigint;
  /** UTF-8 bytes, as issued. */
  readonly name: Uint8Array;
  readonly description: Uint8Array;
  readonly decimals: number;
  readonly reissuable: boolean;
  /** Total quantity in circulation (issued + reissued − burned). */
  readonly volume: bigint;
  readonly script: Uint8Array | null;
  readonly sponsorship: boolean;
  /** Issued by a contract (WE's Contract asset holder): `issuer` then holds the contract id. */
  readonly issuedByContract?: boolean;
}

/** A lease (WE's LeaseDetails). */
export interface LeaseDetails {
  /** Public key of the lessor (a contract's id when `leasedByContract`). */
  readonly sender: Uint8Array;
  /** Address bytes of the lessee (aliases resolved at lease time). */
  readonly recipient: Uint8Array;
  readonly amount: bigint;
  readonly active: boolean;
  readonly height: number;
  /** Leased by a contract (its asset operations): `sender` holds the contract id. */
  readonly leasedByContract?: boolean;
}

export interface LeaseBalance {
  readonly in: bigint;
  readonly out: bigint;
}

export const NO_LEASE: LeaseBalance = { in: 0n, out: 0n };

/** One permission operation (WE's PermissionOp): role byte, add/remove, timestamps. */
export interface PermissionOp {
  readonly opType: 'add' | 'remove';
  readonly role: number;
  readonly timestamp: bigint;
  readonly dueTimestamp: bigint | null;
}

/** A registered network participant (GenesisRegisterNode / RegisterNode). */
export interface Participant {
  readonly publicKey: Uint8Array;
  readonly nodeName: string | null;
}

/** A privacy policy's members (owners are also recipients in WE's API sense only if listed). */
export interface Policy {
  readonly owners: readonly Uint8Array[];
  readonly recipients: readonly Uint8Array[];
}

/** A PoA miner's warning or ban (WE's MinerBanlistEntry). */
export type MinerBanEntry =
  | { readonly kind: 'warning'; readonly timestamp: bigint }
  | { readonly kind: 'ban'; readonly timestamp: bigint; readonly beginHeight: number; readonly priorWarningTimestamps: readonly bigint[] };

/** Where a transaction sits: its block height and its full bytes. */
export interface TxLocation {
  readonly height: number;
  readonly bytes: Uint8Array;
}

/** One transaction in an address's list of a commit (store F.ADDRESS_TXS): its number at the height and its id. */
export interface AddressTxEntry {
  readonly seq: number;
  readonly id: Uint8Array;
}

/** Writes `n` (u32, big-endian) into `out` at `at`. */
export function writeU32(out: Uint8Array, at: number, n: number): void {
  out[at] = n >>> 24;
  out[at + 1] = (n >>> 16) & 0xff;
  out[at + 2] = (n >>> 8) & 0xff;
  out[at + 3] = n & 0xff;
}

/** The bytes of a TxLocation value (height i32 ‖ transaction bytes), written into `out` (its length: 4 + bytes). */
export function writeTxLocation(out: Uint8Array, height: number, bytes: Uint8Array): void {
  writeU32(out, 0, height);
  out.set(bytes, 4);
}

// ---------------------------------------------------------------------------
// Encodings (big-endian, as everything else)

function writeOptBytes(w: ByteWriter, b: Uint8Array | null): void {
  if (b === null) w.u8(0);
  else w.u8(1).longBytes(b);
}

function readOptBytes(r: ByteReader): Uint8Array | null {
  return r.u8() === 0 ? null : r.longBytes();
}

function writeBig(w: ByteWriter, v: bigint): void {
  // Volumes can exceed int64 in WE (BigInt); keep a sign byte and a magnitude.
  w.u8(v < 0n ? 1 : 0);
  let m = v < 0n ? -v : v;
  const bytes: number[] = [];
  while (m > 0n) {
    bytes.unshift(Number(m & 0xffn));
    m >>= 8n;
  }
  w.shortBytes(Uint8Array.from(bytes));
}

function readBig(r: ByteReader): bigint {
  const negative = r.u8() === 1;
  let m = 0n;
  for (const b of r.shortBytes()) m = (m << 8n) | BigInt(b);
  return negative ? -m : m;
}

export const encode = {
  bigint(v: bigint): Uint8Array {
    const w = new ByteWriter(16);
    writeBig(w, v);
    return w.result();
  },
  assetInfo(a: AssetInfo): Uint8Array {
    const w = new ByteWriter(128);
    w.longBytes(a.issuer).i32(a.height).i64(a.timestamp).longBytes(a.name).longBytes(a.description).u8(a.decimals).bool(a.reissuable);
    writeBig(w, a.volume);
    writeOptBytes(w, a.script);
    w.bool(a.sponsorship);
    // A trailing flag only for contract-issued assets: the bytes of every other asset stay as they were.
    if (a.issuedByContract === true) w.bool(true);
    return w.result();
  },
  lease(l: LeaseDetails): Uint8Array {
    const w = new ByteWriter(96).longBytes(l.sender).longBytes(l.recipient).i64(l.amount).bool(l.active).i32(l.height);
    if (l.leasedByContract === true) w.bool(true);
    return w.result();
  },
  leaseBalance(l: LeaseBalance): Uint8Array {
    return new ByteWriter(16).i64(l.in).i64(l.out).result();
  },
  permissionOps(ops: readonly PermissionOp[]): Uint8Array {
    const w = new ByteWriter(20 * ops.length + 4).i32(ops.length);
    for (const op of ops) {
      w.u8(op.opType === 'add' ? 0x61 : 0x72)
        .u8(op.role)
        .i64(op.timestamp);
      if (op.dueTimestamp === null) w.u8(0);
      else w.u8(1).i64(op.dueTimestamp);
    }
    return w.result();
  },
  /** WE's ban-history entry bytes: Warning 01 ‖ ts; Ban 02 ‖ ts ‖ beginHeight ‖ count(short) ‖ ts×count. */
  minerBans(entries: readonly MinerBanEntry[]): Uint8Array {
    const w = new ByteWriter(16 * entries.length + 4).i32(entries.length);
    for (const e of entries) {
      if (e.kind === 'warning') w.u8(1).i64(e.timestamp);
      else {
        w.u8(2).i64(e.timestamp).i32(e.beginHeight).i16(e.priorWarningTimestamps.length);
        for (const t of e.priorWarningTimestamps) w.i64(t);
      }
    }
    return w.result();
  },
  participant(p: Participant): Uint8Array {
    const w = new ByteWriter(96).longBytes(p.publicKey);
    writeOptBytes(w, p.nodeName === null ? null : Buffer.from(p.nodeName, 'utf8'));
    return w.result();
  },
  addresses(list: readonly Uint8Array[]): Uint8Array {
    const w = new ByteWriter(4 + 30 * list.length).i32(list.length);
    for (const a of list) w.longBytes(a);
    return w.result();
  },
  policy(p: Policy): Uint8Array {
    const w = new ByteWriter(64).i32(p.owners.length);
    for (const o of p.owners) w.longBytes(o);
    w.i32(p.recipients.length);
    for (const o of p.recipients) w.longBytes(o);
    return w.result();
  },
  dataEntry(e: DataEntry, p: Protocol): Uint8Array {
    const w = new ByteWriter(64);
    DATA_ENTRY_WIDE.write(w, e, p);
    return w.result();
  },
  optBytes(b: Uint8Array | null): Uint8Array {
    const w = new ByteWriter((b?.length ?? 0) + 5);
    writeOptBytes(w, b);
    return w.result();
  },
  /** (seq u32 ‖ id length u8 ‖ id) × n. */
  addressTxs(entries: readonly AddressTxEntry[]): Uint8Array {
    let length = 0;
    for (const e of entries) length += 5 + e.id.length;
    const w = new ByteWriter(length);
    for (const { seq, id } of entries) w.i32(seq).u8(id.length).bytes(id);
    return w.result();
  },
};

export const decode = {
  bigint(b: Uint8Array): bigint {
    return readBig(new ByteReader(b));
  },
  assetInfo(b: Uint8Array): AssetInfo {
    const r = new ByteReader(b);
    return {
      issuer: r.longBytes(),
      height: r.i32(),
      timestamp: r.i64(),
      name: r.longBytes(),
      description: r.longBytes(),
      decimals: r.u8(),
      reissuable: r.bool(),
      volume: readBig(r),
      script: readOptBytes(r),
      sponsorship: r.bool(),
      ...(r.remaining > 0 && r.bool() ? { issuedByContract: true } : {}),
    };
  },
  lease(b: Uint8Array): LeaseDetails {
    const r = new ByteReader(b);
    const lease = { sender: r.longBytes(), recipient: r.longBytes(), amount: r.i64(), active: r.bool(), height: r.i32() };
    return r.remaining > 0 && r.bool() ? { ...lease, leasedByContract: true } : lease;
  },
  leaseBalance(b: Uint8Array): LeaseBalance {
    const r = new ByteReader(b);
    return { in: r.i64(), out: r.i64() };
  },
  permissionOps(b: Uint8Array): PermissionOp[] {
    const r = new ByteReader(b);
    const n = r.i32();
    const ops: PermissionOp[] = [];
    for (let i = 0; i < n; i++) {
      const opType = r.u8() === 0x61 ? 'add' : 'remove';
      const role = r.u8();
      const timestamp = r.i64();
      const dueTimestamp = r.u8() === 1 ? r.i64() : null;
      ops.push({ opType, role, timestamp, dueTimestamp });
    }
    return ops;
  },
  minerBans(b: Uint8Array): MinerBanEntry[] {
    const r = new ByteReader(b);
    const out: MinerBanEntry[] = [];
    for (let n = r.i32(); n > 0; n--) {
      if (r.u8() === 1) out.push({ kind: 'warning', timestamp: r.i64() });
      else {
        const timestamp = r.i64();
        const beginHeight = r.i32();
        const prior: bigint[] = [];
        for (let c = r.i16(); c > 0; c--) prior.push(r.i64());
        out.push({ kind: 'ban', timestamp, beginHeight, priorWarningTimestamps: prior });
      }
    }
    return out;
  },
  participant(b: Uint8Array): Participant {
    const r = new ByteReader(b);
    const publicKey = r.longBytes();
    const name = readOptBytes(r);
    return { publicKey, nodeName: name === null ? null : Buffer.from(name).toString('utf8') };
  },
  addresses(b: Uint8Array): Uint8Array[] {
    const r = new ByteReader(b);
    const out: Uint8Array[] = [];
    for (let i = r.i32(); i > 0; i--) out.push(r.longBytes());
    return out;
  },
  policy(b: Uint8Array): Policy {
    const r = new ByteReader(b);
    const owners: Uint8Array[] = [];
    for (let i = r.i32(); i > 0; i--) owners.push(r.longBytes());
    const recipients: Uint8Array[] = [];
    for (let i = r.i32(); i > 0; i--) recipients.push(r.longBytes());
    return { owners, recipients };
  },
  dataEntry(b: Uint8Array, p: Protocol): DataEntry {
    return DATA_ENTRY_WIDE.read(new ByteReader(b), p, 'data');
  },
  txLocation(b: Uint8Array): TxLocation {
    const r = new ByteReader(b);
    // A view: the store's reads are each a buffer of their own (see Store.transaction).
    return { height: r.i32(), bytes: r.viewOf(4, b.length) };
  },
  optBytes(b: Uint8Array): Uint8Array | null {
    return readOptBytes(new ByteReader(b));
  },
  addressTxs(b: Uint8Array): AddressTxEntry[] {
    const r = new ByteReader(b);
    const out: AddressTxEntry[] = [];
    while (r.remaining > 0) {
      const seq = r.i32() >>> 0;
      out.push({ seq, id: r.bytes(r.u8()) });
    }
    return out;
  },
};
