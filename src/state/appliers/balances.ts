/**
 * Balances derived from the stored ones, and WE's BalanceDiffValidation: after a
 * transaction's changes are written into a fork, every account whose balances changed
 * must end with no negative WEST or asset balance, and an account that spent WEST may
 * not end up spending what it leased out.
 */
import { encodeBase58 } from '../../crypto/encoding.js';
import type { BalanceReader, MutableState } from '../view.js';
import { ByAddress } from '../by-address.js';
import { balanceErrors } from '../../errors/catalogue.js';

/** Spendable WEST: regular − lease-out. */
export function availableBalance(state: BalanceReader, address: Uint8Array): bigint {
  return state.balance(address, null) - state.leaseBalance(address).out;
}

/** Effective WEST: regular + lease-in − lease-out. */
export function effectiveBalance(state: BalanceReader, address: Uint8Array): bigint {
  const lease = state.leaseBalance(address);
  return state.balance(address, null) + lease.in - lease.out;
}

interface HolderChanges {
  readonly holder: Uint8Array;
  readonly assets: Uint8Array[];
}

/**
 * BalanceDiffValidation of the changes `fork` holds over `before` (the state the
 * transaction was applied to). Throws WE's BalanceErrors.
 */
export function validateBalances(before: BalanceReader, fork: MutableState): void {
  const holders = new ByAddress<HolderChanges>();
  for (const b of fork.changedBalances()) {
    const h = holders.getOrAdd(b.holder, () => ({ holder: b.holder, assets: [] }));
    if (b.assetId !== null) h.assets.push(b.assetId);
  }
  const errors: Array<[string, string]> = [];
  for (const { holder, assets } of holders.values()) {
    const problems: string[] = [];
    const oldWest = before.balance(holder, null);
    const newWest = fork.balance(holder, null);
    if (newWest < 0n) problems.push(`negative WEST balance: address '${encodeBase58(holder)}', old: ${oldWest}, new: ${newWest}`);
    if (newWest - oldWest < 0n) {
      const oldLease = before.leaseBalance(holder);
      const newLease = fork.leaseBalance(holder);
      const leasing: string[] = [];
      if (newLease.out < 0n) leasing.push('cannot lease-out negative amount');
      if (newLease.in < 0n) leasing.push('cannot have negative lease-in balance');
      if (newWest - newLease.out < 0n) leasing.push('cannot spend leased balance');
      if (leasing.length > 0) {
        problems.push(
          `[${leasing.join(', ')}]: old(west balance, lease balance): (${oldWest},LeaseBalance(in = ${oldLease.in}, out = ${oldLease.out})), ` +
            `new: (${newWest},LeaseBalance(in = ${newLease.in}, out = ${newLease.out}))`,
        );
      }
    }
    const negativeAssets = assets
      .map((assetId) => ({ assetId, value: fork.balance(holder, assetId) }))
      .filter((a) => a.value < 0n)
      .map((a) => `asset: '${encodeBase58(a.assetId)}' -> balance: '${a.value}'`);
    if (negativeAssets.length > 0) problems.push(`negative asset balance: [${negativeAssets.join(', ')}]`);
    if (problems.length > 0) {
      const address = encodeBase58(holder);
      errors.push([address, `address '${address}' balance validation errors: [${problems.join(', ')}]`]);
    }
  }
  if (errors.length > 0) throw balanceErrors(errors);
}
