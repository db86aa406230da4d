/**
 * BlockchainEventsService.SubscribeOn end to end: a devnet of three node processes
 * (devkit/network.ts; PoA, quorum 0 so a node cut off forges alone), each with its public gRPC
 * API on its own port, read with the official client (`BlockchainEventsServiceClient` of
 * @wavesenterprise/js-contract-grpc-client) as an indexer reads it:
 *
 * - an indexer (devkit/api/event-indexer.ts: it asserts WE's ordering promises on every
 *   event) follows node 0 from genesis while transfers are broadcast over REST, through a
 *   `/debug/rollback`, a reconnect from the last block signature it saw (no gap, no
 *   duplicate), and a fork switch (nodes 1 and 2 restarted on P2P ports node 0 does not know:
 *   both sides forge, then node 1 connects to node 0 and node 0 takes their better branch),
 *   and ends with exactly the blocks and transactions of node 0's REST /blocks/seq, the
 *   liquid block's included;
 * - start points and errors over the wire: `current_event` gives no history, an unknown
 *   signature is NOT_FOUND with `error-code` 301, no start point is INVALID_ARGUMENT; filters
 *   by transaction type, in and out;
 * - a reader that stops reading while the node mines: the node answers /node/status, its
 *   height grows, its anonymous memory (RssAnon) does not grow with the chain; resumed, the
 *   reader gets every event;
 * - node 2 reconfigured with OAuth2 auth and `services.blockchain-events.max-connections = 2`:
 *   no token → UNAUTHENTICATED, a token with any role is served; a third stream →
 *   UNAVAILABLE 642.
 *
 * WEFT_GRPC_E2E_HEAVY=1 lets the slow reader's chain grow for longer with more transfers.
 */
import assert from 'node:assert/strict';
import { createSign, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { BlockchainEventsServiceClient } from '@wavesenterprise/js-contract-grpc-client/messagebroker/messagebroker_blockchain_events_service.js';
import type { BlockchainEvent } from '@wavesenterprise/js-contract-grpc-client/messagebroker/messagebroker_blockchain_event.js';
import type { SubscribeOnRequest } from '@wavesenterprise/js-contract-grpc-client/util/events/util_events_subscribe_on_request.js';
import type { Transaction as TransactionMessage } from '@wavesenterprise/js-contract-grpc-client/managed/transaction.js';
import { decodeBase58, encodeBase58 } from '../../src/crypto/encoding.js';
import { devAccounts, devProtocol, type DevAccount } from '../../src/cli/dev.js';
import { freeLoopbackPort } from '../../src/cli/devnet.js';
import type { Protocol } from '../../src/protocol/protocol.js';
import { EventIndexer, messageTxId } from '../../devkit/api/event-indexer.js';
import { Devnet, oneChain, sleep, until, type NetNode } from '../../devkit/network.js';
import { signedTransfer } from '../support/transfers.js';

const HEAVY = process.env['WEFT_GRPC_E2E_HEAVY'] === '1';

let p: Protocol;
let accounts: DevAccount[];
let net: Devnet;
let nonce = 0;

type EventStream = grpc.ClientReadableStream<BlockchainEvent>;
type Request = Partial<SubscribeOnRequest>;

/** A client on its own connection (grpc-js shares one between the clients of a process unless told not to). */
const eventsClient = (node: NetNode): BlockchainEventsServiceClient =>
  new BlockchainEventsServiceClient(`127.0.0.1:${node.spec.publicGrpcPort!}`, grpc.credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 });

const request = (r: Request): SubscribeOnRequest => ({
  genesisBlock: undefined,
  blockSignature: undefined,
  currentEvent: undefined,
  eventsFilters: [],
  ...r,
});

const fromGenesis: Request = { genesisBlock: {} };
const fromBlock = (signature: string): Request => ({ blockSignature: { lastBlockSignature: decodeBase58(signature) } });

/** A stream's first answer: open (its response headers came with its first event), or refused. */
const opened = (stream: EventStream): Promise<'open' | grpc.ServiceError> =>
  new Promise((resolve) => {
    stream.once('metadata', () => resolve('open'));
    stream.once('error', resolve);
  });

async function refusal(stream: EventStream): Promise<grpc.ServiceError> {
  const answer = await opened(stream);
  assert.ok(answer !== 'open', 'the stream is refused');
  return answer;
}

