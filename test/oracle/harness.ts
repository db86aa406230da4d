/**
 * The official client libraries as an oracle for Weft's transaction bytes, ids and
 * signatures.
 *
 * - `tf2`: @wavesenterprise/transactions-factory 2.1.4 + crypto-utils 1.0.1 (waves crypto only).
 * - `tf1`: the factory 1.4.3 inside @wavesenterprise/js-sdk 3.4.7, with signature-generator
 *   2.3.2 (pinned by package.json overrides), in `waves` and `gost` crypto modes.
 *
 * A case gives the factory name, version and an arbitrary of the factory's input fields
 * (everything but `senderPublicKey`, `version`, `type`). For every generated input, in every
 * library and crypto mode that builds it, `checkCase` asserts that:
 *   1. Weft reads the signed JSON the library produced (the broadcast path), and its body
 *      bytes equal the library's bytes, byte for byte;
 *   2. Weft's id equals the library's id (or WE's own rule where the library differs);
 *   3. Weft accepts the library's signature;
 *   4. the library's verifier accepts Weft's signature over the same bytes;
 *   5. full bytes read back to the same transaction JSON.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { decodeBase58, encodeBase58 } from '../../src/crypto/encoding.js';
import type { CryptoType } from '../../src/crypto/suite.js';
import { parseJson, stringifyJson } from '../../src/protocol/json.js';
import { Protocol } from '../../src/protocol/protocol.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';

const require = createRequire(import.meta.url);

/* eslint-disable @typescript-eslint/no-explicit-any */
const tf2: any = require('@wavesenterprise/transactions-factory');
const cryptoUtils: any = require('@wavesenterprise/crypto-utils');
const sdkDir = require.resolve('@wavesenterprise/js-sdk/package.json').replace(/\/package\.json$/, '');
const tf1: any = require(`${sdkDir}/node_modules/@wavesenterprise/transactions-factory`);
const sg1: any = require(`${sdkDir}/node_modules/@wavesenterprise/signature-generator`);
/* eslint-enable @typescript-eslint/no-explicit-any */

export const CHAIN = 'T';
export const CHAIN_ID = CHAIN.charCodeAt(0);

export const PHRASES = [
  'examples seed phrase for testing only please ignore',
  'second seed phrase for testing only please ignore',
  'third seed phrase for testing only please ignore',
  'fourth seed phrase for testing only please ignore',
  'fifth seed phrase for testing only please ignore',
  'sixth seed phrase for testing only please ignore',
] as const;

export type Library = 'tf2' | 'tf1';
export type Mode = { library: Library; crypto: CryptoType };

export const MODES: readonly Mode[] = [
  { library: 'tf2', crypto: 'waves' },
  { library: 'tf1', crypto: 'waves' },
  { library: 'tf1', crypto: 'gost' },
];

export interface Account {
  readonly phrase: string;
  readonly publicKey: string;
  readonly privateKey: string;
  readonly address: string;
}

/** What an arbitrary may use: accounts valid in the current crypto mode, the chain, asset ids. */
export interface OracleEnv {
  readonly mode: Mode;
  readonly chain: string;
  readonly accounts: readonly Account[];
  readonly protocol: Protocol;
  /** Arbitrary Base58 32-byte id (asset, lease, contract, policy id…). */
  readonly id32: fc.Arbitrary<string>;
  /** An address of one of the accounts. */
  readonly address: fc.Arbitrary<string>;
  /** An address or an alias of this chain. */
  readonly recipient: fc.Arbitrary<string>;
}

export interface OracleCase {
  /** Factory name, e.g. `Transfer`. */
  readonly name: string;
  readonly type: number;
  readonly version: number;
  /** Which libraries build this (type, version); defaults to both. */
  readonly libraries?: readonly Library[];
  /** Input fields for the factory (no senderPublicKey/version/type). */
  readonly fields: (env: OracleEnv) => fc.Arbitrary<Record<string, unknown>>;
  /** WE's id when it is not the hash of the body (CreateAlias). */
  readonly expectedId?: (tx: Transaction, body: Record<string, unknown>) => string;
  /** Adjust the signed JSON before Weft reads it (e.g. keys the library leaves out). */
  readonly adjustJson?: (json: Record<string, unknown>, env: OracleEnv) => Record<string, unknown>;
  /**
   * Completes the generated fields for the chosen signer before the library builds the
   * transaction, asynchronously (e.g. Atomic signs its inner transactions with the library).
   */
  readonly prepare?: (fields: Record<string, unknown>, env: OracleEnv, signer: Account) => Promise<Record<string, unknown>>;
}

