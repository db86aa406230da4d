/**
 * One running node, built from a NodeConfig: protocol, store, chain, pool, miner and the
 * REST API, wired together. No module-level state: two nodes can live in one process.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { createApiServer, listen } from '../api/server.js';
import type { ApiServices, ChainReader } from '../api/services.js';
import { Blockchain } from '../chain/blockchain.js';
import { PreActivatedFeatures } from '../chain/features.js';
import { minimalFee } from '../chain/fees.js';
import { UtxPool } from '../chain/utx.js';
import { Miner } from '../consensus/miner.js';
import { PoaRules } from '../consensus/rules.js';
import type { KeyPair } from '../crypto/suite.js';
import { SignatureVerifierPool } from '../crypto/verify-pool.js';
import { encodeBase58 } from '../crypto/encoding.js';
import { WeError } from '../protocol/errors.js';
import { Protocol } from '../protocol/protocol.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import { Store } from '../state/store.js';
import { k } from '../state/view.js';
import type { NodeConfig } from './config.js';
import { Keystore } from './keystore.js';

export interface NodeOptions {
  /** Node time in ms; the system clock by default. */
  readonly now?: () => bigint;
  /** A logger; by default pino at the config's level on stdout. */
  readonly logger?: Logger;
}

const LEVELS: Record<string, string> = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' };

export class Node {
  private api: FastifyInstance | undefined;
  private restUrl: string | undefined;
  private stopping: Promise<void> | undefined;

  private constructor(
    readonly config: NodeConfig,
    readonly protocol: Protocol,
    readonly store: Store,
    readonly chain: Blockchain,
    readonly pool: UtxPool,
    readonly keystore: Keystore,
    readonly owner: KeyPair,
    readonly miner: Miner | undefined,
    private readonly verifier: SignatureVerifierPool,
    readonly log: Logger,
    private readonly now: () => bigint,
  ) {}

  /** Opens the store (applying genesis on first start), starts mining and serves REST. */
  static async start(config: NodeConfig, options: NodeOptions = {}): Promise<Node> {
    const log = options.logger ?? pino({ level: LEVELS[config.node.loggingLevel] ?? 'info', base: undefined });
    const now = options.now ?? ((): bigint => BigInt(Date.now()));
    const protocol = await Protocol.create({ crypto: config.chain.crypto, chainId: config.chain.chainId });
    mkdirSync(config.node.dataDirectory, { recursive: true });
    const store = Store.open(join(config.node.dataDirectory, 'state'), protocol);
    const features = PreActivatedFeatures.fromSettings(config.chain.functionality);
    if (config.chain.consensus.type !== 'poa') throw new Error(`Consensus '${config.chain.consensus.type}' is not supported by this node yet; use poa`);
    const rules = PoaRules.fromSettings(config.chain, features);
    const chain = new Blockchain({
      store,
      protocol,
      settings: config.chain,
      features,
      consensus: rules,
      txExpireTimeoutMs: config.utx.txExpireTimeoutMs,
      now,
    });
    chain.ensureGenesis();
    const keystore = Keystore.open(config.node.wallet.file, protocol.addresses);
    const owner = keystore.keyPair(config.node.ownerAddress.toString(), config.node.ownerPassword);
    const verifier = await SignatureVerifierPool.start(config.chain.crypto, undefined, protocol.crypto);
    const pool = new UtxPool({
      chain,
      settings: config.utx,
      now,
      verifier,
      onDrop: (tx, reason) => log.debug({ id: tx.idBase58, reason: reason.message }, 'transaction dropped from the pool'),
    });
    const miner = config.miner.enabled
      ? new Miner({ chain, pool, rules, settings: config.miner, keyPair: owner, now, log: log.child({ module: 'miner' }) })
      : undefined;
    const node = new Node(config, protocol, store, chain, pool, keystore, owner, miner, verifier, log, now);
    chain.on((event) => {
      if (event.kind === 'block') log.info({ height: event.height, id: event.block.idBase58, generator: event.block.generatorAddress }, 'block appended');
      if (event.kind === 'rollback') log.info({ height: event.height, returned: event.removed.length }, 'rolled back');
    });
    log.info({ height: chain.height(), chainId: config.chain.chainId, owner: config.node.ownerAddress.toString() }, 'chain opened');
    if (config.api.enabled) {
      node.api = createApiServer(node.services(), { loggerInstance: log.child({ module: 'api' }) });
      try {
        node.restUrl = await listen(node.api, config.api);
      } catch (e) {
        // Nothing half-running: a node that cannot serve stops (e.g. the port is taken).
        await node.stop();
        throw e;
      }
      log.info({ url: node.restUrl }, 'REST API listening');
    }
    miner?.start();
    return node;
  }

