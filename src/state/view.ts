/**
 * Reading state (StateView) and changing it (MutableState).
 *
 * A StateView is made of one reader interface per part of the state: the chain's own
 * bookkeeping, confirmed transactions, balances, assets, accounts, account data,
 * permissions, policies, contracts. A reader takes the parts it needs; an overlay that
 * changes one part's answers extends DelegatingView and overrides only that part.
 *
 * A MutableState layers pending changes over any StateView: appliers write into it,
 * later reads see those writes, `fork()` gives a child layer that can be merged or
 * dropped (atomic containers, failed transactions), and `changes()` hands the
 * accumulated changes to the store, which commits them for one height in one
 * transaction. Addresses and ids are raw bytes here.
 */
import type { Transaction } from '../protocol/transactions/schema.js';
import type { DataEntry } from '../protocol/transactions/fields.js';
import type { Protocol } from '../protocol/protocol.js';
import {
  NO_LEASE,
  type AssetInfo,
  type LeaseBalance,
  type LeaseDetails,
  type MinerBanEntry,
  type Participant,
  type PermissionOp,
  type Policy,
} from './model.js';
import { bytesKey } from '../crypto/encoding.js';
import type { ContractInfo } from './contract-info.js';
import { ByAddress } from './by-address.js';

/** Key of a balance: holder bytes, then asset id bytes ('' for WEST). */
const balanceKey = (holder: Uint8Array, assetId: Uint8Array | null): string => bytesKey(holder) + '|' + (assetId === null ? '' : bytesKey(assetId));

/**
 * The WEST balance keys of holders, by the holder's bytes object: a transaction's sender
 * and recipient are looked up several times each (spendings, applying, fee, the balance
 * check), the block's miner once per transaction. Shared by a MutableState and every layer
 * forked from it; held weakly, so it lives as long as the addresses do. Keyed by identity:
 * address bytes are never written to once made.
 */
class WestBalanceKeys {
  private readonly keys = new WeakMap<Uint8Array, string>();

  of(holder: Uint8Array): string {
    let key = this.keys.get(holder);
    if (key === undefined) {
      key = balanceKey(holder, null);
      this.keys.set(holder, key);
    }
    return key;
  }
}

/**
 * The chain's own bookkeeping: its protocol, its height and score, the fee carried to the next
 * miner, feature votes and approvals, PoA miner bans.
 */
export interface ChainStateReader {
  readonly protocol: Protocol;
  /** Height of the last applied block (the liquid block's height while one exists); 0 before genesis. */
  height(): number;
  /** The chain's score (sum of its blocks' scores) after the last applied block; 0 when not recorded. */
  chainScore(): bigint;
  /** Fee share carried to the next block's miner (NG 60 %). */
  carryFee(): bigint;
  /**
   * Feature votes counted in voting window `window` (heights (window − 1)·P + 1 … window·P
   * for P = feature-check-blocks-period): feature id → number of blocks voting for it.
   */
  featureVotes(window: number): ReadonlyMap<number, number>;
  /** Features approved by voting: feature id → the height it was approved at. */
  approvedFeatures(): ReadonlyMap<number, number>;
  /** A PoA miner's warnings and bans, oldest first. */
  minerBanHistory(address: Uint8Array): readonly MinerBanEntry[];
}

/** Confirmed transactions: where they are and what they were. */
export interface TransactionReader {
  /** Height of a confirmed transaction. */
  transactionHeight(id: Uint8Array): number | undefined;
  /** A confirmed transaction by id: one recorded in this state's pending changes, else the store's transaction index. */
  transactionById(id: Uint8Array): Transaction | undefined;
}

/** What holders hold: WEST and asset balances, what they leased in and out, the leases. */
export interface BalanceReader {
  /** Balance of a holder (a 26-byte address, or a contract's 32-byte id) in WEST (null) or an asset. */
  balance(address: Uint8Array, assetId: Uint8Array | null): bigint;
  leaseBalance(address: Uint8Array): LeaseBalance;
  lease(leaseId: Uint8Array): LeaseDetails | undefined;
}