const protocols = new Map<CryptoType, Promise<Protocol>>();
export function protocolFor(crypto: CryptoType): Promise<Protocol> {
  let p = protocols.get(crypto);
  if (p === undefined) {
    p = Protocol.create({ crypto, chainId: CHAIN });
    protocols.set(crypto, p);
  }
  return p;
}

function setLegacyCrypto(crypto: CryptoType): void {
  // signature-generator 2.x keeps its crypto mode and network byte in a global config.
  sg1.config.set({ networkByte: CHAIN_ID, crypto });
}

async function accountsFor(mode: Mode, protocol: Protocol): Promise<Account[]> {
  const out: Account[] = [];
  for (const phrase of PHRASES) {
    if (mode.library === 'tf2') {
      const kp = await cryptoUtils.createKeys(phrase);
      out.push({
        phrase,
        publicKey: cryptoUtils.toBase58(kp.publicKey),
        privateKey: cryptoUtils.toBase58(kp.privateKey),
        address: cryptoUtils.toBase58(cryptoUtils.createAddress(kp.publicKey, CHAIN_ID)),
      });
    } else {
      setLegacyCrypto(mode.crypto);
      const seed = sg1.Seed.fromExistingPhrase(phrase);
      out.push({ phrase, publicKey: seed.keyPair.publicKey, privateKey: seed.keyPair.privateKey, address: seed.address });
    }
  }
  // The library's accounts must be Weft's accounts.
  for (const a of out) {
    const kp = protocol.crypto.keyPairFromSeedPhrase(a.phrase);
    assert.equal(encodeBase58(kp.publicKey), a.publicKey, `public key of '${a.phrase}' (${mode.library}/${mode.crypto})`);
    assert.equal(protocol.addresses.fromPublicKey(kp.publicKey).toString(), a.address, `address of '${a.phrase}'`);
  }
  return out;
}

const envs = new Map<string, Promise<OracleEnv>>();
export function envFor(mode: Mode): Promise<OracleEnv> {
  const key = `${mode.library}/${mode.crypto}`;
  let env = envs.get(key);
  if (env === undefined) {
    env = (async () => {
      const protocol = await protocolFor(mode.crypto);
      const accounts = await accountsFor(mode, protocol);
      const address = fc.constantFrom(...accounts.map((a) => a.address));
      const aliasName = fc.stringMatching(/^[-.0-9@_a-z]{4,30}$/);
      return {
        mode,
        chain: CHAIN,
        accounts,
        protocol,
        id32: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => encodeBase58(b)),
        address,
        recipient: fc.oneof(
          address,
          aliasName.map((n) => `alias:${CHAIN}:${n}`),
        ),
      };
    })();
    envs.set(key, env);
  }
  return env;
}

export interface Built {
  /** Body bytes as the library computes them (what is signed). */
  readonly body: Uint8Array;
  /** The library's id (Base58). */
  readonly id: string;
  /** The signed JSON the library's user would broadcast. */
  readonly json: Record<string, unknown>;
}

/** Builds and signs a transaction with the library of `mode`. */
export async function buildWithLibrary(mode: Mode, c: OracleCase, generated: Record<string, unknown>, signer: Account): Promise<Built> {
  const fields = c.prepare ? await c.prepare(generated, await envFor(mode), signer) : generated;
  if (mode.library === 'tf2') {
    const factory = tf2.TRANSACTIONS[c.name]?.[`V${c.version}`];
    assert.ok(factory, `transactions-factory 2.1.4 has no ${c.name}.V${c.version}`);
    const tx = factory({ ...fields, senderPublicKey: signer.publicKey });
    tx.setNetworkByte(CHAIN_ID);
    const body: Uint8Array = await tx.getBytes();
    const signature: string = cryptoUtils.createTransactionSignature(body, signer.privateKey);
    return { body, id: cryptoUtils.getTransactionId(body), json: { ...tx.getBody(), senderPublicKey: signer.publicKey, proofs: [signature] } };
  }
  setLegacyCrypto(mode.crypto);
  const factory = tf1.TRANSACTIONS[c.name]?.[`V${c.version}`];
  assert.ok(factory, `transactions-factory 1.4.3 has no ${c.name}.V${c.version}`);
  const tx = factory({ ...fields });
  const json = await tx.getSignedTx({ publicKey: signer.publicKey, privateKey: signer.privateKey });
  const body: Uint8Array = await tx.getSignatureBytes();
  const id: string = await tx.getId();
  return { body, id, json };
}

