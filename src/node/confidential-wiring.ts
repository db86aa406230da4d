/**
 * Confidential smart contracts in a running node: the storage of confidential inputs and
 * outputs (an LMDB environment at `node.confidential-contracts.data-directory`, by default
 * `<node data directory>/confidential-data`), the miner's
 * confidential execution, replication among the group over the P2P network (messages
 * 52–55), and the service behind `/confidential-contracts/*`. The storage and the miner's
 * part exist from the start (the miner is built before the network); replication and the
 * REST service once the network and the node's transaction path exist (`connect`).
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Blockchain } from '../chain/blockchain.js';
import { equalBytes } from '../crypto/encoding.js';
import type { KeyPair } from '../crypto/suite.js';
import { transportEncryptionFor } from '../crypto/transport-encryption.js';
import type { Protocol } from '../protocol/protocol.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import type { ConfidentialDataType, ConfidentialDataUnit } from '../contracts/confidential/data.js';
import { ConfidentialExecution } from '../contracts/confidential/execution.js';
import { ConfidentialReplication, type ConfidentialPeers } from '../contracts/confidential/replication.js';
import { ConfidentialContractsService, type ConfidentialContractsApi } from '../contracts/confidential/service.js';
import type { ConfidentialContractsSettings } from '../contracts/confidential/settings.js';
import { ConfidentialState } from '../contracts/confidential/state.js';
import { ConfidentialStorage } from '../contracts/confidential/storage.js';

export interface NodeConfidentialOptions {
  /** Where the inputs and outputs are kept (`node.confidential-contracts.data-directory`). */
  readonly directory: string;
  readonly protocol: Protocol;
  readonly chain: Blockchain;
  readonly owner: KeyPair;
  readonly log: Logger;
  /** Commitment keys; crypto-strong random bytes by default. */
  readonly random?: (n: number) => Uint8Array;
  /** `node.confidential-contracts` replication settings (absent: WE's defaults). */
  readonly settings?: ConfidentialContractsSettings;
}

export class NodeConfidentialContracts {
  readonly storage: ConfidentialStorage;
  readonly execution: ConfidentialExecution;
  private readonly state: ConfidentialState;
  private replication: ConfidentialReplication | undefined;
  private service: ConfidentialContractsService | undefined;
  private stopWatchingChain: (() => void) | undefined;

  constructor(private readonly o: NodeConfidentialOptions) {
    this.storage = ConfidentialStorage.open(o.directory, o.protocol);
    this.state = new ConfidentialState(this.storage, (height, txId) => {
      const index = o.chain.blockAt(height)?.transactions.findIndex((t) => equalBytes(t.id, txId)) ?? -1;
      return index < 0 ? undefined : index;
    });
    this.execution = new ConfidentialExecution({
      protocol: o.protocol,
      storage: this.storage,
      confidentialState: this.state,
      ownerAddress: o.protocol.addresses.fromPublicKey(o.owner.publicKey).bytes,
      announce: (type, unit) => this.announce(type, unit),
      missingOutputs: (contractId) => this.replication?.missingOutputs(contractId) ?? false,
    });
  }

  private announce(type: ConfidentialDataType, unit: ConfidentialDataUnit): void {
    this.replication?.announce(type, unit);
  }

  /** Starts replication over `peers` (none without a network) and the REST service over the node's way to send transactions. */
  connect(peers: ConfidentialPeers | undefined, broadcast: (tx: Transaction) => Promise<unknown>): void {
    const { protocol, chain, owner } = this.o;
    if (peers !== undefined) {
      this.replication = new ConfidentialReplication({
        protocol,
        storage: this.storage,
        owner,
        state: () => chain.state(),
        peers,
        transport: transportEncryptionFor(protocol.crypto.type),
        log: this.o.log,
        ...(this.o.settings === undefined ? {} : { settings: this.o.settings }),
      });
      this.replication.start();
      const replication = this.replication;
      this.stopWatchingChain = chain.on((e) => {
        if (e.kind === 'block') replication.noteTransactions(e.block.transactions);
        else if (e.kind === 'micro-block') replication.noteTransactions(e.transactions);
        else if (e.kind === 'rollback') replication.noteRollback(e.removed);
      });
    }
    this.service = new ConfidentialContractsService({
      protocol,
      storage: this.storage,
      owner,
      state: () => chain.state(),
      confidentialState: this.state,
      broadcast,
      announce: (type, unit) => this.announce(type, unit),
      random: this.o.random ?? ((n) => new Uint8Array(randomBytes(n))),
    });
  }

  /** For ApiServices.confidentialContracts (after `connect`). */
  get api(): ConfidentialContractsApi | undefined {
    return this.service;
  }

  async close(): Promise<void> {
    this.stopWatchingChain?.();
    this.replication?.stop();
    await this.storage.close();
  }
}
