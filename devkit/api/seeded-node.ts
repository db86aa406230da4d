/**
 * A real node in this process, with a seeded chain, for the API tests that must cover every
 * route (and the REST benchmarks): the dev-chain config (src/cli/dev.ts) on a temporary directory, `Node.start` with
 * an injected clock, no miner and no listening REST server — the test builds its own
 * `createApiServer(node.services())` and talks to it with `inject`.
 *
 * The chain is forged the way the miner forges it (forge.ts: planKeyBlock for this node's
 * PoA slot, Block.sign, appendKeyBlock, then appendOwnMicroBlock), and holds transactions of
 * every kind the REST groups read: an issued, reissued, partly burnt, sponsored asset held
 * by several accounts, WEST and asset transfers, a mass transfer, an active and a cancelled
 * lease, an alias, data entries of all four types, a granted role, an atomic container;
 * then a few plain blocks so heights below the top exist, a privacy policy with a small and
 * a large item stored on the node and anchored, and one transaction left in the pool. The
 * top block stays liquid, as on a running node.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { createApiServer } from '../../src/api/server.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import type { ApiServices, AuthMode } from '../../src/api/services.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import type { NodeConfig } from '../../src/node/config.js';
import { DEV_API_KEY, DEV_CHAIN_ID, devAccounts, devNodeConfig, type DevAccount } from '../../src/cli/dev.js';
import { Node } from '../../src/node/node.js';
import { Forger } from './forge.js';

export const WEST = 100_000_000n;
/** Node time when the chain is created (the dev genesis is signed for it). */
export const SEED_START = 1_750_000_000_000n;
export const SEED_ALIAS = 'seeded-alias';
export { DEV_API_KEY };

export interface SeedData {
  /** The issued asset (Base58 id) and its issue transaction. */
  readonly assetId: string;
  readonly issue: Transaction;
  readonly activeLease: Transaction;
  readonly cancelledLease: Transaction;
  readonly leaseCancel: Transaction;
  readonly alias: Transaction;
  readonly data: Transaction;
  readonly massTransfer: Transaction;
  readonly permission: Transaction;
  readonly atomic: Transaction;
  /** A transfer in the pool, not in a block. */
  readonly unconfirmed: Transaction;
  /** Every transaction put in a block, in order. */
  readonly confirmed: readonly Transaction[];
  /** Data keys of `data`'s sender, by entry type. */
  readonly dataKeys: { readonly integer: string; readonly boolean: string; readonly binary: string; readonly string: string };
  /** A privacy policy (owner: account 0, recipients: accounts 0 and 1) and two items stored on the node and anchored: a small one and a large one. */
  readonly policy: Transaction;
  readonly privacyItems: { readonly small: { readonly hash: string; readonly data: Buffer }; readonly large: { readonly hash: string; readonly data: Buffer } };
}

export interface SeededNode {
  readonly node: Node;
  readonly services: ApiServices;
  readonly app: FastifyInstance;
  readonly config: NodeConfig;
  /** The dev accounts: 0 is the node owner and miner with every role. */
  readonly accounts: readonly DevAccount[];
  readonly seed: SeedData;
  /** A transaction signed by a dev account from request JSON (`senderPublicKey`, `timestamp`, `proofs` filled in). */
  sign(signer: DevAccount, json: Record<string, unknown>): Transaction;
  /** Forges a key block and a micro-block of these transactions (the new liquid block). */
  block(txs: Transaction[]): void;
  /** Node time now (ms). */
  now(): bigint;
  /** Moves node time. */
  advance(ms: bigint): void;
  close(): Promise<void>;
}

export interface SeededNodeOptions {
  /** REST auth instead of the dev API key. */
  readonly auth?: AuthMode;
  readonly pkiMode?: 'OFF' | 'ON' | 'TEST';
  /** Where the node lives (default: a temporary directory, removed by `close()`). */
  readonly dataDir?: string;
}