/** The oneof field a Transaction message holds (`transferTransaction`, `genesisTransaction`, …). */
function messageKind(message: TransactionMessage): string {
  for (const [key, value] of Object.entries(message)) if (key !== 'version' && value !== undefined) return key;
  throw new Error('a Transaction message with no transaction');
}

/** The transactions an event carries in full. */
function fullTransactions(e: BlockchainEvent): TransactionMessage[] {
  return e.appendedBlockHistory?.txs ?? e.microBlockAppended?.txs ?? [];
}

/** A signed transfer between dev accounts, broadcast to `node` over REST; its id when admitted. */
async function broadcastTransfer(node: NetNode): Promise<string | undefined> {
  const i = nonce++;
  const t = signedTransfer(p, accounts[1 + (i % 4)]!, accounts[1 + ((i + 1) % 4)]!, 1000n + BigInt(i), BigInt(Date.now()) + BigInt(i));
  const r = await node.post('/transactions/broadcast', t.body).catch(() => undefined);
  return r?.status === 200 ? t.id : undefined;
}

/** Broadcasts a transfer to `node` every `everyMs` until stopped. */
function transferStream(node: NetNode, everyMs: number): { readonly ids: string[]; stop(): Promise<void> } {
  const ids: string[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const id = await broadcastTransfer(node);
      if (id !== undefined) ids.push(id);
      await sleep(everyMs);
    }
  })();
  return {
    ids,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

/** Node's chain over REST: every block's signature and transaction ids below the top, and the liquid block's transactions. */
async function restChain(node: NetNode): Promise<{ blocks: Map<number, { signature: string; txIds: string[] }>; liquid: string[]; height: number }> {
  const height = await node.height();
  const blocks = new Map<number, { signature: string; txIds: string[] }>();
  let liquid: string[] = [];
  for (let from = 1; from <= height; from += 100) {
    const r = await node.get(`/blocks/seq/${from}/${Math.min(height, from + 99)}`);
    assert.equal(r.status, 200, r.text);
    for (const b of r.json as unknown as Array<{ height: number; signature: string; transactions: Array<{ id: string }> }>) {
      const txIds = b.transactions.map((t) => t.id);
      if (b.height === height) liquid = txIds;
      else blocks.set(b.height, { signature: b.signature, txIds });
    }
  }
  return { blocks, liquid, height };
}

/** An indexer reading one node's events, reconnecting as a real one would. */
class IndexerReader {
  readonly indexer = new EventIndexer();
  failure: Error | undefined;
  private stream: EventStream | undefined;
  private readonly client: BlockchainEventsServiceClient;

  constructor(node: NetNode) {
    this.client = eventsClient(node);
  }

  subscribe(start: Request): EventStream {
    const stream = this.client.subscribeOn(request(start));
    stream.on('data', (e: BlockchainEvent) => {
      if (this.failure !== undefined || this.stream !== stream) return;
      try {
        this.indexer.apply(e);
      } catch (err) {
        this.failure = err instanceof Error ? err : new Error(String(err));
      }
    });
    stream.on('error', (err: grpc.ServiceError) => {
      if (this.stream === stream && err.code !== grpc.status.CANCELLED) this.failure ??= err;
    });
    this.stream = stream;
    return stream;
  }

  /** The last block it holds: where it reconnects from. */
  lastBlock(): string {
    return this.indexer.blocks.get(this.indexer.height)!.signature;
  }

  /** Drops the stream and subscribes again from the last block it holds (what it knew of the liquid block comes again). */
  reconnect(): void {
    const old = this.stream;
    this.stream = undefined;
    old?.cancel();
    this.indexer.liquid = [];
    this.subscribe(fromBlock(this.lastBlock()));
  }

  /** Resolves once the indexer holds exactly the node's chain (the chain is live: compared until they meet). */
  async matches(node: NetNode, timeoutMs: number): Promise<void> {
    let last = '';
    try {
      await until(
        `the indexer to hold ${node.spec.name}'s chain`,
        async () => {
          if (this.failure !== undefined) throw this.failure;
          const chain = await restChain(node);
          const held = new Map([...this.indexer.blocks].sort(([a], [b]) => a - b));
          const same = JSON.stringify([...held]) === JSON.stringify([...chain.blocks]) && JSON.stringify(this.indexer.liquid) === JSON.stringify(chain.liquid);
          last = `indexer at ${this.indexer.height} (+${this.indexer.liquid.length} liquid), node at ${chain.height} (+${chain.liquid.length} liquid)`;
          return same ? true : undefined;
        },
        timeoutMs,
        250,
      );
    } catch (e) {
      throw new Error(`${(e as Error).message}; ${last}`, { cause: e });
    }
  }

  close(): void {
    const s = this.stream;
    this.stream = undefined;
    s?.cancel();
    this.client.close();
  }
}

/** The node process's anonymous resident memory (heap, buffers; not the store's mapped file), in bytes. */
function rssAnon(node: NetNode): number {
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!cmdline.split('\0').includes(node.spec.configFile)) continue;
    const m = /RssAnon:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    assert.ok(m !== null, 'RssAnon in /proc/<pid>/status');
    return Number(m[1]) * 1024;
  }
  throw new Error(`no process for ${node.spec.name}`);
}