/** Issued assets. */
export interface AssetReader {
  asset(assetId: Uint8Array): AssetInfo | undefined;
}

/** Accounts: their aliases and scripts. */
export interface AccountReader {
  /** Address bytes owning an alias name. */
  aliasOwner(name: string): Uint8Array | undefined;
  /** Alias names of an address. */
  aliasesOf(address: Uint8Array): readonly string[];
  accountScript(address: Uint8Array): Uint8Array | null;
}

/** The data accounts stored (Data, 12). */
export interface AccountDataReader {
  dataEntry(address: Uint8Array, key: string): DataEntry | undefined;
  /** Every data entry of an account, in key (UTF-8 byte) order. */
  dataEntries(address: Uint8Array): readonly DataEntry[];
}

/** Who may do what: permission ops and role holders, and the registered participants (nodes). */
export interface PermissionReader {
  /** Every permission op ever applied to the address, in application order. */
  permissionOps(address: Uint8Array): readonly PermissionOp[];
  /** Addresses that ever received an op for this role (active or not), in first-op order. */
  roleHolders(role: number): readonly Uint8Array[];
  /** The registered participant behind an address, if registered. */
  participant(address: Uint8Array): Participant | undefined;
  /** Addresses of every registered participant, in registration order. */
  participants(): readonly Uint8Array[];
}

/** Privacy policies and the data hashes anchored in them. */
export interface PolicyReader {
  policy(policyId: Uint8Array): Policy | undefined;
  hasPolicyDataHash(policyId: Uint8Array, hash: Uint8Array): boolean;
  /** The data hashes anchored in a policy, each with the id of the PolicyDataHash (114) that anchored it; in no set order. */
  policyDataHashes(policyId: Uint8Array): readonly PolicyDataHashEntry[];
}

/** Reads of contract state (103–107): contracts, the data they stored, which 105 executed what. */
export interface ContractStateReader {
  /** A contract by id (any state: active or disabled). */
  contract(contractId: Uint8Array): ContractInfo | undefined;
  /** Ids of every contract, in creation order. */
  contractIds(): readonly Uint8Array[];
  /** One value a contract stored (the latest write wins; there is no delete). */
  contractData(contractId: Uint8Array, key: string): DataEntry | undefined;
  /** Every key a contract ever wrote, in UTF-8 byte order. */
  contractKeys(contractId: Uint8Array): readonly string[];
  /** The id of the ExecutedContract (105) that executed an executable transaction, once applied. */
  executedTxFor(txId: Uint8Array): Uint8Array | undefined;
}

/**
 * The whole state as of a height, part by part. A reader that needs one part takes that
 * part's interface (a test double then implements only it); an overlay that changes one
 * part extends DelegatingView and overrides only that part's reads.
 */
export interface StateView
  extends
    ChainStateReader,
    TransactionReader,
    BalanceReader,
    AssetReader,
    AccountReader,
    AccountDataReader,
    PermissionReader,
    PolicyReader,
    ContractStateReader {}

/** The reads of a StateView (its methods), part by part: what a DelegatingView forwards. */
type StateRead = Exclude<keyof StateView, 'protocol'>;

/** `true` for a read of at most two arguments: what the forwarding passes on. */
type Forwarded<F> = F extends (...args: infer A) => unknown ? (A['length'] extends 0 | 1 | 2 ? true : never) : never;

/**
 * Every read, grouped by the part that declares it. The compiler holds the table to the
 * interfaces: a read added to a part and not listed here, listed and not declared, or taking
 * more than two arguments fails to build.
 */
const STATE_READS: { readonly [R in StateRead]: Forwarded<StateView[R]> } = {
  // ChainStateReader
  height: true,
  chainScore: true,
  carryFee: true,
  featureVotes: true,
  approvedFeatures: true,
  minerBanHistory: true,
  // TransactionReader
  transactionHeight: true,
  transactionById: true,
  // BalanceReader
  balance: true,
  leaseBalance: true,
  lease: true,
  // AssetReader
  asset: true,
  // AccountReader
  aliasOwner: true,
  aliasesOf: true,
  accountScript: true,
  // AccountDataReader
  dataEntry: true,
  dataEntries: true,
  // PermissionReader
  permissionOps: true,
  roleHolders: true,
  participant: true,
  participants: true,
  // PolicyReader
  policy: true,
  hasPolicyDataHash: true,
  policyDataHashes: true,
  // ContractStateReader
  contract: true,
  contractIds: true,
  contractData: true,
  contractKeys: true,
  executedTxFor: true,
};

