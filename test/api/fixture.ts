/**
 * A small node for API tests, built from real parts: the real Protocol, a genesis block
 * and key blocks signed with src/protocol/blocks, a liquid block grown by a real
 * micro-block, a state view that is a MutableState over a real (empty) LMDB Store, and
 * plain in-memory implementations of the chain reads, the pool, the keystore and the
 * admin operations.
 */
import { Alias, type Address } from '../../src/crypto/address.js';
import { encodeBase58, equalBytes } from '../../src/crypto/encoding.js';
import { checkCertificatesField } from '../../src/crypto/certificates.js';
import type { KeyPair } from '../../src/crypto/suite.js';
import { apiKeyHash } from '../../src/api/auth.js';
import { createApiServer } from '../../src/api/server.js';
import type { AdminService, ApiServices, ApiSettings, BlockAt, RestConnectionLimits, ChainReader, PoolService, WalletService } from '../../src/api/services.js';
import { activationStatus, ChainFeatures, SUPPORT_ALL_IMPLEMENTED } from '../../src/chain/features.js';
import { DEFAULT_FEES, type FunctionalitySettings, type PoaSettings } from '../../src/chain/settings.js';
import { PoaConsensus } from '../../src/consensus/poa.js';
import { generatingBalance } from '../../src/consensus/pos.js';
import { Block, produceMicroBlock, signGenesisBlock, type GenesisSettings } from '../../src/protocol/blocks.js';
import type { JsonObject } from '../../src/protocol/json.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { MassTransfer } from '../../src/protocol/transactions/transfer.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import { contractsService } from '../../src/contracts/service.js';
import { Store } from '../../src/state/store.js';
import { MutableState } from '../../src/state/view.js';
import { ROUTE_GROUPS } from '../../src/api/routes/index.js';
import { apiClient } from '../../src/api/client.js';
import { tempDir } from '../../devkit/tmp.js';
import { fixtureNodeServices } from './fixture-node.js';
import { genericError, missingSenderPrivateKey, WeError } from '../../src/errors/catalogue.js';

export const protocol = await Protocol.create({ crypto: 'waves', chainId: 'T' });

export const ADMIN_KEY = 'admin-key';
export const PRIVACY_KEY = 'privacy-key';
export const CONFIDENTIAL_KEY = 'confidential-key';

/** Node time of the fixture (fixed; sign timestamps then count up from it). */
export const NOW = 1_700_000_100_000n;
export const GENESIS_TS = 1_700_000_000_000n;
/** More than 2^53: every JSON writer that goes through a double loses it. */
export const BIG_AMOUNT = 900_719_925_474_099_300n;

export interface Account {
  readonly keyPair: KeyPair;
  readonly address: Address;
  readonly password: string | undefined;
}

const account = (seed: string, password?: string): Account => {
  const keyPair = protocol.crypto.keyPairFromSeedPhrase(seed);
  return { keyPair, address: protocol.addresses.fromPublicKey(keyPair.publicKey), password };
};

/** 0 mines and holds most tokens; 1 has a keystore password; 2, 3 receive. 4 is not in the keystore. */
export const ACCOUNTS = [
  account('api fixture miner'),
  account('api fixture second', 'secret'),
  account('api fixture third'),
  account('api fixture fourth'),
  account('api fixture outsider'),
] as const;
export const [MINER, SECOND, THIRD, FOURTH, OUTSIDER] = ACCOUNTS;

const b58 = encodeBase58;

/** A signed transaction from signed-request JSON fields (senderPublicKey/proofs filled in). */
export function signedTx(signer: Account, fields: JsonObject): Transaction {
  const tx = protocol.transactionFromJson({ ...fields, senderPublicKey: b58(signer.keyPair.publicKey), proofs: [] }, { forBroadcast: false });
  return protocol.sign(tx, signer.keyPair.privateKey);
}

export const transfer = (from: Account, to: Address | string, amount: bigint, timestamp: bigint, fee = 1_000_000n): Transaction =>
  signedTx(from, { type: 4, version: 3, recipient: to.toString(), amount, fee, timestamp, attachment: '' });

