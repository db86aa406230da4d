/**
 * A chain on a real Store for applier and pipeline tests: genesis transactions applied and
 * committed at height 1, then one "block" per applied transaction (or group), with
 * transactions built from request JSON and signed like a client would.
 */
import assert from 'node:assert/strict';
import type { Address } from '../../src/crypto/address.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import type { KeyPair } from '../../src/crypto/suite.js';
import { genesisTransactions, type GenesisParticipant, type GenesisSettings } from '../../src/protocol/blocks/genesis-block.js';
import { Protocol } from '../../src/protocol/protocol.js';
import type { RoleName } from '../../src/protocol/transactions/permissions.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { PreActivatedFeatures, type FeatureView } from '../../src/chain/features.js';
import { DEFAULT_FEES, IMPLEMENTED_FEATURES, type ChainSettings, type FeeSettings } from '../../src/chain/settings.js';
import { ScriptVerifier } from '../../src/chain/scripts/verifier.js';
import { applyTransaction, type AppliedTransaction, type TxContext } from '../../src/chain/validation.js';
import { Store } from '../../src/state/store.js';
import { MutableState } from '../../src/state/view.js';
import { tempDir } from '../tmp.js';
import { WeError } from '../../src/errors/catalogue.js';

export const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
export const scripts = await ScriptVerifier.create(p);

export const WEST = 100_000_000n;
export const GENESIS_TS = 1_700_000_000_000n;
/** Block times: one second apart. */
export const blockTime = (height: number): bigint => GENESIS_TS + BigInt(height - 1) * 1000n;

export interface Account {
  readonly keyPair: KeyPair;
  readonly publicKey: Uint8Array;
  readonly address: Address;
  readonly bytes: Uint8Array;
  readonly b58: string;
}

export function account(seed: string): Account {
  const keyPair = p.crypto.keyPairFromSeedPhrase(seed);
  const address = p.addresses.fromPublicKey(keyPair.publicKey);
  return { keyPair, publicKey: keyPair.publicKey, address, bytes: address.bytes, b58: address.toString() };
}

/** root: every role; alice, bob: none; carol: miner + permissioner + connection_manager; dave: registered, no role. */
export const root = account('weft validation root');
export const alice = account('weft validation alice');
export const bob = account('weft validation bob');
export const carol = account('weft validation carol');
export const dave = account('weft validation dave');
/** Not in genesis at all. */
export const eve = account('weft validation eve');

export const ROOT_ROLES: RoleName[] = ['miner', 'issuer', 'permissioner', 'blacklister', 'contract_developer', 'connection_manager'];

export interface ChainOptions {
  readonly fees?: FeeSettings;
  /** Feature id → activation height; default: every implemented feature at 0. */
  readonly features?: ReadonlyMap<number, number>;
  readonly featureCheckBlocksPeriod?: number;
  readonly senderRoleEnabled?: boolean;
  readonly participants?: readonly GenesisParticipant[];
  readonly balances?: ReadonlyArray<readonly [Account, bigint]>;
  /** Where the store lives; by default a temporary directory removed when the test file ends (the caller removes one it gives). */
  readonly directory?: string;
}

export function allFeaturesAt(height: number): Map<number, number> {
  return new Map([...IMPLEMENTED_FEATURES.keys()].map((id) => [id, height]));
}

export function chainSettings(o: ChainOptions = {}): ChainSettings {
  const withSender = (roles: RoleName[]): RoleName[] => (o.senderRoleEnabled === true ? [...roles, 'sender'] : roles);
  const balances = o.balances ?? [
    [root, 1_000_000n * WEST],
    [alice, 1_000n * WEST],
    [bob, 10n * WEST],
    [carol, 100n * WEST],
  ];
  const genesis: GenesisSettings = {
    version: 2,
    blockTimestamp: GENESIS_TS,
    initialBalance: balances.reduce((s, [, a]) => s + a, 0n),
    initialBaseTarget: 0n,
    genesisPublicKey: null,
    signature: null,
    transactions: balances.map(([a, amount]) => ({ recipient: a.address, amount })),
    networkParticipants: o.participants ?? [
      { publicKey: root.publicKey, roles: withSender(ROOT_ROLES) },
      { publicKey: carol.publicKey, roles: withSender(['miner', 'permissioner', 'connection_manager']) },
      { publicKey: dave.publicKey, roles: withSender([]) },
    ],
    senderRoleEnabled: o.senderRoleEnabled ?? false,
  };
  return {
    crypto: 'waves',
    chainId: 'T',
    consensus: { type: 'poa', roundDurationMs: 5000, syncDurationMs: 1000, banDurationBlocks: 10, warningsForBan: 3, maxBansPercentage: 50 },
    genesis,
    fees: o.fees ?? DEFAULT_FEES,
    functionality: {
      featureCheckBlocksPeriod: o.featureCheckBlocksPeriod ?? 2,
      blocksForFeatureActivation: 1,
      preActivatedFeatures: o.features ?? allFeaturesAt(0),
    },
    maxRollbackDepth: 100,
  };
}

