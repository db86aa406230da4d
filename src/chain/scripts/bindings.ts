/**
 * Transactions and orders as a script sees them (we-core RealTransactionWrapper and lang
 * waves/Bindings; reference ride.md §4): the case object WE binds to `tx` (and returns
 * from `transactionById`) for each transaction class it maps — Genesis, Transfer, Issue,
 * Reissue, Burn, Lease, LeaseCancel, CreateAlias, MassTransfer V1, SetScript,
 * SetAssetScript V1, Exchange, SponsorFee V1, Data, CreateContract, CallContract,
 * DisableContract, UpdateContract. Every other class (MassTransfer V2+, SponsorFee V2,
 * permits, node registration, policies, atomics, executed contracts, genesis permits)
 * makes WE fail with an uncaught error as soon as `tx` is read.
 */
import { Address, Alias } from '../../crypto/address.js';
import type { DataEntry } from '../../protocol/transactions/fields.js';
import { orderBodyBytes, orderId, type ExchangeData, type Order } from '../../protocol/transactions/exchange.js';
import type { Transaction } from '../../protocol/transactions/schema.js';
import { UncaughtError } from '../../ride/errors.js';
import { CaseObj, RideList, unit, type Value } from '../../ride/values.js';
import { ADDRESS, ALIAS, ASSET_PAIR, BUY, DATA_ENTRY, SELL, TRANSFER, type WavesTypes } from '../../ride/we-types.js';

type Fields = Array<readonly [string, Value]>;

const option = (v: Uint8Array | null | undefined): Value => (v === null || v === undefined ? unit : v);

export const addressObject = (bytes: Uint8Array): CaseObj => CaseObj.of(ADDRESS, [['bytes', bytes]]);

function recipientObject(r: Address | Alias): CaseObj {
  return r instanceof Alias ? CaseObj.of(ALIAS, [['alias', r.name]]) : addressObject(r.bytes);
}

const proofsList = (proofs: readonly Uint8Array[]): RideList => new RideList([...proofs, ...Array.from({ length: Math.max(0, 8 - proofs.length) }, () => new Uint8Array(0))]);

function header(tx: Transaction): Fields {
  return [
    ['id', tx.id],
    ['fee', tx.fee],
    ['timestamp', tx.timestamp],
    ['version', BigInt(tx.version)],
  ];
}

function proven(tx: Transaction, proofs: boolean): Fields {
  const pk = tx.senderPublicKey!;
  const fields: Fields = [
    ['sender', addressObject(tx.protocol.addresses.fromPublicKey(pk).bytes)],
    ['senderPublicKey', pk],
    ['bodyBytes', tx.bodyBytes],
    ...header(tx),
  ];
  if (proofs) fields.push(['proofs', proofsList(tx.proofs)]);
  return fields;
}

function dataValue(e: DataEntry): Value {
  return e.value;
}

/** Bindings.orderObject. */
export function orderObject(o: Order, tx: Pick<Transaction, 'protocol'>, types: WavesTypes): CaseObj {
  const fields: Fields = [
    ['id', orderId(o, tx.protocol)],
    ['sender', addressObject(tx.protocol.addresses.fromPublicKey(o.senderPublicKey).bytes)],
    ['senderPublicKey', o.senderPublicKey],
    ['matcherPublicKey', o.matcherPublicKey],
    [
      'assetPair',
      CaseObj.of(ASSET_PAIR, [
        ['amountAsset', option(o.amountAsset)],
        ['priceAsset', option(o.priceAsset)],
      ]),
    ],
    ['orderType', CaseObj.of(o.orderType === 'buy' ? BUY : SELL, [])],
    ['amount', o.amount],
    ['price', o.price],
    ['timestamp', o.timestamp],
    ['expiration', o.expiration],
    ['matcherFee', o.matcherFee],
    ['bodyBytes', orderBodyBytes(o)],
    ['proofs', proofsList(o.proofs)],
  ];
  // WE's order object always carries proofs; its type (asset scripts) may not declare them.
  return CaseObj.of(types.order, fields);
}

/** No RIDE binding for this transaction class in WE: reading `tx` fails uncaught (a scala.MatchError there). */
function unbound(tx: Transaction): UncaughtError {
  return new UncaughtError(`scala.MatchError: ${tx.codec.name} transaction version ${tx.version} has no RIDE binding (of class ${tx.codec.name}TransactionV${tx.version})`);
}

