/**
 * The case types of WE's Waves context (lang `waves/Types.scala`, reference ride.md §4):
 * Address, Alias, Transfer, AssetPair, DataEntry, Order and the transaction types, each
 * in two variants — with `proofs` (account scripts) and without (asset scripts).
 */
import { BOOLEAN, BYTEVECTOR, caseType, list, LONG, STRING, union, UNIT, type Final, type Real } from './types.js';

export const ADDRESS = caseType('Address', [['bytes', BYTEVECTOR]]);
export const ALIAS = caseType('Alias', [['alias', STRING]]);
export const ADDRESS_OR_ALIAS = union([ADDRESS, ALIAS]);
export const TRANSFER = caseType('Transfer', [
  ['recipient', ADDRESS_OR_ALIAS],
  ['amount', LONG],
]);
export const OPTION_BYTEVECTOR = union([BYTEVECTOR, UNIT]);
export const OPTION_ADDRESS = union([ADDRESS, UNIT]);
export const OPTION_LONG = union([LONG, UNIT]);
export const BUY = caseType('Buy', []);
export const SELL = caseType('Sell', []);
export const ORDER_TYPE = union([BUY, SELL]);
export const ASSET_PAIR = caseType('AssetPair', [
  ['amountAsset', OPTION_BYTEVECTOR],
  ['priceAsset', OPTION_BYTEVECTOR],
]);
export const DATA_ENTRY = caseType('DataEntry', [
  ['key', STRING],
  ['value', union([LONG, BOOLEAN, BYTEVECTOR, STRING])],
]);

type Fields = ReadonlyArray<readonly [string, Final]>;

const HEADER: Fields = [
  ['id', BYTEVECTOR],
  ['fee', LONG],
  ['timestamp', LONG],
  ['version', LONG],
];
const PROVEN: Fields = [
  ['sender', ADDRESS],
  ['senderPublicKey', BYTEVECTOR],
  ['bodyBytes', BYTEVECTOR],
];
const PROOFS: readonly [string, Final] = ['proofs', list(BYTEVECTOR)];

/** The case types of one variant of the context. */
export interface WavesTypes {
  readonly order: Real;
  readonly genesis: Real;
  readonly payment: Real;
  /** The six transaction types an asset script's `tx` can be, in WE's order. */
  readonly assetSupported: readonly Real[];
  /** The 17 active transaction types (the `Transaction` union), in WE's order. */
  readonly active: readonly Real[];
  /** By name, every transaction case type (obsolete and active). */
  readonly byName: ReadonlyMap<string, Real>;
}

function build(proofs: boolean): WavesTypes {
  const withProofs = (own: Fields, header = true, proven = true): Fields => {
    const fields = [...own, ...(header ? HEADER : []), ...(proven ? PROVEN : [])];
    return proofs ? [...fields, PROOFS] : fields;
  };
  const tx = (name: string, own: Fields): Real => caseType(name, withProofs(own));
  const order = caseType(
    'Order',
    withProofs(
      [
        ['id', BYTEVECTOR],
        ['matcherPublicKey', BYTEVECTOR],
        ['assetPair', ASSET_PAIR],
        ['orderType', ORDER_TYPE],
        ['price', LONG],
        ['amount', LONG],
        ['timestamp', LONG],
        ['expiration', LONG],
        ['matcherFee', LONG],
      ],
      false,
    ),
  );
  const genesis = caseType('GenesisTransaction', [['amount', LONG], ['recipient', ADDRESS_OR_ALIAS], ...HEADER]);
  const payment = tx('PaymentTransaction', [
    ['amount', LONG],
    ['recipient', ADDRESS_OR_ALIAS],
  ]);
  const assetSupported = [
    tx('ReissueTransaction', [
      ['quantity', LONG],
      ['assetId', BYTEVECTOR],
      ['reissuable', BOOLEAN],
    ]),
    tx('BurnTransaction', [
      ['quantity', LONG],
      ['assetId', BYTEVECTOR],
    ]),
    tx('MassTransferTransaction', [
      ['feeAssetId', OPTION_BYTEVECTOR],
      ['assetId', OPTION_BYTEVECTOR],
      ['totalAmount', LONG],
      ['transfers', list(TRANSFER)],
      ['transferCount', LONG],
      ['attachment', BYTEVECTOR],
    ]),
    tx('ExchangeTransaction', [
      ['buyOrder', order],
      ['sellOrder', order],
      ['price', LONG],
      ['amount', LONG],
      ['buyMatcherFee', LONG],
      ['sellMatcherFee', LONG],
    ]),
    tx('TransferTransaction', [
      ['feeAssetId', OPTION_BYTEVECTOR],
      ['amount', LONG],
      ['assetId', OPTION_BYTEVECTOR],
      ['recipient', ADDRESS_OR_ALIAS],
      ['attachment', BYTEVECTOR],
    ]),
    tx('SetAssetScriptTransaction', [
      ['script', OPTION_BYTEVECTOR],
      ['assetId', BYTEVECTOR],
    ]),
  ];
  const active = [
    ...assetSupported,
    tx('CreateContractTransaction', []),
    tx('CallContractTransaction', [
      ['contractId', BYTEVECTOR],
      ['contractVersion', LONG],
    ]),
    tx('DisableContractTransaction', [['contractId', BYTEVECTOR]]),
    tx('UpdateContractTransaction', [['contractId', BYTEVECTOR]]),
    tx('IssueTransaction', [
      ['quantity', LONG],
      ['name', BYTEVECTOR],
      ['description', BYTEVECTOR],
      ['reissuable', BOOLEAN],
      ['decimals', LONG],
      ['script', OPTION_BYTEVECTOR],
    ]),
    tx('LeaseTransaction', [
      ['amount', LONG],
      ['recipient', ADDRESS_OR_ALIAS],
    ]),
    tx('LeaseCancelTransaction', [['leaseId', BYTEVECTOR]]),
    tx('CreateAliasTransaction', [['alias', STRING]]),
    tx('SetScriptTransaction', [['script', OPTION_BYTEVECTOR]]),
    tx('SponsorFeeTransaction', [
      ['assetId', BYTEVECTOR],
      ['isEnabled', BOOLEAN],
    ]),
    tx('DataTransaction', [['data', list(DATA_ENTRY)]]),
  ];
  const byName = new Map<string, Real>();
  for (const t of [genesis, payment, ...active]) if (t.k === 'CASE') byName.set(t.name, t);
  return { order, genesis, payment, assetSupported, active, byName };
}

/** With `proofs` (account scripts). */
export const ACCOUNT_TYPES: WavesTypes = build(true);
/** Without `proofs` (asset scripts). */
export const TOKEN_TYPES: WavesTypes = build(false);