/** A transaction's request JSON, signed by `signer` (sender and timestamp filled in unless given). */
export type TxJson = Record<string, unknown>;

export class TestChain {
  private tsCounter = 0n;

  private constructor(
    readonly store: Store,
    readonly settings: ChainSettings,
    readonly features: FeatureView,
  ) {}

  static open(o: ChainOptions = {}): TestChain {
    const settings = chainSettings(o);
    const chain = new TestChain(Store.open(o.directory ?? tempDir('weft-validation-'), p), settings, PreActivatedFeatures.fromSettings(settings.functionality));
    const state = new MutableState(chain.store);
    const ctx = chain.ctx({ height: 1, blockTimestamp: GENESIS_TS, lastBlockTimestamp: undefined });
    for (const tx of genesisTransactions(p, settings.genesis)) applyTransaction(state, tx, ctx, { verifySignature: false });
    chain.commit(1, state);
    return chain;
  }

  /** Height the next block gets. */
  get nextHeight(): number {
    return this.store.height() + 1;
  }

  /** Context of the next block. */
  ctx(over: Partial<TxContext> = {}): TxContext {
    const height = over.height ?? this.nextHeight;
    return {
      settings: this.settings,
      features: this.features,
      height,
      blockTimestamp: blockTime(height),
      lastBlockTimestamp: height > 1 ? blockTime(height - 1) : undefined,
      now: blockTime(height),
      txExpireTimeoutMs: 2 * 60 * 60 * 1000,
      scripts,
      ...over,
    };
  }

  /** A fresh timestamp inside the next block's window (distinct for every call). */
  ts(): bigint {
    this.tsCounter += 1n;
    return blockTime(this.nextHeight) - 500n + this.tsCounter;
  }

  /** Builds and signs a transaction from request JSON (Data: the signer is the author unless given). */
  tx(signer: Account, json: TxJson): Transaction {
    const author = json['type'] === 12 ? { authorPublicKey: encodeBase58(signer.publicKey) } : {};
    const body: TxJson = { senderPublicKey: encodeBase58(signer.publicKey), timestamp: this.ts(), proofs: [], ...author, ...json };
    const unsigned = p.transactionFromJson(body, { forBroadcast: false });
    return p.sign(unsigned, signer.keyPair.privateKey);
  }

  commit(height: number, state: MutableState): void {
    const id = new Uint8Array(64);
    new DataView(id.buffer).setUint32(0, height);
    this.store.commit({
      height,
      blockBytes: Uint8Array.of(height & 0xff),
      blockIds: [{ id, transactionCount: 0 }],
      headerBytes: Uint8Array.of(height & 0xff),
      changes: state.changes(),
    });
  }

  /** Applies transactions as one block at the next height and commits it. */
  block(txs: readonly Transaction[], over: Partial<TxContext> = {}): AppliedTransaction[] {
    const state = new MutableState(this.store);
    const ctx = this.ctx(over);
    const results = txs.map((tx) => applyTransaction(state, tx, ctx));
    this.commit(ctx.height, state);
    return results;
  }

  /** Applies one transaction in its own block. */
  apply(tx: Transaction, over: Partial<TxContext> = {}): AppliedTransaction {
    return this.block([tx], over)[0]!;
  }

  /** Applies a transaction to a throw-away layer and returns the error it must raise. */
  reject(tx: Transaction, over: Partial<TxContext> = {}): WeError {
    const state = new MutableState(this.store);
    try {
      applyTransaction(state, tx, this.ctx(over));
    } catch (e) {
      assert.ok(e instanceof WeError, `expected a WeError, got ${String(e)}`);
      assert.equal(state.changes().transactions.length, 0, 'nothing recorded');
      assert.equal([...state.changedBalances()].length, 0, 'no balance written');
      return e;
    }
    assert.fail(`expected ${tx.codec.name} to be rejected`);
  }

  west(a: Account | Uint8Array): bigint {
    return this.store.balance(a instanceof Uint8Array ? a : a.bytes, null);
  }

  assetBalance(a: Account, assetId: Uint8Array): bigint {
    return this.store.balance(a.bytes, assetId);
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

/** Asserts a pipeline rejection: WE code, message (exact or pattern), and the `tx` extra where WE sends one. */
export function assertRejected(e: WeError, code: number, message: string | RegExp, withTx = code === 112 || code === 117): void {
  assert.equal(e.code, code, `code of "${e.message}"`);
  if (typeof message === 'string') assert.equal(e.message, message);
  else assert.match(e.message, message);
  assert.equal(e.extra?.['tx'] !== undefined, withTx, 'tx extra');
  assert.ok(e.status >= 400 && e.status < 500);
}

/** `State check failed. Reason: <reason>`. */
export const scf = (reason: string): string => `State check failed. Reason: ${reason}`;