/** A view's reads as plain functions of at most two arguments (every read takes none, one or two). */
type ReadFunctions = Record<StateRead, (a: unknown, b: unknown) => unknown>;

class Delegating {
  constructor(readonly base: StateView) {}

  get protocol(): Protocol {
    return this.base.protocol;
  }
}
for (const read of Object.keys(STATE_READS) as StateRead[]) {
  Object.defineProperty(Delegating.prototype, read, {
    value: function (this: Delegating, a: unknown, b: unknown): unknown {
      return (this.base as unknown as ReadFunctions)[read](a, b);
    },
    writable: true,
    configurable: true,
  });
}

/**
 * A view answering every read from `base`: an overlay that changes one part of the state
 * (the pool's pending spendings its balances, a script's reads the height) extends it and
 * overrides only that part's reads. Its forwarding reads are made once, from STATE_READS.
 */
export const DelegatingView = Delegating as new (base: StateView) => StateView & { readonly base: StateView };
export type DelegatingView = InstanceType<typeof DelegatingView>;

/** Writes of contract state. */
export interface ContractStateWriter {
  putContract(info: ContractInfo): void;
  putContractData(contractId: Uint8Array, entry: DataEntry): void;
  putExecutedTxFor(txId: Uint8Array, executedTxId: Uint8Array): void;
}

/** A data hash anchored in a policy and the PolicyDataHash transaction that anchored it. */
export interface PolicyDataHashEntry {
  readonly hash: Uint8Array;
  readonly txId: Uint8Array;
}

/** Everything a height changes, as the store commits it. */
export interface StateChanges {
  readonly balances: ReadonlyMap<string, { holder: Uint8Array; assetId: Uint8Array | null; value: bigint }>;
  readonly leaseBalances: ReadonlyMap<string, { address: Uint8Array; value: LeaseBalance }>;
  readonly assets: ReadonlyMap<string, { id: Uint8Array; value: AssetInfo }>;
  readonly leases: ReadonlyMap<string, { id: Uint8Array; value: LeaseDetails }>;
  readonly aliases: ReadonlyMap<string, Uint8Array>;
  readonly data: ReadonlyMap<string, { address: Uint8Array; entry: DataEntry }>;
  readonly scripts: ReadonlyMap<string, { address: Uint8Array; script: Uint8Array | null }>;
  readonly permissionOps: ReadonlyMap<string, { address: Uint8Array; ops: PermissionOp[] }>;
  readonly participants: ReadonlyMap<string, { address: Uint8Array; value: Participant | null }>;
  readonly policies: ReadonlyMap<string, { id: Uint8Array; value: Policy }>;
  readonly policyDataHashes: ReadonlyMap<string, { policyId: Uint8Array; hash: Uint8Array; txId: Uint8Array }>;
  /**
   * Confirmed transactions of the height, in order, with the addresses each touched; an
   * ExecutedContract (105) with the executable transaction it executed (`executed`), which WE's
   * state records too, under the addresses its own changes touched (its fee payer).
   */
  readonly transactions: readonly { tx: Transaction; addresses: readonly Uint8Array[]; executed?: RecordedTransaction }[];
  readonly carryFee: bigint | undefined;
  readonly minerBans: ReadonlyMap<string, { address: Uint8Array; entries: readonly MinerBanEntry[] }>;
  /** Voting window → the window's vote counts after this height (only windows the height changed). */
  readonly featureVotes?: ReadonlyMap<number, ReadonlyMap<number, number>>;
  /** Every approved feature (id → approval height) after this height, when the height approved any. */
  readonly approvedFeatures?: ReadonlyMap<number, number>;
  /** The chain score after this height, when set. */
  readonly chainScore?: bigint;
  /** Contracts created or changed, by id, in first-write order. */
  readonly contracts: ReadonlyMap<string, ContractInfo>;
  readonly contractData: ReadonlyMap<string, { contractId: Uint8Array; entry: DataEntry }>;
  /** Executable transaction → the 105 that executed it. */
  readonly executedTxFor: ReadonlyMap<string, { txId: Uint8Array; executedTxId: Uint8Array }>;
}

