/**
 * The contract validators of the current key block (WE's lastBlockContractValidators;
 * reference contracts.md §1.8): the holders of `contract_validator` at the key block's
 * timestamp, read once per key block instead of for every validator result a peer sends
 * and every validating round. The set is read again when the chain changes what it can
 * be: a new key block (its id differs), a rollback, or a micro-block that may grant or
 * revoke a role (a permission transaction, or an atomic container that may hold one).
 */
import type { Blockchain, ChainEvent } from '../chain/blockchain.js';
import { equalBytes } from '../crypto/encoding.js';
import { isAtomic } from '../protocol/transactions/atomic.js';
import { Permit } from '../protocol/transactions/permissions.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import { contractValidators } from '../state/appliers/contracts.js';
import { MutableState } from '../state/view.js';

/** A Permit (102) is the only transaction that grants or revokes roles after genesis (an atomic may hold one). */
const mayChangeRoles = (tx: Transaction): boolean => Permit.is(tx) || isAtomic(tx);

export class KeyBlockValidators {
  private cached: { readonly keyBlockId: Uint8Array; readonly addresses: ReadonlySet<string> } | undefined;

  constructor(private readonly chain: Blockchain) {}

  /** Addresses (Base58) holding `contract_validator` at the current key block. */
  addresses(): ReadonlySet<string> {
    const { chain } = this;
    const keyBlock = chain.headerAt(chain.height());
    if (this.cached === undefined || !equalBytes(this.cached.keyBlockId, keyBlock.id)) {
      const holders = contractValidators(new MutableState(chain.state()), keyBlock.timestamp);
      this.cached = { keyBlockId: keyBlock.id, addresses: new Set(holders.map((a) => chain.protocol.addresses.addressFromBytes(a).toString())) };
    }
    return this.cached.addresses;
  }

  /** Whether the address of `publicKey` is a validator of the current key block. */
  holds(publicKey: Uint8Array): boolean {
    return this.addresses().has(this.chain.protocol.addresses.fromPublicKey(publicKey).toString());
  }

  /** Forgets the set when `event` may have changed it (a new key block is told apart by its id). */
  chainChanged(event: ChainEvent): void {
    if (event.kind === 'rollback' || (event.kind === 'micro-block' && event.transactions.some(mayChangeRoles))) this.cached = undefined;
  }

  /** Forgets the set (the chain changed while nobody was told). */
  forget(): void {
    this.cached = undefined;
  }
}
