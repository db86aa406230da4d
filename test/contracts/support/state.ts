/**
 * A contract state for tests: the node's MutableState over a real (empty, temporary)
 * Store, with the contract state the chain is to add next to it (ContractStateReader /
 * ContractStateWriter) kept in maps, and the two listings ContractExecutionView adds.
 */
import type { DataEntry } from '../../../src/protocol/transactions/fields.js';
import type { Protocol } from '../../../src/protocol/protocol.js';
import type { ContractInfo } from '../../../src/contracts/model.js';
import type { ContractExecutionView, ContractStateReader, ContractStateWriter } from '../../../src/contracts/state.js';
import { Store } from '../../../src/state/store.js';
import { MutableState } from '../../../src/state/view.js';
import { tempDir } from '../../support/tmp.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

export class ContractTestState extends MutableState implements ContractStateReader, ContractStateWriter, ContractExecutionView {
  private readonly contracts = new Map<string, ContractInfo>();
  private readonly data = new Map<string, Map<string, DataEntry>>();
  private readonly executed = new Map<string, Uint8Array>();

  constructor(
    private readonly store: Store,
    height = 2,
  ) {
    super(store, height);
  }

  /** A state over an empty store in `directory` (tempDir() when not given). */
  static create(protocol: Protocol, directory: string = tempDir('weft-contract-state-'), height = 2): ContractTestState {
    return new ContractTestState(Store.open(directory, protocol), height);
  }

  contract(contractId: Uint8Array): ContractInfo | undefined {
    return this.contracts.get(hex(contractId));
  }

  contractIds(): readonly Uint8Array[] {
    return [...this.contracts.values()].map((c) => c.contractId);
  }

  contractData(contractId: Uint8Array, key: string): DataEntry | undefined {
    return this.data.get(hex(contractId))?.get(key);
  }

  contractKeys(contractId: Uint8Array): readonly string[] {
    return [...(this.data.get(hex(contractId))?.keys() ?? [])].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  }

  executedTxFor(txId: Uint8Array): Uint8Array | undefined {
    return this.executed.get(hex(txId));
  }

  putContract(info: ContractInfo): void {
    this.contracts.set(hex(info.contractId), info);
  }

  putContractData(contractId: Uint8Array, entry: DataEntry): void {
    let m = this.data.get(hex(contractId));
    if (m === undefined) {
      m = new Map();
      this.data.set(hex(contractId), m);
    }
    m.set(entry.key, entry);
  }

  putExecutedTxFor(txId: Uint8Array, executedTxId: Uint8Array): void {
    this.executed.set(hex(txId), executedTxId);
  }

  dataEntries(address: Uint8Array): readonly DataEntry[] {
    return this.store.dataEntries(address);
  }

}