/** Starts a node on a fresh directory and seeds its chain (about a second). */
export async function seededNode(options: SeededNodeOptions = {}): Promise<SeededNode> {
  const clock = { now: SEED_START };
  const dir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'weft-seeded-'));
  const base = await devNodeConfig({ dataDir: dir, restPort: 0, p2pPort: 0, now: () => clock.now, keystore: { scrypt: { N: 1024, r: 8, p: 1 } } });
  const config: NodeConfig = {
    ...base,
    miner: { ...base.miner, enabled: false },
    api: {
      ...base.api,
      enabled: false,
      ...(options.auth !== undefined ? { auth: options.auth } : {}),
      ...(options.pkiMode !== undefined ? { pkiMode: options.pkiMode } : {}),
    },
  };
  const node = await Node.start(config, { now: () => clock.now, logger: pino({ level: 'silent' }) });
  // Transactions are stamped just before the clock: after the genesis block.
  clock.now += 10_000n;
  const accounts = devAccounts(node.protocol);
  const [owner, a1, a2, a3, a4] = accounts as [DevAccount, DevAccount, DevAccount, DevAccount, DevAccount];
  const f = new Forger(node, clock);
  const confirmed: Transaction[] = [];
  const block = (...micro: Transaction[][]): void => {
    f.keyBlock();
    for (const txs of micro) {
      f.microBlock(txs);
      confirmed.push(...txs);
    }
  };

  const issue = f.tx(owner, {
    type: 3,
    version: 2,
    name: 'Seeded',
    description: 'asset of the seeded chain',
    quantity: 10_000_000n,
    decimals: 2,
    reissuable: true,
    fee: WEST,
  });
  const assetId = issue.idBase58;
  block([issue, f.transfer(owner, a1, 5_000n * WEST)], [f.transfer(owner, a1, 300_000n, { assetId }), f.transfer(owner, a2, 200_000n, { assetId })]);

  const activeLease = f.tx(a1, { type: 8, version: 2, recipient: a2.address, amount: 100n * WEST, fee: 1_000_000n });
  const cancelledLease = f.tx(a1, { type: 8, version: 2, recipient: a3.address, amount: 50n * WEST, fee: 1_000_000n });
  const alias = f.tx(a1, { type: 10, version: 2, alias: SEED_ALIAS, fee: WEST });
  const dataKeys = { integer: 'count', boolean: 'flag', binary: 'blob', string: 'name' } as const;
  const data = f.tx(a1, {
    type: 12,
    version: 1,
    data: [
      { key: dataKeys.integer, type: 'integer', value: 42 },
      { key: dataKeys.boolean, type: 'boolean', value: true },
      { key: dataKeys.binary, type: 'binary', value: 'base64:AQID' },
      { key: dataKeys.string, type: 'string', value: 'seeded' },
    ],
    fee: 5_000_000n,
  });
  block(
    [f.tx(owner, { type: 5, version: 2, assetId, quantity: 5_000n, reissuable: true, fee: WEST }), activeLease, cancelledLease],
    [f.tx(a1, { type: 6, version: 2, assetId, amount: 1_000n, fee: 5_000_000n }), alias, data],
  );

  const leaseCancel = f.tx(a1, { type: 9, version: 2, chainId: node.protocol.chainId, leaseId: cancelledLease.idBase58, fee: 1_000_000n });
  const massTransfer = f.tx(owner, {
    type: 11,
    version: 2,
    assetId,
    transfers: [
      { recipient: a3.address, amount: 1_000n },
      { recipient: `alias:${DEV_CHAIN_ID}:${SEED_ALIAS}`, amount: 2_000n },
      { recipient: a4.address, amount: 3_000n },
    ],
    fee: 7_000_000n,
    attachment: '',
  });
  const permission = f.tx(owner, { type: 102, version: 1, target: a2.address, opType: 'add', role: 'issuer', fee: 1_000_000n });
  block([leaseCancel, massTransfer, f.tx(owner, { type: 14, version: 1, assetId, isEnabled: true, fee: WEST })], [permission]);

  const atomic = f.atomic(a2, [f.transfer(a2, a3, 3n * WEST, { atomicBadge: {} }), f.transfer(a2, a4, 4n * WEST, { atomicBadge: {} })]);
  block([atomic]);
  for (let i = 0; i < 3; i++) block([f.transfer(a3, a4, BigInt(1000 + i)), f.transfer(a4, a3, BigInt(2000 + i))]);

  const policy = f.tx(owner, {
    type: 112,
    version: 3,
    policyName: 'seeded',
    description: 'policy of the seeded chain',
    recipients: [owner.address, a1.address],
    owners: [owner.address],
    fee: WEST,
  });
  block([policy]);
  const services = node.services();
  const privacy = services.privacy!;
  const item = (data: Buffer) => ({ data, hash: encodeBase58(createHash('sha256').update(data).digest()) });
  const small = item(Buffer.from('seeded privacy item'));
  const large = item(Buffer.alloc(200_000, 7));
  const info = (filename: string, size: number) => ({ filename, size, timestamp: clock.now, author: 'seeder', comment: '' });
  const request = (hash: string, filename: string, size: number) => ({
    version: 3 as const,
    sender: owner.address,
    password: owner.keystorePassword,
    policyId: policy.idBase58,
    hash,
    info: info(filename, size),
    fee: 5_000_000n,
  });
  const smallTx = await privacy.sendData(request(small.hash, 'small.txt', small.data.length), { base64: small.data.toString('base64') }, false);
  const largeTx = await privacy.sendLargeData(
    await privacy.checkLargeUpload(request(large.hash, 'large.bin', large.data.length)),
    Readable.from([large.data]),
    false,
  );
  block([smallTx, largeTx]);
  const unconfirmed = f.transfer(a4, a1, 777n);
  await services.pool.broadcast(unconfirmed);

  const app = createApiServer(services, { logger: false });
  await app.ready();
  let closed = false;
  return {
    node,
    services,
    app,
    config,
    accounts,
    seed: {
      assetId,
      issue,
      activeLease,
      cancelledLease,
      leaseCancel,
      alias,
      data,
      massTransfer,
      permission,
      atomic,
      unconfirmed,
      confirmed,
      dataKeys,
      policy,
      privacyItems: { small, large },
    },
    sign: (signer, json) => f.tx(signer, json),
    block: (txs) => block(txs),
    now: () => clock.now,
    advance: (ms) => {
      clock.now += ms;
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await app.close();
      await node.stop();
      if (options.dataDir === undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------
// The served OpenAPI document

export type Json = Record<string, unknown>;

export interface DocumentedOperation {
  /** Upper-case HTTP method. */
  readonly method: string;
  /** Path template as documented (`/blocks/at/{height}`). */
  readonly path: string;
  readonly operation: Json;
}

/** GET /api-docs/openapi.json of a server. */
export async function servedDocument(app: FastifyInstance): Promise<Json> {
  const r = await app.inject({ method: 'GET', url: '/api-docs/openapi.json' });
  if (r.statusCode !== 200) throw new Error(`/api-docs/openapi.json answered ${r.statusCode}`);
  return JSON.parse(r.body) as Json;
}

/** Every operation of a document, in document order. */
export function documentedOperations(doc: Json): DocumentedOperation[] {
  const out: DocumentedOperation[] = [];
  for (const [path, item] of Object.entries(doc['paths'] as Record<string, Json>)) {
    for (const [method, operation] of Object.entries(item)) out.push({ method: method.toUpperCase(), path, operation: operation as Json });
  }
  return out;
}

/** `GET /a/{x}/b` → `GET /a/{}/b`: routes compared regardless of parameter names. */
export const routeKey = (method: string, path: string): string => `${method.toUpperCase()} ${path.replace(/\{[^}]*\}/g, '{}')}`;