interface ChangeMaps {
  balances: Map<string, { holder: Uint8Array; assetId: Uint8Array | null; value: bigint }>;
  leaseBalances: Map<string, { address: Uint8Array; value: LeaseBalance }>;
  assets: Map<string, { id: Uint8Array; value: AssetInfo }>;
  leases: Map<string, { id: Uint8Array; value: LeaseDetails }>;
  aliases: Map<string, Uint8Array>;
  data: Map<string, { address: Uint8Array; entry: DataEntry }>;
  scripts: Map<string, { address: Uint8Array; script: Uint8Array | null }>;
  permissionOps: Map<string, { address: Uint8Array; ops: PermissionOp[] }>;
  participants: Map<string, { address: Uint8Array; value: Participant | null }>;
  policies: Map<string, { id: Uint8Array; value: Policy }>;
  policyDataHashes: Map<string, { policyId: Uint8Array; hash: Uint8Array; txId: Uint8Array }>;
  minerBans: Map<string, { address: Uint8Array; entries: readonly MinerBanEntry[] }>;
  contracts: Map<string, ContractInfo>;
  contractData: Map<string, { contractId: Uint8Array; entry: DataEntry }>;
  executedTxFor: Map<string, { txId: Uint8Array; executedTxId: Uint8Array }>;
}

const EMPTY: ReadonlyMap<string, never> = new Map<string, never>();

/** A transaction recorded as confirmed, with the addresses whose state it touched. */
export interface RecordedTransaction {
  readonly tx: Transaction;
  readonly addresses: readonly Uint8Array[];
}

/** Pending changes over a base view. Reads see the writes; nothing reaches the base until `mergeInto`. */
export class MutableState implements StateView, ContractStateWriter {
  // Each kind of change gets its map on first write: most layers (one per transaction)
  // touch two or three kinds, and they are created by the thousand.
  private m: Partial<ChangeMaps> = {};
  private readonly txs: { tx: Transaction; addresses: readonly Uint8Array[]; executed?: RecordedTransaction }[] = [];
  /** The executable transaction the ExecutedContract being applied executed, until that is recorded. */
  private executed: RecordedTransaction | undefined;
  /** The recorded transactions by id (for transactionHeight and transactionById). */
  private txIds: Map<string, Transaction> | undefined;
  private carry: bigint | undefined;
  private votes: Map<number, Map<number, number>> | undefined;
  private approved: Map<number, number> | undefined;
  private score: bigint | undefined;
  /** Addresses whose state the transaction being applied touched (for the address index). */
  private touched: ByAddress<Uint8Array> | undefined;

  /** WEST balance keys, shared down the layers forked from one state. */
  private readonly westKeys: WestBalanceKeys;

  /**
   * @param base the state below
   * @param buildingHeight the height these changes will be committed at, when it is not the
   *   base's (a new block on a store at the previous height)
   */
  constructor(
    readonly base: StateView,
    private readonly buildingHeight?: number,
  ) {
    this.westKeys = base instanceof MutableState ? base.westKeys : new WestBalanceKeys();
  }

  private balanceKey(holder: Uint8Array, assetId: Uint8Array | null): string {
    return assetId === null ? this.westKeys.of(holder) : balanceKey(holder, assetId);
  }

  get protocol(): Protocol {
    return this.base.protocol;
  }

  height(): number {
    return this.buildingHeight ?? this.base.height();
  }

  /** A child layer over this one. */
  fork(): MutableState {
    return new MutableState(this);
  }

