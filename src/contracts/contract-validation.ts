/**
 * Validation policies on a node that runs contracts (reference contracts.md §1.8): the
 * store of validators' results and the miner's gate over it (given to ContractMining), and
 * — once the network is up — this node's own validating rounds and the P2P side of
 * message 32. A result from a peer is kept when its signature holds, its sender holds
 * `contract_validator` at the last block and its transaction is in the pool (WE's
 * ContractValidatorResultsHandler); a new one is passed on to the other peers and wakes
 * the miner. Bytes that do not parse close that peer (the transport's rule). Validating
 * rounds follow the pool's admissions and the chain's changes (no polling); the validator
 * set is read once per key block (validator-set.ts).
 */
import type { Logger } from 'pino';
import type { Blockchain } from '../chain/blockchain.js';
import type { UtxPool } from '../chain/utx.js';
import { encodeBase58 } from '../crypto/encoding.js';
import type { KeyPair } from '../crypto/suite.js';
import type { ContractEngine } from './engine.js';
import { ContractValidating } from './validating.js';
import { ValidationGate } from './validation-gate.js';
import {
  decodeValidatorResult,
  decodeValidatorResultV2,
  encodeValidatorResult,
  encodeValidatorResultV2,
  refusalOf,
  ValidatorResultsStore,
  type ContractValidatorResult,
} from './validator-results.js';
import { KeyBlockValidators } from './validator-set.js';
import type { ConfidentialExecution } from './confidential/execution.js';
import type { ContractNodeContext } from './state.js';

/** Results kept by a node at most, and for how long (a key block lasts well under it). */
const MAX_VALIDATOR_RESULTS = 100_000;
const VALIDATOR_RESULTS_EXPIRE_MS = 10 * 60 * 1000;

/**
 * The peers' side of one results message (the network's ContractValidatorResultMessages,
 * code 32, and ContractValidatorResultV2Messages, code 56): the bytes a peer sent, and
 * sending bytes to every peer but the one they came from.
 */
export interface ValidatorResultChannel<Peer extends { readonly id: number }> {
  onMessage(listener: (payload: Uint8Array, from: Peer) => void): () => void;
  broadcast(payload: Uint8Array, except?: Peer): number;
}

export interface ContractValidation {
  readonly store: ValidatorResultsStore;
  readonly gate: ValidationGate;
  readonly validating: ContractValidating;
  /** Starts validating and exchanging results over `peers` (V1) and `confidentialPeers` (V2, message 56); returns the function that stops it. */
  start<Peer extends { readonly id: number }>(
    peers: ValidatorResultChannel<Peer>,
    resultArrived: () => void,
    confidentialPeers?: ValidatorResultChannel<Peer>,
  ): () => void;
}

export interface ContractValidationOptions {
  readonly chain: Blockchain;
  readonly pool: UtxPool;
  readonly engine: ContractEngine;
  readonly owner: KeyPair;
  readonly now: () => bigint;
  /** What contracts learn about blocks, the wallet and time from the node. */
  readonly node: ContractNodeContext;
  readonly log: Logger;
  /** Confidential calls: validated by a group participant holding their input (absent: not validated). */
  readonly confidential?: ConfidentialExecution;
}

export function contractValidation(o: ContractValidationOptions): ContractValidation {
  const { chain, pool, log } = o;
  const protocol = chain.protocol;
  const store = new ValidatorResultsStore({ protocol, now: o.now, maxResults: MAX_VALIDATOR_RESULTS, expireAfterMs: VALIDATOR_RESULTS_EXPIRE_MS });
  const validators = new KeyBlockValidators(chain);
  const gate = new ValidationGate({
    protocol,
    store,
    validators,
    minerAddress: protocol.addresses.fromPublicKey(o.owner.publicKey).toString(),
    isFeatureActive: (id, height) => chain.features.isActive(id, height),
  });
  let out: ((payload: Uint8Array) => void) | undefined;
  let outV2: ((payload: Uint8Array) => void) | undefined;
  const validating = new ContractValidating({
    chain,
    pool,
    executor: o.engine.executor,
    statuses: o.engine.statuses,
    validatorKey: o.owner,
    node: o.node,
    validators,
    now: o.now,
    send: (result) => (result.confidential === undefined ? out?.(encodeValidatorResult(protocol, result)) : outV2?.(encodeValidatorResultV2(protocol, result))),
    log,
    ...(o.confidential === undefined ? {} : { confidential: o.confidential }),
  });
  return {
    store,
    gate,
    validating,
    start(peers, resultArrived, confidentialPeers) {
      out = (payload) => peers.broadcast(payload);
      outV2 = confidentialPeers === undefined ? undefined : (payload) => confidentialPeers.broadcast(payload);
      const listen = (channel: typeof peers, decode: (payload: Uint8Array) => ContractValidatorResult): (() => void) =>
        channel.onMessage((payload, from) => {
          const result = decode(payload);
          const why = refusalOf(protocol, result, { isValidator: (publicKey) => validators.holds(publicKey), inPool: (txId) => pool.get(txId) !== undefined });
          if (why !== undefined) {
            log.debug({ peer: from.id, txId: encodeBase58(result.txId), why }, 'contract validator results dropped');
            return;
          }
          if (!store.add(result)) return;
          channel.broadcast(payload, from);
          resultArrived();
        });
      const stopV1 = listen(peers, (payload) => decodeValidatorResult(protocol, payload));
      const stopV2 = confidentialPeers === undefined ? () => undefined : listen(confidentialPeers, (payload) => decodeValidatorResultV2(protocol, payload));
      const stopListening = (): void => {
        stopV1();
        stopV2();
      };
      // The set is read afresh before a round looks at it (a round runs up to its first await at once).
      const stopChain = chain.on((event) => {
        validators.chainChanged(event);
        validating.chainChanged(event);
      });
      const stopPool = pool.onAdmission((tx) => validating.admitted(tx));
      validators.forget();
      validating.collectFromPool();
      void validating.trigger();
      return () => {
        stopPool();
        stopChain();
        stopListening();
        out = undefined;
        outV2 = undefined;
      };
    },
  };
}
