/**
 * The transaction registry of the chain: each type's codec with its rules (rules.ts: its
 * applier and what the chain checks before it) and its RIDE binding, one line a type. The
 * one place that dispatches chain rules and bindings on the type byte; each line ties a
 * codec to rules and a binding of its own transactions (the compiler holds them to it), so
 * an applier receives its type's typed transaction. Adding a transaction type touches its
 * protocol module, its applier module and one line here.
 */
import { CreateAlias, createAliasBinding } from '../../protocol/transactions/alias.js';
import { Burn, burnBinding, Issue, issueBinding, Reissue, reissueBinding, SponsorFee, sponsorFeeBinding } from '../../protocol/transactions/assets.js';
import { Atomic } from '../../protocol/transactions/atomic.js';
import {
  CallContract,
  callContractBinding,
  CreateContract,
  createContractBinding,
  DisableContract,
  disableContractBinding,
  ExecutedContract,
  UpdateContract,
  updateContractBinding,
} from '../../protocol/transactions/contracts.js';
import { Data, dataBinding } from '../../protocol/transactions/data.js';
import { Exchange, exchangeBinding } from '../../protocol/transactions/exchange.js';
import { Genesis, genesisBinding, GenesisPermit, GenesisRegisterNode } from '../../protocol/transactions/genesis.js';
import { Lease, leaseBinding, LeaseCancel, leaseCancelBinding } from '../../protocol/transactions/leasing.js';
import { RegisterNode } from '../../protocol/transactions/nodes.js';
import { Permit } from '../../protocol/transactions/permissions.js';
import { CreatePolicy, PolicyDataHash, UpdatePolicy } from '../../protocol/transactions/privacy.js';
import type { RideBinding } from '../../protocol/transactions/ride-binding.js';
import type { Transaction, TypedTxCodec } from '../../protocol/transactions/schema.js';
import { SetAssetScript, setAssetScriptBinding, SetScript, setScriptBinding } from '../../protocol/transactions/scripts.js';
import { MassTransfer, massTransferBinding, Transfer, transferBinding } from '../../protocol/transactions/transfer.js';
import type { TransactionRules } from './rules.js';
import { CREATE_ALIAS } from './alias.js';
import { BURN, ISSUE, REISSUE, SET_ASSET_SCRIPT, SPONSOR_FEE } from './assets.js';
import { ATOMIC } from './atomic.js';
import { DATA } from './data.js';
import { GENESIS, GENESIS_PERMIT, GENESIS_REGISTER_NODE } from './genesis.js';
import { LEASE, LEASE_CANCEL } from './leasing.js';
import { REGISTER_NODE } from './nodes.js';
import { PERMIT } from './permissions.js';
import { CREATE_POLICY, POLICY_DATA_HASH, UPDATE_POLICY } from './privacy.js';
import { SET_SCRIPT } from './scripts.js';
import { MASS_TRANSFER, TRANSFER } from './transfer.js';
import { CALL_CONTRACT, CREATE_CONTRACT, DISABLE_CONTRACT, EXECUTED_CONTRACT, UPDATE_CONTRACT } from './contracts.js';
import { EXCHANGE } from './unsupported.js';

export * from './context.js';
export * from './rules.js';
export { validateBalances, availableBalance, effectiveBalance } from './balances.js';

/** A transaction type as the chain knows it. */
interface RegisteredType {
  readonly codec: TypedTxCodec;
  readonly rules: TransactionRules;
  /** The case object a script binds to its transactions; none for a class WE does not bind. */
  readonly binding: RideBinding<Transaction> | undefined;
}

/**
 * One line of the registry: `codec` with rules and a binding of its own transactions `T`.
 * They are kept for any transaction because the registry hands them only those of the
 * codec's type (`rulesFor(tx.type)`, `rideBindingFor(tx.type)`), which are `T`.
 */
function registered<T extends Transaction>(codec: TypedTxCodec<T>, rules: TransactionRules<NoInfer<T>>, binding?: RideBinding<NoInfer<T>>): RegisteredType {
  return { codec, rules: rules as unknown as TransactionRules, binding: binding as RideBinding<Transaction> | undefined };
}

const REGISTRY: readonly RegisteredType[] = [
  registered(Genesis, GENESIS, genesisBinding),
  registered(Issue, ISSUE, issueBinding),
  registered(Transfer, TRANSFER, transferBinding),
  registered(Reissue, REISSUE, reissueBinding),
  registered(Burn, BURN, burnBinding),
  registered(Exchange, EXCHANGE, exchangeBinding),
  registered(Lease, LEASE, leaseBinding),
  registered(LeaseCancel, LEASE_CANCEL, leaseCancelBinding),
  registered(CreateAlias, CREATE_ALIAS, createAliasBinding),
  registered(MassTransfer, MASS_TRANSFER, massTransferBinding),
  registered(Data, DATA, dataBinding),
  registered(SetScript, SET_SCRIPT, setScriptBinding),
  registered(SponsorFee, SPONSOR_FEE, sponsorFeeBinding),
  registered(SetAssetScript, SET_ASSET_SCRIPT, setAssetScriptBinding),
  registered(GenesisPermit, GENESIS_PERMIT),
  registered(Permit, PERMIT),
  registered(CreateContract, CREATE_CONTRACT, createContractBinding),
  registered(CallContract, CALL_CONTRACT, callContractBinding),
  registered(ExecutedContract, EXECUTED_CONTRACT),
  registered(DisableContract, DISABLE_CONTRACT, disableContractBinding),
  registered(UpdateContract, UPDATE_CONTRACT, updateContractBinding),
  registered(GenesisRegisterNode, GENESIS_REGISTER_NODE),
  registered(RegisterNode, REGISTER_NODE),
  registered(CreatePolicy, CREATE_POLICY),
  registered(UpdatePolicy, UPDATE_POLICY),
  registered(PolicyDataHash, POLICY_DATA_HASH),
  registered(Atomic, ATOMIC),
];

const BY_TYPE = new Map<number, RegisteredType>();
for (const entry of REGISTRY) {
  if (BY_TYPE.has(entry.codec.type)) throw new Error(`Transaction type ${entry.codec.type} is registered twice`);
  BY_TYPE.set(entry.codec.type, entry);
}

/** Every transaction type's rules, by type id. */
export const TRANSACTION_RULES: ReadonlyMap<number, TransactionRules> = new Map([...BY_TYPE].map(([type, entry]) => [type, entry.rules]));

/** The rules of a transaction type (undefined for a type the node does not know). */
export function rulesFor(type: number): TransactionRules | undefined {
  return TRANSACTION_RULES.get(type);
}

/** The RIDE binding of a transaction type (undefined for a type WE binds to nothing, or one the node does not know). */
export function rideBindingFor(type: number): RideBinding<Transaction> | undefined {
  return BY_TYPE.get(type)?.binding;
}
