/** WE 1.14 transaction types as a reader knows them. */

export const TX_TYPE_NAMES: Readonly<Record<number, string>> = {
  1: 'Genesis',
  3: 'Issue',
  4: 'Transfer',
  5: 'Reissue',
  6: 'Burn',
  7: 'Exchange',
  8: 'Lease',
  9: 'Lease cancel',
  10: 'Create alias',
  11: 'Mass transfer',
  12: 'Data',
  13: 'Set script',
  14: 'Sponsor fee',
  15: 'Set asset script',
  101: 'Genesis permit',
  102: 'Permit',
  103: 'Create contract',
  104: 'Call contract',
  105: 'Executed contract',
  106: 'Disable contract',
  107: 'Update contract',
  110: 'Genesis register node',
  111: 'Register node',
  112: 'Create policy',
  113: 'Update policy',
  114: 'Policy data hash',
  120: 'Atomic',
};

export const txTypeName = (type: number): string => TX_TYPE_NAMES[type] ?? `Type ${type}`;

/** Types whose execution a contract runs (results come back in a 105). */
export const EXECUTABLE_TYPES: ReadonlySet<number> = new Set([103, 104, 107]);

/** The contract a transaction concerns: its own id for 103, `contractId` for the others. */
export function contractIdOf(tx: { readonly type: number; readonly id: string; readonly [k: string]: unknown }): string | undefined {
  if (tx.type === 103) return tx.id;
  if (tx.type === 104 || tx.type === 106 || tx.type === 107) return typeof tx['contractId'] === 'string' ? tx['contractId'] : undefined;
  if (tx.type === 105) {
    const inner = tx['tx'];
    return typeof inner === 'object' && inner !== null ? contractIdOf(inner as { type: number; id: string }) : undefined;
  }
  return undefined;
}