  // --- reads ----------------------------------------------------------------

  balance(address: Uint8Array, assetId: Uint8Array | null): bigint {
    return this.balanceUnder(this.balanceKey(address, assetId), address, assetId);
  }

  /** The balance under its key, looked up down the stacked layers with the key made once. */
  private balanceUnder(key: string, address: Uint8Array, assetId: Uint8Array | null): bigint {
    const own = this.m.balances?.get(key);
    if (own !== undefined) return own.value;
    let below = this.base;
    while (below instanceof MutableState) {
      const held = below.m.balances?.get(key);
      if (held !== undefined) return held.value;
      below = below.base;
    }
    return below.balance(address, assetId);
  }

  leaseBalance(address: Uint8Array): LeaseBalance {
    return this.m.leaseBalances?.get(bytesKey(address))?.value ?? this.base.leaseBalance(address);
  }

  asset(assetId: Uint8Array): AssetInfo | undefined {
    return this.m.assets?.get(bytesKey(assetId))?.value ?? this.base.asset(assetId);
  }

  lease(leaseId: Uint8Array): LeaseDetails | undefined {
    return this.m.leases?.get(bytesKey(leaseId))?.value ?? this.base.lease(leaseId);
  }

  aliasOwner(name: string): Uint8Array | undefined {
    return this.m.aliases?.get(name) ?? this.base.aliasOwner(name);
  }

  aliasesOf(address: Uint8Array): readonly string[] {
    const own = [...(this.m.aliases ?? EMPTY)].filter(([, a]) => bytesKey(a) === bytesKey(address)).map(([n]) => n);
    return own.length === 0 ? this.base.aliasesOf(address) : [...this.base.aliasesOf(address), ...own];
  }

  dataEntry(address: Uint8Array, key: string): DataEntry | undefined {
    return this.m.data?.get(bytesKey(address) + '|' + key)?.entry ?? this.base.dataEntry(address, key);
  }

  accountScript(address: Uint8Array): Uint8Array | null {
    const own = this.m.scripts?.get(bytesKey(address));
    return own !== undefined ? own.script : this.base.accountScript(address);
  }

  permissionOps(address: Uint8Array): readonly PermissionOp[] {
    const own = this.m.permissionOps?.get(bytesKey(address));
    return own === undefined ? this.base.permissionOps(address) : [...this.base.permissionOps(address), ...own.ops];
  }

  roleHolders(role: number): readonly Uint8Array[] {
    const base = this.base.roleHolders(role);
    const known = new Set(base.map(bytesKey));
    const added: Uint8Array[] = [];
    for (const { address, ops } of (this.m.permissionOps ?? EMPTY).values()) {
      if (ops.some((o) => o.role === role) && !known.has(bytesKey(address))) {
        known.add(bytesKey(address));
        added.push(address);
      }
    }
    return added.length === 0 ? base : [...base, ...added];
  }

  participant(address: Uint8Array): Participant | undefined {
    const own = this.m.participants?.get(bytesKey(address));
    if (own !== undefined) return own.value ?? undefined;
    return this.base.participant(address);
  }

  participants(): readonly Uint8Array[] {
    if (this.m.participants === undefined || this.m.participants.size === 0) return this.base.participants();
    const out = this.base.participants().filter((a) => {
      const own = this.m.participants?.get(bytesKey(a));
      return own === undefined || own.value !== null;
    });
    const present = new Set(out.map(bytesKey));
    for (const { address, value } of this.m.participants.values()) {
      if (value !== null && !present.has(bytesKey(address))) out.push(address);
    }
    return out;
  }

  policy(policyId: Uint8Array): Policy | undefined {
    return this.m.policies?.get(bytesKey(policyId))?.value ?? this.base.policy(policyId);
  }

  hasPolicyDataHash(policyId: Uint8Array, hash: Uint8Array): boolean {
    return this.m.policyDataHashes?.has(bytesKey(policyId) + '|' + bytesKey(hash)) === true || this.base.hasPolicyDataHash(policyId, hash);
  }

