/**
 * A real node in this process for the account-side API tests (addresses, alias, leasing,
 * assets): the dev-chain config with its keystore, but a genesis of our own (the owner
 * holds 10^18 units, past 2^53) and max-rollback-depth 5; `Node.start` with an injected
 * clock, no miner, no listening server — `createApiServer(node.services())` driven with
 * `inject`. Blocks are forged as the miner forges them (forge.ts: planKeyBlock for the owner's PoA
 * slot, Block.sign, appendKeyBlock, then appendOwnMicroBlock).
 *
 * Every transaction is also booked in a Ledger kept by this file's own arithmetic — amounts,
 * fees (the owner mines every block: 40 % of each fee at once, the rest when the next key
 * block comes), leases in and out, asset balances — with a snapshot per height, so the
 * tests compare the node's answers with values computed independently of the node.
 */
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { createApiServer } from '../../src/api/server.js';
import type { ApiServices } from '../../src/api/services.js';
import type { Address } from '../../src/crypto/address.js';
import type { KeyPair } from '../../src/crypto/suite.js';
import { signGenesisBlock, type GenesisSettings } from '../../src/protocol/blocks.js';
import { Protocol } from '../../src/protocol/protocol.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import type { NodeConfig } from '../../src/node/config.js';
import { DEV_GENESIS_SIGNER_SEED, devAccounts, devGenesisSettings, devNodeConfig, type DevAccount } from '../../src/cli/dev.js';
import { Node } from '../../src/node/node.js';
import { tempDir } from '../../devkit/tmp.js';
import { Forger } from '../../devkit/api/forge.js';

export const WEST = 100_000_000n;
export const START = 1_760_000_000_000n;
/** The owner's genesis balance: more than 2^53. */
export const OWNER_GENESIS = 1_000_000_000_000_000_000n;
export const MAX_ROLLBACK_DEPTH = 5;

/** The NG share of a fee the block's own miner gets at once (WE's 40 %). */
export const minerShare = (fee: bigint): bigint => (fee / 5n) * 2n;

export interface Party {
  readonly name: string;
  readonly keyPair: KeyPair;
  readonly address: Address;
  readonly b58: string;
  /** Keystore password (dev accounts only). */
  readonly password?: string;
}

export interface West {
  regular: bigint;
  leaseIn: bigint;
  leaseOut: bigint;
}

interface LedgerState {
  readonly west: Map<string, West>;
  /** asset id → holder → balance. */
  readonly assets: Map<string, Map<string, bigint>>;
}

const cloneState = (s: LedgerState): LedgerState => ({
  west: new Map([...s.west].map(([a, w]) => [a, { ...w }])),
  assets: new Map([...s.assets].map(([id, m]) => [id, new Map(m)])),
});

/** Balances by this file's arithmetic, with a snapshot per height. */
export class Ledger {
  private state: LedgerState = { west: new Map(), assets: new Map() };
  private carry = 0n;
  private readonly heights: LedgerState[] = [];

  constructor(private readonly miner: string) {}

  west(address: string): West {
    let w = this.state.west.get(address);
    if (w === undefined) {
      w = { regular: 0n, leaseIn: 0n, leaseOut: 0n };
      this.state.west.set(address, w);
    }
    return w;
  }

  addAsset(assetId: string, holder: string, delta: bigint): void {
    let m = this.state.assets.get(assetId);
    if (m === undefined) {
      m = new Map();
      this.state.assets.set(assetId, m);
    }
    m.set(holder, (m.get(holder) ?? 0n) + delta);
  }

  /** A WEST fee: paid by `payer`; the miner gets 40 % now and the rest at the next key block. */
  fee(payer: string, fee: bigint): void {
    this.west(payer).regular -= fee;
    this.west(this.miner).regular += minerShare(fee);
    this.carry += fee - minerShare(fee);
  }

  /** A new key block: the carried fees go to its miner. */
  keyBlock(): void {
    this.west(this.miner).regular += this.carry;
    this.carry = 0n;
  }

  /** Records the state at the end of `height`. */
  snapshot(height: number): void {
    this.heights[height] = cloneState(this.state);
  }