function jwt(privateKey: KeyObject, claims: object): string {
  const b64url = (x: object | Buffer): string => (Buffer.isBuffer(x) ? x : Buffer.from(JSON.stringify(x))).toString('base64url');
  const input = `${b64url({ alg: 'RS256', typ: 'JWT' })}.${b64url(claims)}`;
  return `${input}.${b64url(createSign('sha256').update(input).sign(privateKey))}`;
}

describe('BlockchainEventsService over the wire, three node processes', { timeout: HEAVY ? 600_000 : 240_000 }, () => {
  after(() => net?.dispose());
  before(async () => {
    p = await devProtocol();
    accounts = devAccounts(p);
    net = await Devnet.create({
      nodes: 3,
      quorum: 0,
      roundDurationMs: 1500,
      syncDurationMs: 500,
      microBlockIntervalMs: 300,
      // A node cut off skips the others' rounds: no ban may take it out of the queue meanwhile.
      bans: { warningsForBan: 1000 },
      register: false,
    });
    try {
      await net.startAll(90_000);
      await net.meshed(30_000);
      await oneChain(net.nodes, 30_000);
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${net.outputs()}`, { cause: e });
    }
  });

  it('an indexer follows node 0 from genesis through /debug/rollback, a reconnect and a fork switch, and ends with exactly its chain', async (t) => {
    const [a, b, c] = net.nodes as [NetNode, NetNode, NetNode];
    const reader = new IndexerReader(a);
    const transfers = transferStream(a, 150);
    try {
      reader.subscribe(fromGenesis);
      await until('a few blocks with transfers', async () => ((await a.height()) >= 6 && transfers.ids.length >= 10 ? true : undefined), 30_000);
      await reader.matches(a, 20_000);

      // /debug/rollback: node 0 drops its last blocks (their transactions back to its pool), then takes the others' chain again.
      const top = await a.height();
      const rolled = await a.request('POST', '/debug/rollback', { rollbackTo: top - 3, returnTransactionsToUtx: true });
      assert.equal(rolled.status, 200, rolled.text);
      await until('a rollback event', () => Promise.resolve(reader.indexer.kinds.includes('rollback') ? true : undefined), 15_000, 100);
      await until('node 0 past its old top', async () => ((await a.height()) > top ? true : undefined), 30_000);

      // Reconnect from the last block the indexer holds, in the middle of the traffic.
      reader.reconnect();
      await sleep(1000);
      reader.reconnect();

      // Partition: nodes 1 and 2 restart on P2P ports node 0 does not know, knowing only each other.
      await Promise.all([b.stop(), c.stop()]);
      const [pb, pc] = [await freeLoopbackPort(), await freeLoopbackPort()];
      for (const [node, own, peer] of [
        [b, pb, pc],
        [c, pc, pb],
      ] as const) {
        await node.editConfig((conf) => {
          const network = conf['network'] as Record<string, unknown>;
          network['port'] = own;
          network['declared-address'] = `127.0.0.1:${own}`;
          network['known-peers'] = [`127.0.0.1:${peer}`];
        });
      }
      await Promise.all([b.start(60_000), c.start(60_000)]);
      const cut = await a.height();
      await until(
        'both sides forging apart',
        async () => {
          const [ha, hb] = [await a.height(), await b.height()];
          return ha >= cut + 2 && hb >= ha + 2 && (await b.connectedPeers()).length === 1 && (await a.connectedPeers()).length === 0 ? true : undefined;
        },
        60_000,
        300,
      );
      const [ownTop] = await a.signatures(cut + 1).then((s) => s.slice(-1));
      await reader.matches(a, 20_000);

      // Heal: node 1 dials node 0, which takes the better branch: the indexer is told what node 0's own branch held.
      const rollbacksBefore = reader.indexer.kinds.filter((k) => k === 'rollback').length;
      const connect = await b.post('/peers/connect', { host: '127.0.0.1', port: a.spec.p2pPort });
      assert.equal(connect.status, 200, connect.text);
      await oneChain(net.nodes, 60_000);
      const after = await a.signatures(cut + 1);
      assert.notEqual(after[cut], ownTop, 'node 0 left its own branch');
      await transfers.stop();
      await reader.matches(a, 30_000);
      const rollbacks = reader.indexer.kinds.filter((k) => k === 'rollback').length;
      assert.ok(
        rollbacksBefore >= 1 && rollbacks > rollbacksBefore,
        `a rollback for /debug/rollback and one for the fork switch (${reader.indexer.kinds.join(' ')})`,
      );
      t.diagnostic(`${reader.indexer.kinds.length} events (${rollbacks} rollbacks), ${transfers.ids.length} transfers, height ${reader.indexer.height}`);
      for (const kind of ['history', 'micro', 'block']) assert.ok(reader.indexer.kinds.includes(kind), `${kind} events`);
      // Transfers admitted on node 0 and confirmed: the indexer holds each once.
      const held = [...reader.indexer.blocks.values()].flatMap((bl) => bl.txIds).concat(reader.indexer.liquid);
      assert.equal(new Set(held).size, held.length, 'no transaction twice');
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${net.outputs()}`, { cause: e });
    } finally {
      await transfers.stop();
      reader.close();
    }
  });

  it('start points and filters: current_event gives no history; an unknown block is NOT_FOUND 301; no start point is INVALID_ARGUMENT; type filters in and out', async () => {
    const a = net.nodes[0]!;
    const client = eventsClient(a);
    const streams: EventStream[] = [];
    const open = (r: Request, metadata = new grpc.Metadata()): EventStream => {
      const s = client.subscribeOn(request(r), metadata);
      s.on('error', () => {});
      streams.push(s);
      return s;
    };
    try {
      const unknown = await refusal(open(fromBlock(encodeBase58(new Uint8Array(64).fill(7)))));
      assert.equal(unknown.code, grpc.status.NOT_FOUND);
      assert.equal(unknown.metadata.get('error-code')[0], '301');
      for (const r of [{}, { blockSignature: { lastBlockSignature: undefined } }] as Request[]) {
        const refused = await refusal(open(r));
        assert.equal(refused.code, grpc.status.INVALID_ARGUMENT, JSON.stringify(r));
      }

      // current_event: the first event is about the block being built or the one just made final, never older history.
      const height = await a.height();
      const current = open({ currentEvent: {} });
      const first = await new Promise<BlockchainEvent>((resolve) => current.once('data', resolve));
      if (first.appendedBlockHistory !== undefined) assert.ok(first.appendedBlockHistory.height.toNumber() >= height, 'no history before the current event');
      else assert.ok(first.microBlockAppended !== undefined || first.blockAppended !== undefined, 'a live event');
      if (first.blockAppended !== undefined) assert.ok(first.blockAppended.height.toNumber() >= height);

      // Type filters over the history: in 4 → exactly the chain's transfers; out 4 → everything else.
      const chain = await restChain(a);
      const last = chain.height - 1;
      const byType = new Map<number, string[]>();
      for (let from = 1; from <= last; from += 100) {
        const r = await a.get(`/blocks/seq/${from}/${Math.min(last, from + 99)}`);
        for (const bl of r.json as unknown as Array<{ transactions: Array<{ id: string; type: number }> }>)
          for (const t of bl.transactions) byType.set(t.type, [...(byType.get(t.type) ?? []), t.id]);
      }
      const transfers = byType.get(4) ?? [];
      const others = [...byType].filter(([type]) => type !== 4).flatMap(([, ids]) => ids);
      assert.ok(transfers.length > 0 && others.length > 0);
      const read = async (out: boolean): Promise<{ ids: Set<string>; kinds: Set<string> }> => {
        const s = open({
          genesisBlock: {},
          eventsFilters: [{ filterIn: out ? undefined : {}, filterOut: out ? {} : undefined, txTypeFilter: { txTypes: [4] }, contractIdFilter: undefined }],
        });
        const ids = new Set<string>();
        const kinds = new Set<string>();
        await new Promise<void>((resolve, reject) => {
          s.on('error', reject);
          s.on('data', (e: BlockchainEvent) => {
            for (const t of fullTransactions(e)) {
              ids.add(messageTxId(t));
              kinds.add(messageKind(t));
            }
            if (e.appendedBlockHistory !== undefined && e.appendedBlockHistory.height.toNumber() >= last) resolve();
          });
        });
        s.cancel();
        return { ids, kinds };
      };
      const kept = await read(false);
      assert.deepEqual([...kept.kinds], ['transferTransaction']);
      for (const id of transfers) assert.ok(kept.ids.has(id), `transfer ${id} kept`);
      const dropped = await read(true);
      assert.ok(!dropped.kinds.has('transferTransaction'), 'no transfer through the out-filter');
      for (const id of others) assert.ok(dropped.ids.has(id), `${id} kept by the out-filter`);
    } finally {
      for (const s of streams) s.cancel();
      client.close();
    }
  });

  it('a reader that stops reading holds neither the chain nor the node’s memory; resumed, it gets every event', async (t) => {
    const a = net.nodes[0]!;
    const reader = new IndexerReader(a);
    const transfers = transferStream(a, HEAVY ? 20 : 60);
    try {
      const stream = reader.subscribe(fromGenesis);
      await reader.matches(a, 30_000);
      stream.pause();
      const start = await a.height();
      const memoryBefore = rssAnon(a);
      const grow = HEAVY ? 60 : 10;
      await until(
        `${grow} more blocks while the reader does not read`,
        async () => {
          const status = await a.get('/node/status', 10_000);
          assert.equal(status.status, 200, 'the node answers meanwhile');
          return (await a.height()) >= start + grow ? true : undefined;
        },
        HEAVY ? 300_000 : 60_000,
        500,
      );
      const memoryAfter = rssAnon(a);
      const grown = (memoryAfter - memoryBefore) / 2 ** 20;
      assert.ok(grown < 64, `the node's anonymous memory grew by ${grown.toFixed(1)} MiB while a reader stood still`);
      await transfers.stop();
      stream.resume();
      await reader.matches(a, 60_000);
      assert.ok(transfers.ids.length > 0);
      t.diagnostic(
        `paused over ${grow} blocks, ${transfers.ids.length} transfers; RssAnon ${grown.toFixed(1)} MiB more; ${reader.indexer.kinds.length} events`,
      );
    } finally {
      await transfers.stop();
      reader.close();
    }
  });

  it('under OAuth2 a stream needs a token (any role); max-connections 2 refuses a third stream with UNAVAILABLE 642', async () => {
    const c = net.nodes[2]!;
    const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
    await c.stop();
    await c.editConfig((conf) => {
      const api = conf['api'] as Record<string, Record<string, unknown>>;
      api['auth'] = { type: 'oauth2', 'public-key': keys.publicKey.export({ format: 'der', type: 'spki' }).toString('base64') };
      api['grpc']!['services'] = { 'blockchain-events': { 'max-connections': 2 }, 'privacy-events': { 'max-connections': 5 } };
    });
    await c.start(60_000);
    const client = eventsClient(c);
    const streams: EventStream[] = [];
    const withToken = (roles: string[]): grpc.Metadata => {
      const m = new grpc.Metadata();
      m.set('authorization', `Bearer ${jwt(keys.privateKey, { roles, exp: Math.floor(Date.now() / 1000) + 3600 })}`);
      return m;
    };
    const open = (metadata: grpc.Metadata): EventStream => {
      const s = client.subscribeOn(request(fromGenesis), metadata);
      s.on('error', () => {});
      streams.push(s);
      return s;
    };
    try {
      const anonymous = await refusal(open(new grpc.Metadata()));
      assert.equal(anonymous.code, grpc.status.UNAUTHENTICATED);
      assert.equal(anonymous.metadata.get('error-code')[0], '618');
      assert.equal(await opened(open(withToken(['privacy']))), 'open');
      assert.equal(await opened(open(withToken(['user']))), 'open');
      const third = await refusal(open(withToken(['admin'])));
      assert.equal(third.code, grpc.status.UNAVAILABLE);
      assert.equal(third.metadata.get('error-code')[0], '642');
      // A stream that goes gives its place back.
      streams[1]!.cancel();
      await until('a place freed', async () => ((await opened(open(withToken(['admin'])))) === 'open' ? true : undefined), 10_000, 200);
    } finally {
      for (const s of streams) s.cancel();
      client.close();
    }
  });
});