  policyDataHashes(policyId: Uint8Array): readonly PolicyDataHashEntry[] {
    const below = this.base.policyDataHashes(policyId);
    const own = this.m.policyDataHashes;
    if (own === undefined) return below;
    const prefix = bytesKey(policyId) + '|';
    const added = [...own].filter(([key]) => key.startsWith(prefix)).map(([, v]) => ({ hash: v.hash, txId: v.txId }));
    return added.length === 0 ? below : [...below, ...added];
  }

  transactionHeight(id: Uint8Array): number | undefined {
    return this.txIds?.has(bytesKey(id)) === true ? this.height() : this.base.transactionHeight(id);
  }

  transactionById(id: Uint8Array): Transaction | undefined {
    return this.txIds?.get(bytesKey(id)) ?? this.base.transactionById(id);
  }

  carryFee(): bigint {
    return this.carry ?? this.base.carryFee();
  }

  minerBanHistory(address: Uint8Array): readonly MinerBanEntry[] {
    return this.m.minerBans?.get(bytesKey(address))?.entries ?? this.base.minerBanHistory(address);
  }

  featureVotes(window: number): ReadonlyMap<number, number> {
    return this.votes?.get(window) ?? this.base.featureVotes(window);
  }

  approvedFeatures(): ReadonlyMap<number, number> {
    return this.approved ?? this.base.approvedFeatures();
  }

  chainScore(): bigint {
    return this.score ?? this.base.chainScore();
  }