/** Everything the fixture chain holds, for assertions. */
export interface FixtureChain {
  readonly services: ApiServices;
  readonly blocks: Block[];
  /** Ids of the liquid block: the key block's, then each micro-block's total signature. */
  readonly liquidIds: Uint8Array[];
  /** The liquid block as assembled after its key block only. */
  readonly liquidKeyBlock: Block;
  readonly txs: {
    readonly bigTransfer: Transaction;
    readonly lease: Transaction;
    readonly leaseCancel: Transaction;
    readonly activeLease: Transaction;
    readonly alias: Transaction;
    readonly massTransfer: Transaction;
    readonly liquidTransfer: Transaction;
    readonly microTransfer: Transaction;
  };
  readonly pool: FixturePool;
  readonly rollbacks: Array<{ height: number; returnTransactionsToUtx: boolean } | { id: string }>;
}

export class FixturePool implements PoolService {
  readonly txs = new Map<string, Transaction>();
  /** Refuse the next broadcast with this error (to test how pool errors are rendered). */
  refuseNext: WeError | undefined;

  /** As the chain's admission on a network without PKI: the request's `certificates` first, then the pool. */
  broadcast(tx: Transaction, certificates?: unknown): Promise<Transaction> {
    return Promise.resolve().then(() => {
      checkCertificatesField(certificates);
      return this.admit(tx);
    });
  }

  private admit(tx: Transaction): Transaction {
    const refusal = this.refuseNext;
    this.refuseNext = undefined;
    if (refusal !== undefined) throw refusal;
    if (!tx.hasValidSenderSignature()) {
      throw new WeError(
        'StateCheckFailed',
        112,
        `State check failed. Reason: Script doesn't exist and proof doesn't validate as signature for '${tx.idBase58}'`,
        undefined,
        400,
        undefined,
        {
          tx: tx.toJson(),
        },
      );
    }
    const existing = this.txs.get(tx.idBase58);
    if (existing !== undefined) return existing;
    this.txs.set(tx.idBase58, tx);
    return tx;
  }

  unconfirmed(): readonly Transaction[] {
    return [...this.txs.values()].sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
  }

  unconfirmedById(id: Uint8Array): Transaction | undefined {
    return this.txs.get(b58(id));
  }

  size(): { size: number; sizeInBytes: number } {
    let bytes = 0;
    for (const tx of this.txs.values()) bytes += tx.bytes.length;
    return { size: this.txs.size, sizeInBytes: bytes };
  }
}

/** Addresses a transaction involves (sender, recipients, aliases resolved through state). */
function involved(tx: Transaction, state: MutableState): Uint8Array[] {
  const out: Uint8Array[] = [];
  if (tx.sender !== undefined) out.push(tx.sender.bytes);
  const data = tx.data as Record<string, unknown>;
  const add = (r: unknown) => {
    if (r instanceof Alias) {
      const owner = state.aliasOwner(r.name);
      if (owner !== undefined) out.push(owner);
    } else if (r !== undefined && r !== null && typeof r === 'object' && 'bytes' in r) out.push((r as Address).bytes);
  };
  add(data['recipient']);
  if (MassTransfer.is(tx)) for (const t of tx.data.transfers) add(t.recipient);
  return out;
}

/** The fixture chain's consensus (PoA, 4 s + 1 s rounds) and feature settings (NG and Fee Switch pre-activated). */
export const FIXTURE_POA: PoaSettings = {
  type: 'poa',
  roundDurationMs: 4000,
  syncDurationMs: 1000,
  banDurationBlocks: 100,
  warningsForBan: 3,
  maxBansPercentage: 40,
};
export const FIXTURE_FUNCTIONALITY: FunctionalitySettings = {
  featureCheckBlocksPeriod: 10,
  blocksForFeatureActivation: 8,
  preActivatedFeatures: new Map([
    [2, 0],
    [7, 0],
  ]),
};

export interface FixtureOptions {
  readonly watcher?: boolean;
  readonly transactionsByAddressLimit?: number;
  readonly cors?: boolean;
  readonly corsAllowedOrigins?: readonly string[];
  readonly connectionLimits?: RestConnectionLimits;
}

