/**
 * Client side of the end-to-end tests: transactions built and signed by the official
 * libraries exactly as a client application would (transactions-factory 2.1.4 with
 * crypto-utils, and the factory inside js-sdk 3.4.7 with signature-generator 2.3.2), the
 * broadcast/confirm round trip over HTTP, and a ledger of the balances the tests expect.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Answer, DevNode } from './support.js';
import { until } from './support.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const tf2: any = require('@wavesenterprise/transactions-factory');
const cryptoUtils: any = require('@wavesenterprise/crypto-utils');
const sdkDir = require.resolve('@wavesenterprise/js-sdk/package.json').replace(/\/package\.json$/, '');
const tf1: any = require(`${sdkDir}/node_modules/@wavesenterprise/transactions-factory`);
const sg1: any = require(`${sdkDir}/node_modules/@wavesenterprise/signature-generator`);
/* eslint-enable @typescript-eslint/no-explicit-any */

/** The dev chain's network byte ('T'). */
export const CHAIN_ID = 'T'.charCodeAt(0);
export const WEST = 100_000_000n;

export interface Signer {
  readonly seed: string;
  readonly publicKey: string;
  readonly privateKey: string;
  readonly address: string;
}

/** Keys and address of a seed phrase, as crypto-utils derives them (js-sdk derives the same). */
export async function signer(seed: string): Promise<Signer> {
  const kp = await cryptoUtils.createKeys(seed);
  const publicKey: string = cryptoUtils.toBase58(kp.publicKey);
  const address: string = cryptoUtils.toBase58(cryptoUtils.createAddress(kp.publicKey, CHAIN_ID));
  sg1.config.set({ networkByte: CHAIN_ID, crypto: 'waves' });
  assert.equal(sg1.Seed.fromExistingPhrase(seed).address, address, 'js-sdk and crypto-utils derive the same address');
  return { seed, publicKey, privateKey: cryptoUtils.toBase58(kp.privateKey), address };
}

/** A signed transaction as a client holds it before broadcasting. */
export interface Built {
  readonly library: 'transactions-factory 2.1.4' | 'js-sdk 3.4.7';
  /** The library's id (for CreateAlias the libraries hash the body; WE's id differs). */
  readonly id: string;
  /** The signed JSON to broadcast. */
  readonly json: Record<string, unknown>;
  readonly sender: Signer;
}

/**
 * Builds and signs with transactions-factory 2.1.4 + crypto-utils: proofs[i] is the
 * signature of `proofsBy[i]` (the sender alone by default; a scripted account's co-signers,
 * as a multisig client collects them).
 */
export async function tf2Build(
  name: string,
  version: number,
  fields: Record<string, unknown>,
  sender: Signer,
  proofsBy: readonly Signer[] = [sender],
): Promise<Built> {
  const factory = tf2.TRANSACTIONS[name]?.[`V${version}`];
  assert.ok(factory, `transactions-factory 2.1.4 has no ${name} V${version}`);
  const tx = factory({ ...fields, senderPublicKey: sender.publicKey });
  tx.setNetworkByte(CHAIN_ID);
  const body: Uint8Array = await tx.getBytes();
  const proofs: string[] = proofsBy.map((s) => cryptoUtils.createTransactionSignature(body, s.privateKey));
  return {
    library: 'transactions-factory 2.1.4',
    id: cryptoUtils.getTransactionId(body),
    json: { ...tx.getBody(), senderPublicKey: sender.publicKey, proofs },
    sender,
  };
}

/** Builds and signs with the factory of js-sdk 3.4.7 (signature-generator 2.3.2). */
export async function tf1Build(name: string, version: number, fields: Record<string, unknown>, sender: Signer): Promise<Built> {
  sg1.config.set({ networkByte: CHAIN_ID, crypto: 'waves' });
  const factory = tf1.TRANSACTIONS[name]?.[`V${version}`];
  assert.ok(factory, `js-sdk 3.4.7 has no ${name} V${version}`);
  const tx = factory({ ...fields });
  const json = await tx.getSignedTx({ publicKey: sender.publicKey, privateKey: sender.privateKey });
  return { library: 'js-sdk 3.4.7', id: await tx.getId(), json, sender };
}

/** Signs other bytes with a key (for forged proofs). */
export function signBytes(bytes: Uint8Array, privateKey: string): string {
  return cryptoUtils.createTransactionSignature(bytes, privateKey);
}

/** WE's CreateAlias id: fastHash(0x0A ‖ 0x02 ‖ chainId ‖ u16 length ‖ UTF-8 name), with crypto-utils' hash. */
export function aliasTxId(name: string): string {
  const nameBytes = Buffer.from(name, 'utf8');
  return cryptoUtils.getTransactionId(Uint8Array.from([0x0a, 0x02, CHAIN_ID, nameBytes.length >> 8, nameBytes.length & 0xff, ...nameBytes]));
}

/** A random 32-byte id in Base58. */
export function randomId(): string {
  return cryptoUtils.toBase58(Uint8Array.from(randomBytes(32)));
}