  dataEntries(address: Uint8Array): readonly DataEntry[] {
    const own = this.m.data;
    const below = this.base.dataEntries(address);
    if (own === undefined) return below;
    const prefix = bytesKey(address) + '|';
    const mine = [...own].filter(([key]) => key.startsWith(prefix)).map(([, v]) => v.entry);
    if (mine.length === 0) return below;
    const byKey = new Map(below.map((e) => [e.key, e]));
    for (const e of mine) byKey.set(e.key, e);
    return [...byKey.values()].sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)));
  }

  contract(contractId: Uint8Array): ContractInfo | undefined {
    return this.m.contracts?.get(bytesKey(contractId)) ?? this.base.contract(contractId);
  }

  contractIds(): readonly Uint8Array[] {
    const below = this.base.contractIds();
    const own = this.m.contracts;
    if (own === undefined) return below;
    const added = [...own.values()].filter((c) => this.base.contract(c.contractId) === undefined).map((c) => c.contractId);
    return added.length === 0 ? below : [...below, ...added];
  }

  contractData(contractId: Uint8Array, key: string): DataEntry | undefined {
    return this.m.contractData?.get(bytesKey(contractId) + '|' + key)?.entry ?? this.base.contractData(contractId, key);
  }

  contractKeys(contractId: Uint8Array): readonly string[] {
    const below = this.base.contractKeys(contractId);
    const own = this.m.contractData;
    if (own === undefined) return below;
    const prefix = bytesKey(contractId) + '|';
    const known = new Set(below);
    const added = [...own].filter(([key, v]) => key.startsWith(prefix) && !known.has(v.entry.key)).map(([, v]) => v.entry.key);
    return added.length === 0 ? below : [...below, ...added].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  }

  executedTxFor(txId: Uint8Array): Uint8Array | undefined {
    return this.m.executedTxFor?.get(bytesKey(txId))?.executedTxId ?? this.base.executedTxFor(txId);
  }

  // --- writes ---------------------------------------------------------------

  /**
   * Marks an address as involved in the transaction being applied (address index). As in
   * WE, the index lists the holders whose portfolios (balances, leases) a transaction
   * changed — the fee payer always, with a zero change too.
   */
  touch(address: Uint8Array): void {
    (this.touched ??= new ByAddress()).setIfAbsent(address, address);
  }

  addBalance(address: Uint8Array, assetId: Uint8Array | null, delta: bigint): void {
    if (delta === 0n) {
      this.touch(address);
      return;
    }
    const key = this.balanceKey(address, assetId);
    this.map('balances').set(key, { holder: address, assetId, value: this.balanceUnder(key, address, assetId) + delta });
    this.touch(address);
  }

  addLeaseBalance(address: Uint8Array, deltaIn: bigint, deltaOut: bigint): void {
    const current = this.leaseBalance(address);
    this.map('leaseBalances').set(bytesKey(address), { address, value: { in: current.in + deltaIn, out: current.out + deltaOut } });
    this.touch(address);
  }

  putAsset(assetId: Uint8Array, value: AssetInfo): void {
    this.map('assets').set(bytesKey(assetId), { id: assetId, value });
  }

  putLease(leaseId: Uint8Array, value: LeaseDetails): void {
    this.map('leases').set(bytesKey(leaseId), { id: leaseId, value });
  }

  putAlias(name: string, address: Uint8Array): void {
    this.map('aliases').set(name, address);
  }

  putData(address: Uint8Array, entry: DataEntry): void {
    this.map('data').set(bytesKey(address) + '|' + entry.key, { address, entry });
  }

  putScript(address: Uint8Array, script: Uint8Array | null): void {
    this.map('scripts').set(bytesKey(address), { address, script });
  }

  addPermissionOp(address: Uint8Array, op: PermissionOp): void {
    const key = bytesKey(address);
    const own = this.m.permissionOps?.get(key);
    if (own === undefined) this.map('permissionOps').set(key, { address, ops: [op] });
    else own.ops.push(op);
  }

  /** Registers (participant) or removes (null) the node of an address. */
  putParticipant(address: Uint8Array, value: Participant | null): void {
    this.map('participants').set(bytesKey(address), { address, value });
  }

  putPolicy(policyId: Uint8Array, value: Policy): void {
    this.map('policies').set(bytesKey(policyId), { id: policyId, value });
  }

  /** Anchors a data hash in a policy by the PolicyDataHash transaction `txId`. */
  addPolicyDataHash(policyId: Uint8Array, hash: Uint8Array, txId: Uint8Array): void {
    this.map('policyDataHashes').set(bytesKey(policyId) + '|' + bytesKey(hash), { policyId, hash, txId });
  }

  putContract(info: ContractInfo): void {
    this.map('contracts').set(bytesKey(info.contractId), info);
  }

  putContractData(contractId: Uint8Array, entry: DataEntry): void {
    this.map('contractData').set(bytesKey(contractId) + '|' + entry.key, { contractId, entry });
  }

  putExecutedTxFor(txId: Uint8Array, executedTxId: Uint8Array): void {
    this.map('executedTxFor').set(bytesKey(txId), { txId, executedTxId });
  }

  setCarryFee(value: bigint): void {
    this.carry = value;
  }

  putMinerBanHistory(address: Uint8Array, entries: readonly MinerBanEntry[]): void {
    this.map('minerBans').set(bytesKey(address), { address, entries });
  }

  /** Counts one block's feature votes (distinct ids) in voting window `window`. */
  addFeatureVotes(window: number, ids: readonly number[]): void {
    if (ids.length === 0) return;
    const counts = new Map(this.featureVotes(window));
    for (const id of new Set(ids)) counts.set(id, (counts.get(id) ?? 0) + 1);
    (this.votes ??= new Map()).set(window, counts);
  }

  /** Records newly approved features (id → approval height); features approved before keep their height. */
  approveFeatures(approvals: ReadonlyMap<number, number>): void {
    const all = new Map(this.approvedFeatures());
    for (const [id, height] of approvals) if (!all.has(id)) all.set(id, height);
    this.approved = all;
  }

  setChainScore(value: bigint): void {
    this.score = value;
  }

  /** Records a confirmed transaction with the addresses touched since the last call. */
  addTransaction(tx: Transaction): void {
    const executed = this.executed;
    this.executed = undefined;
    this.txs.push({ tx, addresses: this.takeTouched(), ...(executed === undefined ? {} : { executed }) });
    (this.txIds ??= new Map()).set(bytesKey(tx.id), tx);
  }

  /**
   * Records the executable transaction (103/104/107) an ExecutedContract being applied
   * executed, with the addresses touched since the last addTransaction (its fee payer's): it
   * goes with the ExecutedContract's record, which gets only what is touched after this.
   */
  addExecutedTransaction(tx: Transaction): void {
    this.executed = { tx, addresses: this.takeTouched() };
  }

  /** The addresses touched since the last addTransaction, starting a new list. */
  private takeTouched(): readonly Uint8Array[] {
    const touched = this.touched?.values() ?? [];
    this.touched = undefined;
    return touched;
  }

  /** Addresses touched since the last addTransaction, e.g. to check their balances. */
  touchedAddresses(): readonly Uint8Array[] {
    return [...(this.touched?.values() ?? [])];
  }

  /** Balances changed in this layer (for the non-negative check after a transaction). */
  changedBalances(): Iterable<{ holder: Uint8Array; assetId: Uint8Array | null; value: bigint }> {
    return (this.m.balances ?? EMPTY).values();
  }

  changedLeaseBalances(): Iterable<{ address: Uint8Array; value: LeaseBalance }> {
    return (this.m.leaseBalances ?? EMPTY).values();
  }

  /** The map of one kind of change, created on first write. */
  private map<K extends keyof ChangeMaps>(kind: K): ChangeMaps[K] {
    return (this.m[kind] ??= new Map() as ChangeMaps[K]);
  }

  /** Pushes this layer's changes into `target` (normally the layer it was forked from). */
  mergeInto(target: MutableState): void {
    const m = this.m;
    const copy = <K extends keyof ChangeMaps>(kind: K): void => {
      const own = m[kind];
      if (own === undefined || own.size === 0) return;
      const into = target.map(kind) as Map<string, unknown>;
      for (const [key, v] of own) into.set(key, v);
    };
    copy('balances');
    copy('leaseBalances');
    copy('assets');
    copy('leases');
    copy('aliases');
    copy('data');
    copy('scripts');
    if (m.permissionOps !== undefined) {
      const into = target.map('permissionOps');
      for (const [key, v] of m.permissionOps) {
        const own = into.get(key);
        if (own === undefined) into.set(key, { address: v.address, ops: [...v.ops] });
        else own.ops.push(...v.ops);
      }
    }
    copy('participants');
    copy('policies');
    copy('policyDataHashes');
    copy('minerBans');
    copy('contracts');
    copy('contractData');
    copy('executedTxFor');
    for (const t of this.txs) {
      target.txs.push(t);
      (target.txIds ??= new Map()).set(bytesKey(t.tx.id), t.tx);
    }
    if (this.touched !== undefined) for (const address of this.touched.values()) target.touch(address);
    if (this.carry !== undefined) target.carry = this.carry;
    if (this.votes !== undefined) for (const [window, counts] of this.votes) (target.votes ??= new Map()).set(window, counts);
    if (this.approved !== undefined) target.approved = this.approved;
    if (this.score !== undefined) target.score = this.score;
  }

  changes(): StateChanges {
    const m = this.m;
    return {
      balances: m.balances ?? EMPTY,
      leaseBalances: m.leaseBalances ?? EMPTY,
      assets: m.assets ?? EMPTY,
      leases: m.leases ?? EMPTY,
      aliases: m.aliases ?? EMPTY,
      data: m.data ?? EMPTY,
      scripts: m.scripts ?? EMPTY,
      permissionOps: m.permissionOps ?? EMPTY,
      participants: m.participants ?? EMPTY,
      policies: m.policies ?? EMPTY,
      policyDataHashes: m.policyDataHashes ?? EMPTY,
      transactions: this.txs,
      carryFee: this.carry,
      minerBans: m.minerBans ?? EMPTY,
      contracts: m.contracts ?? EMPTY,
      contractData: m.contractData ?? EMPTY,
      executedTxFor: m.executedTxFor ?? EMPTY,
      ...(this.votes === undefined ? {} : { featureVotes: this.votes }),
      ...(this.approved === undefined ? {} : { approvedFeatures: this.approved }),
      ...(this.score === undefined ? {} : { chainScore: this.score }),
    };
  }
}

export { NO_LEASE };
