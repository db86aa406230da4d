/**
 * The confidential state of a contract (WE's PersistentConfidentialState with its liquid
 * part): the outputs of its confidential calls whose ExecutedContract V4 is in a state,
 * folded in the order those 105s were applied (later writes of a key win). An output counts
 * only when the 105 that executed its call commits to exactly it (a discarded execution
 * can leave another output of the same call behind). Nothing is stored for it: it follows
 * the chain, rollbacks included.
 *
 * A confidential call's execution reads this state: `overlay` shows a state in which the
 * contract's data is its public data (what its CreateContract wrote) overwritten by its
 * confidential state.
 */
import { equalBytes } from '../../crypto/encoding.js';
import type { DataEntry } from '../../protocol/transactions/fields.js';
import { executedContractFor } from '../../state/executed-contract.js';
import type { ContractStateReader, TransactionReader } from '../../state/view.js';
import type { ContractExecutionView } from '../state.js';
import type { ConfidentialStorage } from './storage.js';

type Reads = Pick<ContractStateReader, 'executedTxFor'> & TransactionReader;

export class ConfidentialState {
  constructor(
    private readonly storage: ConfidentialStorage,
    /** The index of a transaction in the stored block at `height`; undefined when it is not there (the block being built). */
    private readonly indexInBlock: (height: number, txId: Uint8Array) => number | undefined,
  ) {}

  /** The contract's confidential entries in `view`, in the order their keys were first written. */
  entries(view: Reads, contractId: Uint8Array): DataEntry[] {
    const applied: Array<{ height: number; index: number; timestamp: bigint; entries: readonly DataEntry[] }> = [];
    for (const commitment of this.storage.outputsOf(contractId)) {
      const unit = this.storage.get('output', commitment);
      if (unit === undefined) continue;
      const executed = executedContractFor(view, unit.txId);
      if (executed === undefined || executed.data.outputCommitment === undefined) continue;
      if (!equalBytes(executed.data.outputCommitment, unit.commitment)) continue;
      const height = view.transactionHeight(executed.id);
      if (height === undefined) continue;
      applied.push({ height, index: this.indexInBlock(height, executed.id) ?? Infinity, timestamp: executed.timestamp, entries: unit.entries });
    }
    applied.sort((a, b) => a.height - b.height || a.index - b.index || (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
    const byKey = new Map<string, DataEntry>();
    for (const a of applied) for (const e of a.entries) byKey.set(e.key, e);
    return [...byKey.values()];
  }

  /** `view` with the contract's data overwritten by its confidential state. */
  overlay(view: ContractExecutionView & Reads, contractId: Uint8Array): ContractExecutionView {
    const confidential = new Map(this.entries(view, contractId).map((e) => [e.key, e]));
    const own = (id: Uint8Array): boolean => equalBytes(id, contractId);
    return new Proxy(view, {
      get(target, prop, receiver) {
        if (prop === 'contractData') {
          return (id: Uint8Array, key: string): DataEntry | undefined =>
            own(id) ? (confidential.get(key) ?? target.contractData(id, key)) : target.contractData(id, key);
        }
        if (prop === 'contractKeys') {
          return (id: Uint8Array): readonly string[] => {
            const keys = target.contractKeys(id);
            return own(id) ? [...keys, ...[...confidential.keys()].filter((k) => !keys.includes(k))] : keys;
          };
        }
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  }
}