/** Builds the fixture chain: genesis, 2 key blocks with transactions, a liquid block with one micro-block. */
export function fixtureChain(options: FixtureOptions = {}): FixtureChain {
  const genesisSettings: GenesisSettings = {
    version: 2,
    blockTimestamp: GENESIS_TS,
    initialBalance: BIG_AMOUNT + 3_000_000_000n,
    initialBaseTarget: 0n,
    genesisPublicKey: null,
    signature: null,
    transactions: [
      { recipient: MINER.address, amount: BIG_AMOUNT },
      { recipient: SECOND.address, amount: 1_000_000_000n },
      { recipient: THIRD.address, amount: 1_000_000_000n },
      { recipient: FOURTH.address, amount: 1_000_000_000n },
    ],
    networkParticipants: [{ publicKey: MINER.keyPair.publicKey, roles: ['miner', 'permissioner'] }],
    senderRoleEnabled: false,
  };
  const genesis = signGenesisBlock(protocol, genesisSettings, 'poa', MINER.keyPair.privateKey);

  const ts = (n: number) => GENESIS_TS + BigInt(n) * 1000n;
  const bigTransfer = transfer(MINER, SECOND.address, BIG_AMOUNT - 1_000_000_000n, ts(10));
  const lease = signedTx(SECOND, { type: 8, version: 2, recipient: THIRD.address.toString(), amount: 100_000_000n, fee: 1_000_000n, timestamp: ts(11) });
  const activeLease = signedTx(SECOND, { type: 8, version: 2, recipient: FOURTH.address.toString(), amount: 200_000_000n, fee: 1_000_000n, timestamp: ts(12) });
  const alias = signedTx(FOURTH, { type: 10, version: 2, alias: 'fourth', fee: 100_000_000n, timestamp: ts(13) });
  const key1 = Block.sign(
    protocol,
    {
      version: 3,
      timestamp: ts(20),
      reference: genesis.id,
      consensus: { type: 'poa', overallSkippedRounds: 0n },
      transactions: [bigTransfer, lease, activeLease, alias],
      featureVotes: [],
      genesisData: null,
    },
    MINER.keyPair.privateKey,
  );
  const leaseCancel = signedTx(SECOND, { type: 9, version: 2, chainId: protocol.chainId, leaseId: lease.idBase58, fee: 1_000_000n, timestamp: ts(21) });
  const massTransfer = signedTx(MINER, {
    type: 11,
    version: 2,
    transfers: [
      { recipient: THIRD.address.toString(), amount: 1n },
      { recipient: 'alias:T:fourth', amount: 2n },
      { recipient: SECOND.address.toString(), amount: 3n },
    ],
    fee: 5_000_000n,
    timestamp: ts(22),
    attachment: '',
  });
  const key2 = Block.sign(
    protocol,
    {
      version: 3,
      timestamp: ts(30),
      reference: key1.id,
      consensus: { type: 'poa', overallSkippedRounds: 1n },
      transactions: [leaseCancel, massTransfer],
      featureVotes: [],
      genesisData: null,
    },
    MINER.keyPair.privateKey,
  );
  const liquidTransfer = transfer(THIRD, FOURTH.address, 10n, ts(31));
  const liquidKeyBlock = Block.sign(
    protocol,
    {
      version: 3,
      timestamp: ts(40),
      reference: key2.id,
      consensus: { type: 'poa', overallSkippedRounds: 0n },
      transactions: [liquidTransfer],
      featureVotes: [],
      genesisData: null,
    },
    MINER.keyPair.privateKey,
  );
  const microTransfer = transfer(THIRD, SECOND.address, 20n, ts(41));
  const { liquidBlock } = produceMicroBlock(
    protocol,
    liquidKeyBlock,
    { transactions: [microTransfer] },
    { timestamp: ts(42), privateKey: MINER.keyPair.privateKey, modifiedTotalSign: false },
  );

  const blocks: Block[] = [genesis, key1, key2, liquidBlock];
  const liquidIds = [liquidKeyBlock.id, liquidBlock.id];

  const store = Store.open(tempDir('weft-api-'), protocol);
  const state = new MutableState(store);
  state.putLease(lease.id, { sender: SECOND.keyPair.publicKey, recipient: THIRD.address.bytes, amount: 100_000_000n, active: false, height: 2 });
  state.putLease(activeLease.id, { sender: SECOND.keyPair.publicKey, recipient: FOURTH.address.bytes, amount: 200_000_000n, active: true, height: 2 });
  state.putAlias('fourth', FOURTH.address.bytes);

  const pool = new FixturePool();
  const rollbacks: FixtureChain['rollbacks'] = [];

  const locate = (): Map<string, { tx: Transaction; height: number }> => {
    const byId = new Map<string, { tx: Transaction; height: number }>();
    blocks.forEach((b, i) => b.transactions.forEach((tx) => byId.set(tx.idBase58, { tx, height: i + 1 })));
    return byId;
  };

  const chain: ChainReader = {
    height: () => blocks.length,
    blockAt: (h) => (Number.isInteger(h) && h >= 1 ? blocks[h - 1] : undefined),
    blockHeaderAt(h) {
      const block = Number.isInteger(h) && h >= 1 ? blocks[h - 1] : undefined;
      return block === undefined ? undefined : { header: block, summary: block.summary };
    },
    blockTransactionsAt: (h) => (Number.isInteger(h) && h >= 1 ? blocks[h - 1]?.transactions : undefined),
    blockById(id): BlockAt | undefined {
      const i = blocks.findIndex((b) => equalBytes(b.id, id));
      if (i >= 0) return { block: blocks[i]!, height: i + 1 };
      if (blocks.length === 4 && equalBytes(id, liquidIds[0]!)) return { block: liquidKeyBlock, height: 4 };
      return undefined;
    },
    childOf(id) {
      const i = blocks.findIndex((b) => equalBytes(b.id, id));
      return i >= 0 ? blocks[i + 1] : undefined;
    },
    transaction: (id) => locate().get(b58(id)),
    addressTransactions(address, limit, afterId) {
      const all: Array<{ tx: Transaction; height: number }> = [];
      for (let h = blocks.length; h >= 1; h--) {
        const txs = [...blocks[h - 1]!.transactions].reverse();
        for (const tx of txs) if (involved(tx, state).some((a) => equalBytes(a, address))) all.push({ tx, height: h });
      }
      let start = 0;
      if (afterId !== undefined) {
        const i = all.findIndex(({ tx }) => equalBytes(tx.id, afterId));
        if (i < 0) return { txs: [], afterFound: false };
        start = i + 1;
      }
      return { txs: all.slice(start, start + limit), afterFound: true };
    },
    state: () => state,
    minimalFee(tx) {
      const base = DEFAULT_FEES.base.get(tx.type) ?? 0n;
      const extra = MassTransfer.is(tx) ? (DEFAULT_FEES.additional.get(11) ?? 0n) * BigInt(Math.floor((tx.data.transfers.length + 1) / 2)) : 0n;
      if (tx.feeAssetId !== null) {
        if (state.asset(tx.feeAssetId) === undefined)
          throw genericError(`Asset '${b58(tx.feeAssetId)}' does not exist, cannot be used to pay fees`, 'feeAssetId');
      }
      return { feeAssetId: null, amount: base + extra };
    },
  };

  const keystore = new Map<string, Account>(ACCOUNTS.slice(0, 4).map((a) => [a.address.toString(), a]));
  const wallet: WalletService = {
    unlock: (address, password) =>
      new Promise((resolve) => {
        const a = keystore.get(address);
        if (a === undefined || a.password !== password) throw missingSenderPrivateKey();
        resolve(a.keyPair);
      }),
    reload() {},
    addresses: () => [...keystore.keys()],
    publicKey(address) {
      const a = keystore.get(address);
      if (a === undefined) throw missingSenderPrivateKey();
      return a.keyPair.publicKey;
    },
  };

  const admin: AdminService = {
    rollback(height, returnTransactionsToUtx) {
      rollbacks.push({ height, returnTransactionsToUtx });
      const removed = blocks.splice(height);
      if (returnTransactionsToUtx) for (const b of removed) for (const tx of b.transactions) pool.txs.set(tx.idBase58, tx);
      return blocks[height - 1]!.id;
    },
    rollbackTo(id) {
      rollbacks.push({ id: b58(id) });
      const i = blocks.findIndex((b) => equalBytes(b.id, id));
      if (i < 0) throw genericError(`Block ${b58(id)} not found in blockchain`);
      blocks.splice(i + 1);
      return blocks[i]!.id;
    },
  };

  const settings: ApiSettings = {
    bindAddress: '127.0.0.1',
    port: 0,
    cors: options.cors ?? true,
    ...(options.corsAllowedOrigins === undefined ? {} : { corsAllowedOrigins: options.corsAllowedOrigins }),
    ...(options.connectionLimits === undefined ? {} : { connectionLimits: options.connectionLimits }),
    auth: {
      type: 'api-key',
      apiKeyHash: apiKeyHash(ADMIN_KEY, protocol.crypto),
      privacyApiKeyHash: apiKeyHash(PRIVACY_KEY, protocol.crypto),
      confidentialContractsApiKeyHash: apiKeyHash(CONFIDENTIAL_KEY, protocol.crypto),
    },
    transactionsByAddressLimit: options.transactionsByAddressLimit ?? 10_000,
    distributionAddressLimit: 1000,
    watcher: options.watcher ?? false,
  };

  const nodeServices = fixtureNodeServices({ blocks, state, store, dataDirectory: tempDir('weft-api-node-'), now: () => NOW, pool: () => pool.unconfirmed() });

  const services: ApiServices = {
    protocol,
    settings,
    chain,
    pool,
    wallet,
    admin,
    contracts: contractsService(() => state, undefined),
    // The fixture's state is a MutableState over an empty store: its history is the store's.
    history: {
      balanceAt: (address, assetId, height) => store.balanceAt(address, assetId, height),
      minBalance: (address, from, to) => store.minBalance(address, from, to),
      minEffectiveBalance: (address, from, to) => store.minEffectiveBalance(address, from, to),
      dataEntries: (address) => store.dataEntries(address),
      assetBalances: (holder) => store.assetBalances(holder),
      assetHolders: (assetId, after) => store.assetHolders(assetId, after),
      minRollbackHeight: () => 1,
    },
    consensus: {
      settings: FIXTURE_POA,
      poa: new PoaConsensus({ settings: FIXTURE_POA, genesisTimestamp: GENESIS_TS, isFeatureActivated: () => true }),
      headers: {
        height: () => blocks.length,
        generatorAt: (h) => blocks[h - 1]?.generator,
        timestampAt: (h) => blocks[h - 1]?.timestamp,
        overallSkippedRoundsAt: (h) => {
          const c = blocks[h - 1]?.consensus;
          return c === undefined ? undefined : c.type === 'pos' ? 0n : c.overallSkippedRounds;
        },
      },
      generatingBalance: (address, height) => generatingBalance(store, address, height),
      chainScore: () => state.chainScore(),
    },
    activation: { status: () => activationStatus(new ChainFeatures(FIXTURE_FUNCTIONALITY, state), blocks.length, SUPPORT_ALL_IMPLEMENTED) },
    node: nodeServices.node,
    debug: nodeServices.debug,
    nodeOwnerPublicKey: MINER.keyPair.publicKey,
    now: () => NOW,
  };

  return {
    services,
    blocks,
    liquidIds,
    liquidKeyBlock,
    txs: { bigTransfer, lease, leaseCancel, activeLease, alias, massTransfer, liquidTransfer, microTransfer },
    pool,
    rollbacks,
  };
}

/** A server over a fresh fixture chain, quiet, with its typed client. */
export function fixtureServer(options: FixtureOptions = {}) {
  const fixture = fixtureChain(options);
  const app = createApiServer(fixture.services, { logger: false });
  return { ...fixture, app, client: apiClient(app, ROUTE_GROUPS) };
}