/** RealTransactionWrapper + Bindings.transactionObject: the case object of a transaction. */
export function transactionObject(tx: Transaction, types: WavesTypes, proofs: boolean): CaseObj {
  const d = tx.data as Readonly<Record<string, unknown>>;
  const make = (name: string, own: Fields, withProven = true): CaseObj => {
    const type = name === 'GenesisTransaction' ? types.genesis : types.byName.get(name);
    if (type === undefined) throw new Error(`no case type ${name}`);
    return CaseObj.of(type, [...own, ...(withProven ? proven(tx, proofs) : header(tx))]);
  };
  const bytes = (k: string): Uint8Array => d[k] as Uint8Array;
  const long = (k: string): bigint => d[k] as bigint;
  switch (tx.type) {
    case 1:
      return make('GenesisTransaction', [['amount', long('amount')], ['recipient', recipientObject(d['recipient'] as Address)]], false);
    case 3:
      return make('IssueTransaction', [
        ['quantity', long('quantity')],
        ['name', bytes('name')],
        ['description', bytes('description')],
        ['reissuable', d['reissuable'] as boolean],
        ['decimals', BigInt(d['decimals'] as number)],
        ['script', option(d['script'] as Uint8Array | null)],
      ]);
    case 4:
      return make('TransferTransaction', [
        ['amount', long('amount')],
        ['feeAssetId', option(d['feeAssetId'] as Uint8Array | null)],
        ['assetId', option(d['assetId'] as Uint8Array | null)],
        ['attachment', bytes('attachment')],
        ['recipient', recipientObject(d['recipient'] as Address | Alias)],
      ]);
    case 5:
      return make('ReissueTransaction', [
        ['quantity', long('quantity')],
        ['assetId', bytes('assetId')],
        ['reissuable', d['reissuable'] as boolean],
      ]);
    case 6:
      return make('BurnTransaction', [
        ['quantity', long('amount')],
        ['assetId', bytes('assetId')],
      ]);
    case 7: {
      const x = tx.data as ExchangeData;
      return make('ExchangeTransaction', [
        ['buyOrder', orderObject(x.buyOrder, tx, types)],
        ['sellOrder', orderObject(x.sellOrder, tx, types)],
        ['amount', x.amount],
        ['price', x.price],
        ['buyMatcherFee', x.buyMatcherFee],
        ['sellMatcherFee', x.sellMatcherFee],
      ]);
    }
    case 8:
      return make('LeaseTransaction', [
        ['amount', long('amount')],
        ['recipient', recipientObject(d['recipient'] as Address | Alias)],
      ]);
    case 9:
      return make('LeaseCancelTransaction', [['leaseId', bytes('leaseId')]]);
    case 10:
      return make('CreateAliasTransaction', [['alias', (d['alias'] as Alias).name]]);
    case 11: {
      if (tx.version !== 1) throw unbound(tx);
      const transfers = d['transfers'] as ReadonlyArray<{ recipient: Address | Alias; amount: bigint }>;
      // Long.sum wraps around on overflow in WE.
      const total = BigInt.asIntN(64, transfers.reduce((a, t) => a + t.amount, 0n));
      return make('MassTransferTransaction', [
        [
          'transfers',
          new RideList(
            transfers.map((t) =>
              CaseObj.of(TRANSFER, [
                ['recipient', recipientObject(t.recipient)],
                ['amount', t.amount],
              ]),
            ),
          ),
        ],
        ['assetId', option(d['assetId'] as Uint8Array | null)],
        ['transferCount', BigInt(transfers.length)],
        ['totalAmount', total],
        ['attachment', bytes('attachment')],
      ]);
    }
    case 12:
      return make('DataTransaction', [
        [
          'data',
          new RideList(
            (d['data'] as readonly DataEntry[]).map((e) =>
              CaseObj.of(DATA_ENTRY, [
                ['key', e.key],
                ['value', dataValue(e)],
              ]),
            ),
          ),
        ],
      ]);
    case 13:
      return make('SetScriptTransaction', [['script', option(d['script'] as Uint8Array | null)]]);
    case 14:
      if (tx.version !== 1) throw unbound(tx);
      return make('SponsorFeeTransaction', [
        ['assetId', bytes('assetId')],
        ['isEnabled', d['isEnabled'] as boolean],
      ]);
    case 15:
      return make('SetAssetScriptTransaction', [
        ['script', option(d['script'] as Uint8Array | null)],
        ['assetId', bytes('assetId')],
      ]);
    case 103:
      return make('CreateContractTransaction', []);
    case 104:
      return make('CallContractTransaction', [
        ['contractId', bytes('contractId')],
        // CallContract V1 has no contractVersion field: it always calls version 1.
        ['contractVersion', BigInt(tx.version === 1 ? 1 : (d['contractVersion'] as number))],
      ]);
    case 106:
      return make('DisableContractTransaction', [['contractId', bytes('contractId')]]);
    case 107:
      return make('UpdateContractTransaction', [['contractId', bytes('contractId')]]);
    default:
      throw unbound(tx);
  }
}