/** The library's own signature check. */
export function libraryVerifies(mode: Mode, publicKey: string, signature: Uint8Array, bytes: Uint8Array): boolean {
  const sig = encodeBase58(signature);
  if (mode.library === 'tf2') return cryptoUtils.isValidSignature(publicKey, sig, bytes) as boolean;
  setLegacyCrypto(mode.crypto);
  if (mode.crypto === 'gost') return sg1.utils.cryptoGost.verifySignature(publicKey, sig, bytes) as boolean;
  return sg1.utils.crypto.isValidSignature(bytes, sig, publicKey) as boolean;
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** Runs the five oracle assertions for one generated input. */
export async function checkCase(mode: Mode, c: OracleCase, fields: Record<string, unknown>, signerIndex = 0): Promise<void> {
  const env = await envFor(mode);
  const signer = env.accounts[signerIndex]!;
  const built = await buildWithLibrary(mode, c, fields, signer);
  const json = c.adjustJson ? c.adjustJson(built.json, env) : built.json;
  const p = env.protocol;
  // Through text, as a client's request would arrive.
  const tx = p.transactionFromJson(parseJson(JSON.stringify(json)));
  assert.equal(tx.type, c.type);
  assert.equal(tx.version, c.version);
  // What the library signs: the body bytes, except for Atomic (inner ids instead of inner bytes, no miner).
  assert.equal(hex(tx.proofSourceBytes), hex(built.body), `body bytes of ${c.name} V${c.version} (${mode.library}/${mode.crypto})`);
  const expectedId = c.expectedId ? c.expectedId(tx, json) : built.id;
  assert.equal(tx.idBase58, expectedId, 'id');
  assert.ok(tx.hasValidSenderSignature(), "Weft verifies the library's signature");
  const own = p.crypto.sign(p.crypto.keyPairFromSeedPhrase(signer.phrase).privateKey, tx.proofSourceBytes);
  assert.ok(libraryVerifies(mode, signer.publicKey, own, built.body), "the library verifies Weft's signature");
  const back = p.transactionFromBytes(tx.bytes);
  assert.equal(stringifyJson(back.toJson()), stringifyJson(tx.toJson()), 'binary round trip');
  assert.equal(hex(back.bytes), hex(tx.bytes), 'full bytes round trip');
  assert.deepEqual(decodeBase58(String((json['proofs'] as string[])[0])), tx.proofs[0]);
}

/** Default property-run count; raise with ORACLE_RUNS for a deeper run. */
export const ORACLE_RUNS = Number(process.env['ORACLE_RUNS'] ?? 25);

/** Registers node:test cases for every case × library × crypto mode it supports. */
export async function runCases(cases: readonly OracleCase[]): Promise<void> {
  const { describe, it } = await import('node:test');
  for (const c of cases) {
    describe(`${c.name} V${c.version} (type ${c.type})`, () => {
      for (const mode of MODES) {
        const libraries = c.libraries ?? ['tf2', 'tf1'];
        if (!libraries.includes(mode.library)) continue;
        it(`matches ${mode.library === 'tf2' ? 'transactions-factory 2.1.4' : 'js-sdk 3.4.7'} in ${mode.crypto} mode`, async () => {
          const env = await envFor(mode);
          await fc.assert(
            fc.asyncProperty(c.fields(env), fc.nat(PHRASES.length - 1), (fields, signer) => checkCase(mode, c, fields, signer)),
            { numRuns: ORACLE_RUNS, includeErrorInReport: true },
          );
        });
      }
    });
  }
}

/** Timestamps clients send: realistic, and safely below 2^53. */
export const timestampArb = fc.integer({ min: 1_559_260_800_000, max: 4_102_444_800_000 });
/** Amounts the libraries take as JS numbers without losing digits. */
export const amountArb = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER });
export const feeArb = fc.integer({ min: 0, max: 10_000_000_000 });
/** Base58 text of 0..n random bytes. */
export const base58BytesArb = (maxLength: number): fc.Arbitrary<string> => fc.uint8Array({ minLength: 0, maxLength }).map((b) => encodeBase58(b));
