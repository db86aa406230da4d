/**
 * Contract validators' results over the peers (WE's ContractValidatorResultsV1, code 32):
 * the sibling of contract-status-messages.ts. This file only carries the bytes; the node
 * wires it to src/contracts (validator-results.ts decodes them, checks the signature and
 * that the sender is a validator, and keeps them for the miner). A validator sends its
 * results to every peer; a node that takes a new result passes it on to its other peers
 * (WE's ContractValidatorResultsHandler), so it reaches the miner of the moment.
 */
import { ContractMessageChannel } from './contract-status-messages.js';
import { MessageCode, type Peer } from './types.js';

export class ContractValidatorResultMessages extends ContractMessageChannel {
  constructor(peers: () => readonly Peer[]) {
    super(peers, MessageCode.ContractValidatorResults);
  }
}

/** The confidential calls' results (WE's ContractValidatorResultsV2, code 56), routed the same way. */
export class ContractValidatorResultV2Messages extends ContractMessageChannel {
  constructor(peers: () => readonly Peer[]) {
    super(peers, MessageCode.ContractValidatorResultsV2);
  }
}
