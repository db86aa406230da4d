/** Transfers signed here for tests that broadcast them to node processes over REST. */
import type { DevAccount } from '../../src/cli/dev.js';
import { stringifyJson } from '../../src/protocol/json.js';
import type { Protocol } from '../../src/protocol/protocol.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { Transfer } from '../../src/protocol/transactions/transfer.js';

/** A WEST transfer (v3, fee 0.01) from one dev account to another, signed, with its id and REST JSON text. */
export function signedTransfer(p: Protocol, from: DevAccount, to: DevAccount, amount: bigint, timestamp: bigint): { id: string; body: string } {
  const tx = signedTransferTx(p, from, to, amount, timestamp);
  return { id: tx.idBase58, body: stringifyJson(tx.toJson()) };
}

/** signedTransfer's transaction itself. */
export function signedTransferTx(p: Protocol, from: DevAccount, to: DevAccount, amount: bigint, timestamp: bigint): Transaction {
  return p.sign(
    p.transaction(Transfer, 3, {
      senderPublicKey: from.keyPair.publicKey,
      assetId: null,
      feeAssetId: null,
      timestamp,
      amount,
      fee: 1_000_000n,
      recipient: p.addresses.parseAddress(to.address),
      attachment: new Uint8Array(0),
      atomicBadge: null,
    }),
    from.keyPair.privateKey,
  );
}