  /** WEST of an address at the end of a height. */
  westAt(address: string, height: number): West {
    const s = this.heights[height];
    if (s === undefined) throw new Error(`no ledger snapshot at height ${height}`);
    return { ...(s.west.get(address) ?? { regular: 0n, leaseIn: 0n, leaseOut: 0n }) };
  }

  assetAt(assetId: string, holder: string, height: number): bigint {
    const s = this.heights[height];
    if (s === undefined) throw new Error(`no ledger snapshot at height ${height}`);
    return s.assets.get(assetId)?.get(holder) ?? 0n;
  }

  /** Holders of an asset at a height (any balance, zero included). */
  holdersAt(assetId: string, height: number): string[] {
    return [...(this.heights[height]?.assets.get(assetId)?.keys() ?? [])];
  }

  /** The smallest value of `f` over heights [from, to]. */
  minOver(address: string, from: number, to: number, f: (w: West) => bigint): bigint {
    let min: bigint | undefined;
    for (let h = from; h <= to; h++) {
      const v = f(this.westAt(address, h));
      if (min === undefined || v < min) min = v;
    }
    return min!;
  }
}

export const effective = (w: West): bigint => w.regular + w.leaseIn - w.leaseOut;
export const regular = (w: West): bigint => w.regular;

export interface AccountsChain {
  readonly node: Node;
  readonly services: ApiServices;
  readonly app: FastifyInstance;
  readonly config: NodeConfig;
  readonly protocol: Protocol;
  readonly ledger: Ledger;
  /** Dev accounts 0–4 (0: owner and miner), then E (not in the keystore) and F (holds the asset from the top block only). */
  readonly parties: { readonly O: Party; readonly A: Party; readonly B: Party; readonly C: Party; readonly D: Party; readonly E: Party; readonly F: Party };
  /** Keystore order. */
  readonly keystoreAddresses: readonly string[];
  readonly ids: {
    readonly asset: string;
    readonly scriptedAsset: string;
    readonly issue: Transaction;
    readonly leaseAB: Transaction;
    readonly leaseOA: Transaction;
    readonly leaseAC: Transaction;
    readonly leaseBC: Transaction;
  };
  /** Height at which each key transaction landed. */
  readonly heightOf: ReadonlyMap<string, number>;
  /** The current (liquid) height. */
  readonly top: number;
  readonly alias: string;
  /** Data entries A wrote (latest value per key), as request JSON. */
  readonly dataKeys: readonly string[];
  close(): Promise<void>;
}

export const ALIAS = 'accounts-alias';
/** Quantity of the main asset: past 2^53. */
export const ASSET_QUANTITY = 9_000_000_000_000_000_000n;
export const BIG_INT_VALUE = 9_007_199_254_740_993n;
/** A script that is just `true` (version 1): base64 of 01 ‖ TRUE ‖ checksum. */
export const SCRIPT_TRUE = 'base64:AQa3b8tH';

const party = (p: Protocol, name: string, keyPair: KeyPair, password?: string): Party => {
  const address = p.addresses.fromPublicKey(keyPair.publicKey);
  return { name, keyPair, address, b58: address.toString(), ...(password !== undefined ? { password } : {}) };
};