/** Client timestamps: the clock, strictly increasing so that no two built transactions coincide. */
export class Clock {
  private last = 0;
  next(): number {
    this.last = Math.max(Date.now(), this.last + 1);
    return this.last;
  }
}

export function describeAnswer(a: Answer): string {
  return `HTTP ${a.status}: ${a.text.slice(0, 2000)}`;
}

/** POST /transactions/broadcast; asserts 200 and that the node's id is the expected one. Returns the node's JSON. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function broadcast(node: DevNode, built: Built, expectedId: string = built.id): Promise<any> {
  const r = await node.post('/transactions/broadcast', built.json);
  assert.equal(r.status, 200, `broadcast of ${String(built.json['type'])} v${String(built.json['version'])} (${built.library}): ${describeAnswer(r)}`);
  assert.equal(r.json.id, expectedId, 'the node computes the id the client expects');
  return r.json;
}

/** Polls /transactions/info/{id} until the transaction has a height; returns the info JSON. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function confirmed(node: DevNode, id: string, timeoutMs = 20_000): Promise<any> {
  return until(
    `transaction ${id} to be confirmed`,
    async () => {
      const r = await node.get(`/transactions/info/${id}`);
      if (r.status === 200 && typeof r.json?.height === 'number') return r.json;
      if (r.status !== 404) throw new Error(`unexpected answer: ${describeAnswer(r)}`);
      return undefined;
    },
    timeoutMs,
    200,
  );
}

/** Asserts an error answer: HTTP status, WE error code and (part of) the message. */
export function assertError(r: Answer, status: number, code: number, message?: string | RegExp): void {
  assert.equal(r.status, status, describeAnswer(r));
  assert.equal(r.json?.error, code, describeAnswer(r));
  if (typeof message === 'string') assert.equal(r.json.message, message);
  else if (message !== undefined) assert.match(String(r.json.message), message);
}

/** Asserts that a transaction id is neither in the pool nor in the chain. */
export async function assertNowhere(node: DevNode, id: string): Promise<void> {
  const pooled = await node.get(`/transactions/unconfirmed/info/${id}`);
  assert.equal(pooled.status, 404, `not in the pool: ${describeAnswer(pooled)}`);
  assert.deepEqual(pooled.json, { status: 'error', details: 'Transaction is not in UTX' });
  const info = await node.get(`/transactions/info/${id}`);
  assert.equal(info.status, 404, `not in the chain: ${describeAnswer(info)}`);
  assert.deepEqual(info.json, { status: 'error', details: 'Transaction is not in blockchain' });
}

/** NG fee split: the block's miner gets ⌊fee/5⌋·2 at once, the next key block's miner the rest. */
export const minerShare = (fee: bigint): bigint => (fee / 5n) * 2n;

/**
 * The balances a test expects: WEST and asset units per address, from the amounts and
 * fees of what it sent. Fees are recorded per transaction id in WEST (a sponsored asset fee
 * counts 1:1), which is what the miners receive.
 */
export class Ledger {
  private readonly balances = new Map<string, bigint>();
  private readonly fees = new Map<string, bigint>();

  private static key(address: string, assetId: string | null): string {
    return `${address}/${assetId ?? 'WEST'}`;
  }

  balance(address: string, assetId: string | null = null): bigint {
    return this.balances.get(Ledger.key(address, assetId)) ?? 0n;
  }

  add(address: string, assetId: string | null, amount: bigint): void {
    const key = Ledger.key(address, assetId);
    this.balances.set(key, (this.balances.get(key) ?? 0n) + amount);
  }

  move(from: string, to: string, assetId: string | null, amount: bigint): void {
    this.add(from, assetId, -amount);
    this.add(to, assetId, amount);
  }

  /** The payer's fee of transaction `id`: WEST, or a sponsored asset whose issuer pays the WEST. */
  fee(id: string, payer: string, fee: bigint, sponsored?: { assetId: string; issuer: string }): void {
    assert.ok(!this.fees.has(id), `fee of ${id} recorded twice`);
    if (sponsored === undefined) {
      this.add(payer, null, -fee);
    } else {
      this.move(payer, sponsored.issuer, sponsored.assetId, fee);
      this.add(sponsored.issuer, null, -fee);
    }
    this.fees.set(id, fee);
  }

  /** WEST fee a transaction gives the miners (0 for ones this ledger did not record). */
  minerFee(id: string): bigint {
    return this.fees.get(id) ?? 0n;
  }

  totalFees(): bigint {
    let sum = 0n;
    for (const f of this.fees.values()) sum += f;
    return sum;
  }

  /** Every (address, asset, amount) the ledger holds. */
  entries(): Array<{ address: string; assetId: string | null; amount: bigint }> {
    return [...this.balances].map(([key, amount]) => {
      const [address, asset] = key.split('/') as [string, string];
      return { address, assetId: asset === 'WEST' ? null : asset, amount };
    });
  }
}