  get url(): string | undefined {
    return this.restUrl;
  }

  /** What the HTTP layer may call. */
  services(): ApiServices {
    const { chain, pool, keystore, protocol } = this;
    const reader: ChainReader = {
      height: () => chain.height(),
      blockAt: (h) => chain.blockAt(h),
      blockById: (id) => chain.blockById(id),
      childOf: (id) => chain.childOf(id),
      transaction: (id) => {
        const loc = this.store.transaction(id);
        return loc === undefined ? undefined : { tx: protocol.transactionFromBytes(loc.bytes), height: loc.height };
      },
      addressTransactions: (address, limit, afterId) => this.addressTransactions(address, limit, afterId),
      state: () => chain.state(),
      minimalFee: (tx) => minimalFee(tx, chain.state(), { settings: chain.settings, features: chain.features, height: chain.height() }),
    };
    return {
      protocol,
      settings: this.config.api,
      chain: reader,
      pool: {
        broadcast: async (tx) => {
          const admitted = await pool.broadcast(tx);
          this.miner?.wake();
          return admitted;
        },
        unconfirmed: () => pool.all(),
        unconfirmedById: (id) => pool.get(id),
        size: () => pool.size(),
      },
      wallet: {
        keyPair: (address, password) => keystore.keyPair(address, password),
        reload: () => keystore.reload(),
      },
      admin: {
        rollback: (height, returnToUtx) => {
          const removed = chain.rollbackTo(height);
          if (!returnToUtx) for (const tx of removed) pool.remove(tx.id);
          return chain.lastBlock().id;
        },
        rollbackTo: (id) => {
          const found = chain.blockById(id);
          if (found === undefined || k(found.block.id) !== k(id)) {
            throw new WeError('BlockDoesNotExist', 301, `block with signature '${encodeBase58(id)}' does not exist`, 'signature', 404);
          }
          const removed = chain.rollbackTo(found.height);
          for (const tx of removed) pool.remove(tx.id);
          return chain.lastBlock().id;
        },
      },
      nodeOwnerPublicKey: this.owner.publicKey,
      now: this.now,
    };
  }

  /** Confirmed transactions of an address, newest first, optionally after a given id. */
  private addressTransactions(address: Uint8Array, limit: number, afterId?: Uint8Array): { txs: Array<{ tx: Transaction; height: number }>; afterFound: boolean } {
    const txs: Array<{ tx: Transaction; height: number }> = [];
    let afterFound = afterId === undefined;
    const after = afterId === undefined ? undefined : k(afterId);
    for (const id of this.store.addressTransactionIds(address)) {
      if (!afterFound) {
        if (k(id) === after) afterFound = true;
        continue;
      }
      if (txs.length >= limit) break;
      const loc = this.store.transaction(id);
      if (loc !== undefined) txs.push({ tx: this.protocol.transactionFromBytes(loc.bytes), height: loc.height });
    }
    return { txs, afterFound };
  }

  /** Stops mining and serving, and closes the store. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.miner?.stop();
      if (this.api !== undefined) await this.api.close();
      await this.verifier.close();
      await this.store.close();
      this.log.info({}, 'node stopped');
    })();
    return this.stopping;
  }
}
