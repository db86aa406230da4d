/**
 * Protocol figures: signature verification, transfer serialization + id,
 * reading a transfer's JSON and writing the reply — each against the bare primitive underneath.
 */
import { createPublicKey, verify as nativeVerify, type KeyObject } from 'node:crypto';
import { createBLAKE2b } from 'hash-wasm';
import { ed25519 } from '@noble/curves/ed25519.js';
import { encodeBase58 } from '../src/crypto/encoding.js';
import { parseJson, stringifyJson } from '../src/protocol/json.js';
import { Protocol } from '../src/protocol/protocol.js';
import { Transfer, type TransferData } from '../src/protocol/transactions/transfer.js';
import { compareRates, type Figure } from './harness.js';

export async function protocolFigures(): Promise<Figure[]> {
  const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
  const figures: Figure[] = [];

  // A pool of distinct senders and signed transfers, as a block or the pool would see them.
  const KEYS = 64;
  const senders = Array.from({ length: KEYS }, (_, i) => p.crypto.keyPairFromSeedPhrase(`bench sender ${i} seed phrase`));
  const recipient = p.addresses.fromPublicKey(senders[0]!.publicKey);
  const signed = senders.map((kp, i) => {
    const data: TransferData = {
      senderPublicKey: kp.publicKey,
      assetId: null,
      feeAssetId: null,
      timestamp: 1_700_000_000_000n + BigInt(i),
      amount: 100_000_000n + BigInt(i),
      fee: 1_000_000n,
      recipient,
      attachment: new Uint8Array(0),
      atomicBadge: null,
    };
    return p.sign(p.transaction(Transfer, 3, data), kp.privateKey);
  });

  // 1. Signature verification: Weft's verify (Montgomery key → cached native Ed25519 key)
  //    vs node:crypto Ed25519 verify with ready-made Edwards keys of the same signers.
  const messages = signed.map((tx) => tx.proofSourceBytes);
  const sigs = signed.map((tx) => tx.proofs[0]!);
  const edKeys = senders.map((kp) => edwardsKeyObject(kp.privateKey));
  const clearedSigs = sigs.map(clearedSignBit);
  let k = 0;
  let okCount = 0;
  figures.push(
    compareRates(
      'signature.verify',
      'node:crypto Ed25519 verify/s',
      () => {
        const i = k++ % KEYS;
        if (p.crypto.verify(senders[i]!.publicKey, messages[i]!, sigs[i]!)) okCount++;
      },
      () => {
        const i = k++ % KEYS;
        if (nativeVerify(null, messages[i]!, edKeys[i]!, clearedSigs[i]!)) okCount++;
      },
      { unit: 'verify/s', target: 0.9 },
    ),
  );
  if (okCount === 0) throw new Error('no signature verified');

  // 2. Transfer body serialization + id vs bare Blake2b-256 of a transfer body.
  const blake = await createBLAKE2b(256);
  const body = signed[0]!.bodyBytes;
  const datas = signed.map((tx) => tx.data);
  let sink = 0;
  figures.push(
    compareRates(
      'transfer.serialize+id',
      'hash-wasm Blake2b-256/s',
      () => {
        const tx = p.transaction(Transfer, 3, datas[k++ % KEYS]!);
        sink ^= tx.id[0]!;
      },
      () => {
        blake.init();
        blake.update(body);
        sink ^= blake.digest('binary')[0]!;
      },
      { unit: 'tx/s' },
    ),
  );

  // 3. Reading a transfer's JSON: int64-exact parse alone, and parse + typed transaction,
  //    each vs JSON.parse of the same text.
  const texts = signed.map((tx) =>
    JSON.stringify({ ...(JSON.parse(JSON.stringify(tx.toJson(), (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v))) as object) }),
  );
  figures.push(
    compareRates(
      'transfer.json.parse',
      'JSON.parse/s',
      () => {
        const v = parseJson(texts[k++ % KEYS]!) as { fee: number };
        sink ^= v.fee;
      },
      () => {
        const v = JSON.parse(texts[k++ % KEYS]!) as { fee: number };
        sink ^= v.fee;
      },
      { unit: 'parse/s' },
    ),
  );
  figures.push(
    compareRates(
      'transfer.json.read',
      'JSON.parse/s',
      () => {
        const tx = p.transactionFromJson(parseJson(texts[k++ % KEYS]!));
        sink ^= Number(tx.fee & 1n);
      },
      () => {
        const v = JSON.parse(texts[k++ % KEYS]!) as { fee: number };
        sink ^= v.fee;
      },
      { unit: 'tx/s' },
    ),
  );
  // 4. What /transactions/broadcast does with JSON: the request read into a transaction and
  //    the reply written from it, vs JSON.parse + JSON.stringify of the same text.
  figures.push(
    compareRates(
      'transfer.json.read+write',
      'JSON.parse+stringify/s',
      () => {
        const tx = p.transactionFromJson(parseJson(texts[k++ % KEYS]!));
        sink ^= stringifyJson(tx.toJson()).length;
      },
      () => {
        sink ^= JSON.stringify(JSON.parse(texts[k++ % KEYS]!)).length;
      },
      { unit: 'tx/s' },
    ),
  );
  if (sink === -1) console.log(encodeBase58(new Uint8Array([sink])));
  return figures;
}

function leScalar(b: Uint8Array): bigint {
  let x = 0n;
  for (let i = b.length - 1; i >= 0; i--) x = (x << 8n) | BigInt(b[i]!);
  return x;
}

/** The native Ed25519 public key of a Curve25519 private key: what Weft's suite derives and caches. */
export function edwardsKeyObject(privateKey: Uint8Array): KeyObject {
  const A = ed25519.Point.BASE.multiply(leScalar(privateKey) % ed25519.Point.Fn.ORDER).toBytes();
  return createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), A]), format: 'der', type: 'spki' });
}

/** A Curve25519 signature as native Ed25519 verification takes it (sign bit cleared). */
export function clearedSignBit(signature: Uint8Array): Buffer {
  const c = Buffer.from(signature);
  c[63] = c[63]! & 0x7f;
  return c;
}
