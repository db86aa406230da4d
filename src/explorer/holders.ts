/** An asset's holders as the asset page lists them. */
import { toBigInt, type Int64 } from './format.js';

/** Holders by balance, largest first, with their share of `quantity` in percent (rounded down to 0.01). */
export function rankHolders(distribution: Readonly<Record<string, Int64>>, quantity: Int64): Array<{ address: string; balance: bigint; sharePercent: number }> {
  const total = toBigInt(quantity) ?? 0n;
  return Object.entries(distribution)
    .map(([address, b]) => ({ address, balance: toBigInt(b) ?? 0n }))
    .filter((h) => h.balance > 0n)
    .sort((a, b) => (a.balance === b.balance ? a.address.localeCompare(b.address) : a.balance > b.balance ? -1 : 1))
    .map((h) => ({ ...h, sharePercent: total > 0n ? Number((h.balance * 10_000n) / total) / 100 : 0 }));
}
