/**
 * The reads of a confidential call (WE's ContractReadLogService): every key, key list and
 * balance the contract reads over gRPC while it executes is recorded as a read descriptor
 * with the hash of what the node answered; the 105 V4 carries the descriptors as
 * `readings` and `readingsHash`, and validators sign them (ContractValidatorResultsV2).
 *
 * - GetContractKey → specific-keys (contractId, [key]); answer hash = secureHash(the entry
 *   in contract DataEntry form). A missing key answers an error and is not recorded.
 * - GetContractKeys → specific-keys (contractId, the filter's keys) when the request has a
 *   keys filter, else filtered-keys (contractId, matches, offset, limit); answer hash =
 *   secureHash(u16 count ‖ the entries sorted by key, contract form).
 * - GetContractBalances → specific-balances (the execution's contract, the asset ids as
 *   asked); answer hash = secureHash(u16 count ‖ per balance sorted by asset id, WEST first:
 *   asset id text bytes (none for WEST) ‖ i64 amount ‖ i32 decimals).
 *
 * readingsHash = secureHash(the answer hashes in read order), absent (and readings empty)
 * when the call read nothing.
 */
import { ByteWriter, concatBytes } from '../../protocol/bytes.js';
import type { Protocol } from '../../protocol/protocol.js';
import { CONTRACT_DATA_ENTRY, type DataEntry } from '../../protocol/transactions/fields.js';
import type { ReadDescriptor } from '../../protocol/transactions/contracts.js';
import { entriesBytes } from './data.js';

/** One balance as a contract got it (GetContractBalances' ContractBalanceResponse). */
export interface ReadBalance {
  /** Base58 text as asked; undefined for WEST. */
  readonly assetId: string | undefined;
  readonly amount: bigint;
  readonly decimals: number;
}

/** What a GetContractKeys request asked. */
export interface KeysRead {
  /** The keys filter's keys, when the request had one. */
  readonly keys?: readonly string[] | undefined;
  readonly matches?: string | undefined;
  readonly offset?: number | undefined;
  readonly limit?: number | undefined;
}

/** The readings a call's 105 V4 carries. */
export interface Readings {
  readonly readings: readonly ReadDescriptor[];
  readonly readingsHash: Uint8Array | null;
}

const utf8 = new TextEncoder();

/** ConfidentialDataUtils.contractBalancesToBytes. */
export function balancesBytes(balances: readonly ReadBalance[]): Uint8Array {
  const sorted = [...balances].sort((a, b) => {
    if (a.assetId === b.assetId) return 0;
    if (a.assetId === undefined) return -1;
    if (b.assetId === undefined) return 1;
    return a.assetId < b.assetId ? -1 : 1;
  });
  const w = new ByteWriter(16 + sorted.length * 60).u16(sorted.length);
  for (const b of sorted)
    w.bytes(utf8.encode(b.assetId ?? ''))
      .i64(b.amount)
      .i32(b.decimals);
  return w.result();
}

/** The journal of one execution's reads, in the order they were answered. */
export class ReadingsJournal {
  private readonly reads: { readonly descriptor: ReadDescriptor; readonly answerHash: Uint8Array }[] = [];

  constructor(private readonly p: Protocol) {}

  private record(descriptor: ReadDescriptor, answer: Uint8Array): void {
    this.reads.push({ descriptor, answerHash: this.p.crypto.secureHash(answer) });
  }

  /** GetContractKey answered `entry`. */
  key(contractId: Uint8Array, key: string, entry: DataEntry): void {
    const w = new ByteWriter(64);
    CONTRACT_DATA_ENTRY.write(w, entry, this.p);
    this.record({ type: 'specific-keys', contractId, keys: [key] }, w.result());
  }

  /** GetContractKeys answered `entries`. */
  keys(contractId: Uint8Array, request: KeysRead, entries: readonly DataEntry[]): void {
    const descriptor: ReadDescriptor =
      request.keys !== undefined
        ? { type: 'specific-keys', contractId, keys: [...request.keys] }
        : { type: 'filtered-keys', contractId, matches: request.matches ?? null, offset: request.offset ?? null, limit: request.limit ?? null };
    this.record(descriptor, entriesBytes(entries, this.p));
  }

  /** GetContractBalances answered `balances` for the asset ids asked. */
  balances(contractId: Uint8Array, assetIds: readonly string[], balances: readonly ReadBalance[]): void {
    this.record({ type: 'specific-balances', contractId, assetIds: [...assetIds] }, balancesBytes(balances));
  }

  /** ContractReadLogService.createFinalReadingsJournal. */
  result(): Readings {
    if (this.reads.length === 0) return { readings: [], readingsHash: null };
    return {
      readings: this.reads.map((r) => r.descriptor),
      readingsHash: this.p.crypto.secureHash(concatBytes(...this.reads.map((r) => r.answerHash))),
    };
  }
}
