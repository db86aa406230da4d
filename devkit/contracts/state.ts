/**
 * A contract state for tests: the node's MutableState (contract state included) over a
 * real, empty, temporary Store.
 */
import type { Protocol } from '../../src/protocol/protocol.js';
import { Store } from '../../src/state/store.js';
import { MutableState } from '../../src/state/view.js';
import { tempDir } from '../tmp.js';

export class ContractTestState extends MutableState {
  constructor(
    readonly store: Store,
    height = 2,
  ) {
    super(store, height);
  }

  /** A state over an empty store in `directory` (tempDir() when not given). */
  static create(protocol: Protocol, directory: string = tempDir('weft-contract-state-'), height = 2): ContractTestState {
    return new ContractTestState(Store.open(directory, protocol), height);
  }
}
