/**
 * The JSON the read routes give for transactions and blocks (WE's TxApiFunctions,
 * BlocksApiRoute, TransactionsApiRoute):
 *
 * - extended transaction JSON: a Lease (8) gets `status` — `active` while its lease is
 *   active in state, else `canceled` (so a lease still in the pool reads `canceled`, as
 *   in WE); a LeaseCancel (9) gets `lease`, the cancelled lease's JSON or null;
 * - block JSON: header (with `blocksize`, `transactionCount`), `fee`, `transactions`
 *   (plain or extended), and `height` where the route adds it; header JSON has `fee` too;
 * - the compact form of `/transactions/address`: a MassTransfer not sent by the address
 *   keeps only the transfers to that address or its aliases.
 */
import { Alias, type Address } from '../crypto/address.js';
import type { Block, BlockHeaderView } from '../protocol/blocks.js';
import { stringifyJson, type JsonObject } from '../protocol/json.js';
import { Lease, LeaseCancel } from '../protocol/transactions/leasing.js';
import type { Transaction } from '../protocol/transactions/schema.js';
import { MassTransfer } from '../protocol/transactions/transfer.js';
import type { StateView } from '../state/view.js';
import { SerializedJson } from './routing.js';
import type { JsonPieces } from './heavy-reads.js';
import { writeJsonArray } from './heavy-answers.js';
import type { ChainReader } from './services.js';

/** Reads extended JSON needs; `state` is taken once per answer. */
export class TxJsonReader {
  private stateView: StateView | undefined;

  constructor(private readonly chain: ChainReader) {}

  private get state(): StateView {
    return (this.stateView ??= this.chain.state());
  }

  extended(tx: Transaction): JsonObject {
    const json = tx.toJson();
    if (Lease.is(tx)) {
      json['status'] = this.state.lease(tx.id)?.active === true ? 'active' : 'canceled';
    } else if (LeaseCancel.is(tx)) {
      json['lease'] = this.chain.transaction(tx.data.leaseId)?.tx.toJson() ?? null;
    }
    return json;
  }

  /** `/transactions/address` form of a transaction found for `address`. */
  compactFor(address: Address, tx: Transaction): JsonObject {
    if (MassTransfer.is(tx) && !(tx.sender?.equals(address) ?? false)) {
      const aliases = new Set(this.state.aliasesOf(address.bytes));
      const json = tx.toJson();
      json['transfers'] = tx.data.transfers
        .filter(
          (t) => t.recipient.equals(address) || (t.recipient instanceof Alias && t.recipient.chainId === address.chainId && aliases.has(t.recipient.name)),
        )
        .map((t) => ({ recipient: t.recipient.toString(), amount: t.amount }));
      return json;
    }
    return this.extended(tx);
  }
}

/** Header JSON, the block's WEST `fee` (as WE's swagger documents a header) and height. */
export function headerJson({ header, summary }: BlockHeaderView, height: number): JsonObject {
  return { ...header.headerJson(summary.size, summary.transactionCount), fee: summary.fee, height };
}

/** Full block JSON with plain transaction JSON; `height` added unless undefined. */
export function blockJson(block: Block, height?: number | null): JsonObject {
  const json = block.toJson();
  if (height !== undefined) json['height'] = height;
  return json;
}

/**
 * Serialized answers kept per instance: a block's full JSON per Block (by height), and the
 * plain JSON of each of its transactions per Transaction (under the key `tx`). One cache
 * per server, in its ApiContext.
 */
export type BlockJsonCache = WeakMap<object, Map<string, SerializedJson>>;

/** The plain JSON text of a transaction, kept per Transaction instance. */
function serializedTransactionJson(cache: BlockJsonCache, tx: Transaction): SerializedJson {
  let kept = cache.get(tx);
  if (kept === undefined) {
    kept = new Map();
    cache.set(tx, kept);
  }
  let answer = kept.get('tx');
  if (answer === undefined) {
    let asStrings: string | undefined;
    answer = new SerializedJson(stringifyJson(tx.toJson()), () => (asStrings ??= stringifyJson(tx.toJson(), { int64AsString: true })));
    kept.set('tx', answer);
  }
  return answer;
}

/**
 * The full-block JSON text of a block at a height (blockJson's, byte for byte), kept per
 * Block instance: the chain hands out the same instance for the tip until it changes, so
 * repeated `/blocks/last` (and `/blocks/at`) requests serialize it once; and a liquid block
 * after a micro-block holds the same Transaction instances as before it, whose JSON texts
 * are kept, so only the micro-block's transactions are serialized anew.
 */
export function serializedBlockJson(cache: BlockJsonCache, block: Block, height?: number | null): SerializedJson {
  let byHeight = cache.get(block);
  if (byHeight === undefined) {
    byHeight = new Map();
    cache.set(block, byHeight);
  }
  const key = String(height);
  let answer = byHeight.get(key);
  if (answer === undefined) {
    const txs = block.transactions.map((tx) => serializedTransactionJson(cache, tx));
    const text = (int64AsString: boolean): string => {
      const { open, close } = blockJsonFrame({ header: block, summary: block.summary }, height, int64AsString);
      return `${open}[${txs.map((t) => (int64AsString ? t.textInt64AsString() : t.text)).join(',')}]${close}`;
    };
    let asStrings: string | undefined;
    answer = new SerializedJson(text(false), () => (asStrings ??= text(true)));
    byHeight.set(key, answer);
  }
  return answer;
}

/**
 * A block's JSON as blockJson makes it (header, `fee`, `transactions`,
 * `height` unless undefined), written into `out` a few transactions at a time with turns of
 * the event loop between: one block of thousands of transactions is megabytes of JSON.
 */
export async function writeBlockJson(
  out: JsonPieces,
  view: BlockHeaderView,
  transactions: Iterable<Transaction>,
  height: number | undefined,
  transactionJson: (tx: Transaction) => JsonObject,
  int64AsString: boolean,
): Promise<void> {
  const { open, close } = blockJsonFrame(view, height, int64AsString);
  out.write(open);
  await writeJsonArray(out, transactions, transactionJson, int64AsString);
  out.write(close);
}

/** A block answer's text around its `transactions` array: the header JSON with `fee`, opening `transactions`; the close, with `height` unless undefined. */
function blockJsonFrame(
  { header, summary }: BlockHeaderView,
  height: number | null | undefined,
  int64AsString: boolean,
): { readonly open: string; readonly close: string } {
  const head = stringifyJson({ ...header.headerJson(summary.size, summary.transactionCount), fee: summary.fee }, { int64AsString });
  return { open: `${head.slice(0, -1)},"transactions":`, close: height === undefined ? '}' : `,"height":${stringifyJson(height)}}` };
}

/** Extended transaction JSON (status, height, recipient aliases…) for the transactions of blocks. */
export function extendedTransactionJson(chain: ChainReader): (tx: Transaction) => JsonObject {
  const reader = new TxJsonReader(chain);
  return (tx) => reader.extended(tx);
}