/** Starts the node and forges the chain (about a second). */
export async function accountsChain(): Promise<AccountsChain> {
  const clock = { now: START };
  const dir = tempDir('weft-accounts-');
  const base = await devNodeConfig({ dataDir: dir, restPort: 0, p2pPort: 0, now: () => clock.now, keystore: { scrypt: { N: 1024, r: 8, p: 1 } } });
  const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
  const dev = devAccounts(p);
  // The dev genesis with the owner's balance raised past 2^53, signed by the dev genesis signer.
  const devGenesis = devGenesisSettings(p, START, null);
  const transactions = devGenesis.transactions.map((t, i) => (i === 0 ? { ...t, amount: OWNER_GENESIS } : t));
  const unsigned: GenesisSettings = { ...devGenesis, transactions, initialBalance: transactions.reduce((s, t) => s + t.amount, 0n) };
  const genesis = {
    ...unsigned,
    signature: signGenesisBlock(p, unsigned, 'poa', p.crypto.keyPairFromSeedPhrase(DEV_GENESIS_SIGNER_SEED).privateKey).signature,
  };
  const config: NodeConfig = {
    ...base,
    chain: { ...base.chain, genesis, maxRollbackDepth: MAX_ROLLBACK_DEPTH },
    miner: { ...base.miner, enabled: false },
    api: { ...base.api, enabled: false },
  };
  const node = await Node.start(config, { now: () => clock.now, logger: pino({ level: 'silent' }) });
  clock.now += 10_000n;

  const [O, A, B, C, D] = dev.map((a: DevAccount, i) => party(p, 'OABCD'[i]!, a.keyPair, a.keystorePassword)) as [Party, Party, Party, Party, Party];
  const E = party(p, 'E', p.crypto.keyPairFromSeedPhrase('weft accounts test outsider E'));
  const F = party(p, 'F', p.crypto.keyPairFromSeedPhrase('weft accounts test late holder F'));
  const ledger = new Ledger(O.b58);
  for (const t of transactions) ledger.west(t.recipient.toString()).regular += t.amount;
  ledger.snapshot(1);

  const forger = new Forger(node, clock);
  const sign = (signer: Party, json: Record<string, unknown>): Transaction => forger.tx(signer, json);
  const heightOf = new Map<string, number>();
  const microBlock = (txs: Transaction[]): void => {
    forger.microBlock(txs);
    for (const tx of txs) heightOf.set(tx.idBase58, node.chain.height());
  };
  /** A block: the key block, then each group of transactions (built after the key block, so the ledger sees them in order) as a micro-block. */
  const block = (build: () => Transaction[][] = () => []): void => {
    ledger.snapshot(node.chain.height());
    forger.keyBlock();
    ledger.keyBlock();
    for (const txs of build()) microBlock(txs);
  };

  // --- transactions, each booked in the ledger as it is built
  const transfer = (from: Party, to: Party, amount: bigint, assetId?: string): Transaction => {
    ledger.fee(from.b58, 1_000_000n);
    if (assetId === undefined) {
      ledger.west(from.b58).regular -= amount;
      ledger.west(to.b58).regular += amount;
    } else {
      ledger.addAsset(assetId, from.b58, -amount);
      ledger.addAsset(assetId, to.b58, amount);
    }
    return sign(from, { type: 4, version: 3, recipient: to.b58, amount, fee: 1_000_000n, attachment: '', ...(assetId !== undefined ? { assetId } : {}) });
  };
  const lease = (from: Party, to: Party, amount: bigint): Transaction => {
    ledger.fee(from.b58, 1_000_000n);
    ledger.west(from.b58).leaseOut += amount;
    ledger.west(to.b58).leaseIn += amount;
    return sign(from, { type: 8, version: 2, recipient: to.b58, amount, fee: 1_000_000n });
  };
  const cancel = (from: Party, to: Party, amount: bigint, leaseTx: Transaction): Transaction => {
    ledger.fee(from.b58, 1_000_000n);
    ledger.west(from.b58).leaseOut -= amount;
    ledger.west(to.b58).leaseIn -= amount;
    return sign(from, { type: 9, version: 2, chainId: p.chainId, leaseId: leaseTx.idBase58, fee: 1_000_000n });
  };
  const paid = (from: Party, fee: bigint, json: Record<string, unknown>): Transaction => {
    ledger.fee(from.b58, fee);
    return sign(from, { ...json, fee });
  };

  // Height 2: the asset, WEST to A.
  let issue!: Transaction;
  block(() => {
    issue = paid(O, WEST, {
      type: 3,
      version: 2,
      name: 'Accounts',
      description: 'asset of the accounts tests',
      quantity: ASSET_QUANTITY,
      decimals: 0,
      reissuable: true,
    });
    ledger.addAsset(issue.idBase58, O.b58, ASSET_QUANTITY);
    return [[issue], [transfer(O, A, 1_000n * WEST)]];
  });
  const asset = issue.idBase58;

  // Height 3: A leases to B; O leases to A more than 2^53; A sends B half its WEST.
  let leaseAB!: Transaction;
  let leaseOA!: Transaction;
  block(() => {
    leaseAB = lease(A, B, 100n * WEST);
    leaseOA = lease(O, A, 20_000_000_000_000_000n);
    return [[leaseAB], [leaseOA, transfer(A, B, 50_000n * WEST)]];
  });

  // Height 4: the asset spread over holders (A's share past 2^53); A's data; A's alias.
  const dataKeys = ['int', 'bool', 'bin', 'str', 'key-1', 'key-2', 'key-3', 'Zeta', 'ключ'];
  block(() => [
    [transfer(O, A, BIG_INT_VALUE, asset), transfer(O, B, 3n, asset), transfer(O, C, 200_000_000_000_000_000n, asset), transfer(O, E, 7n, asset)],
    [
      paid(A, 5_000_000n, {
        type: 12,
        version: 1,
        data: [
          { key: 'int', type: 'integer', value: BIG_INT_VALUE },
          { key: 'bool', type: 'boolean', value: true },
          { key: 'bin', type: 'binary', value: 'base64:AQID' },
          { key: 'str', type: 'string', value: 'hello' },
          { key: 'key-1', type: 'integer', value: 1 },
          { key: 'key-2', type: 'integer', value: 2 },
          { key: 'key-3', type: 'integer', value: 3 },
          { key: 'Zeta', type: 'string', value: 'last of the capitals' },
          { key: 'ключ', type: 'string', value: 'значение' },
        ],
      }),
      paid(A, WEST, { type: 10, version: 2, alias: ALIAS }),
    ],
  ]);

  // Height 5: B pays A back; B leases to C; A leases to C (cancelled at 6).
  let leaseBC!: Transaction;
  let leaseAC!: Transaction;
  block(() => {
    leaseBC = lease(B, C, 10n * WEST);
    leaseAC = lease(A, C, 5n * WEST);
    return [[transfer(B, A, 50_000n * WEST)], [leaseBC, leaseAC]];
  });

  // Height 6: the cancel; asset moves; sponsorship.
  block(() => [
    [cancel(A, C, 5n * WEST, leaseAC), transfer(A, D, 1n, asset), transfer(C, B, 100_000_000_000_000_000n, asset)],
    [paid(O, WEST, { type: 14, version: 1, assetId: asset, isEnabled: true })],
  ]);

  // Height 7: a scripted asset; D's account script.
  let scripted!: Transaction;
  block(() => {
    scripted = paid(O, WEST, { type: 3, version: 2, name: 'Scripted', description: '', quantity: 10n, decimals: 1, reissuable: false, script: SCRIPT_TRUE });
    ledger.addAsset(scripted.idBase58, O.b58, 10n);
    return [[scripted], [paid(D, 50_000_000n, { type: 13, version: 1, chainId: p.chainId, script: SCRIPT_TRUE, name: 'always true', description: 'D' })]];
  });

  // Heights 8–9: small WEST moves; 10: the top (liquid) block gives F the asset.
  block(() => [[transfer(C, B, WEST), transfer(O, E, WEST)]]);
  block(() => [[transfer(B, C, 2n * WEST), transfer(E, A, 7n, asset)]]);
  block(() => [[transfer(A, F, 5n, asset), transfer(B, C, 1n)]]);
  const top = node.chain.height();
  ledger.snapshot(top);

  const services = node.services();
  const app = createApiServer(services, { logger: false });
  await app.ready();
  let closed = false;
  return {
    node,
    services,
    app,
    config,
    protocol: p,
    ledger,
    parties: { O, A, B, C, D, E, F },
    keystoreAddresses: dev.map((a) => a.address),
    ids: { asset, scriptedAsset: scripted.idBase58, issue, leaseAB, leaseOA, leaseAC, leaseBC },
    heightOf,
    top,
    alias: ALIAS,
    dataKeys,
    close: async () => {
      if (closed) return;
      closed = true;
      await app.close();
      await node.stop();
    },
  };
}
