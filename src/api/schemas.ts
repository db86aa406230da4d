/**
 * TypeBox schemas of what the API reads and writes, for the OpenAPI document and the
 * typed client. Schemas with an `$id` become named components of the document.
 * int64 fields are integers with `format: int64` (written as bare JSON numbers; the
 * client sees `bigint` past 2^53).
 */
import { Type, type TSchema, type TUnsafe } from '@sinclair/typebox';

/** A signed 64-bit integer: bare JSON number (bigint past 2^53 on either side). */
export const Int64 = (options: { description?: string } = {}): TUnsafe<number | bigint> =>
  Type.Unsafe<number | bigint>({ type: 'integer', format: 'int64', ...options });

export const Int32 = (options: { description?: string; minimum?: number } = {}) => Type.Integer({ format: 'int32', ...options });

const Base58 = (description: string) => Type.String({ description, pattern: '^[1-9A-HJ-NP-Za-km-z]*$' });

const nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);

// ---------------------------------------------------------------------------
// Errors and odd answers

export const ErrorBody = Type.Object(
  {
    error: Type.Integer({ description: 'WE ApiError code' }),
    message: Type.String(),
    field: Type.Optional(Type.String({ description: 'The input the error concerns (beyond WE; clients may ignore it)' })),
    cause: Type.Optional(Type.Null()),
    validationErrors: Type.Optional(
      Type.Record(Type.String(), Type.Array(Type.Object({ msg: Type.Array(Type.String()), args: Type.Array(Type.Unknown()) })), {
        description: 'Play\'s JsError.toJson map of error 1, e.g. {"obj.fee":[{"msg":["error.path.missing"],"args":[]}]}',
      }),
    ),
    tx: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'The rejected transaction (errors 112, 117)' })),
  },
  { $id: 'ApiError', additionalProperties: true },
);

export const StatusDetails = Type.Object(
  { status: Type.Literal('error'), details: Type.String() },
  { $id: 'StatusDetails', description: 'WE\'s `{"status":"error","details":…}` answer' },
);

// ---------------------------------------------------------------------------
// Transactions

const TX_FIELDS = {
  type: Type.Integer({ description: 'Transaction type id' }),
  id: Base58('Transaction id'),
  sender: Type.Optional(Type.String({ description: 'Sender address (absent on genesis types)' })),
  senderPublicKey: Type.Optional(Base58('Sender public key')),
  fee: Int64(),
  timestamp: Int64({ description: 'Unix time, ms' }),
  proofs: Type.Optional(Type.Array(Base58('Proof'))),
  signature: Type.Optional(Base58('Signature of genesis types')),
  version: Type.Optional(Type.Integer()),
};

export const Transaction = Type.Object(TX_FIELDS, {
  $id: 'Transaction',
  additionalProperties: true,
  description: "The node's transaction JSON: common fields, then the type's own (see the WE transaction reference)",
});

export const ExtendedTransaction = Type.Object(
  {
    ...TX_FIELDS,
    status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('canceled')], { description: 'Lease (8) only' })),
    lease: Type.Optional(nullable(Type.Ref('Transaction', { description: 'LeaseCancel (9) only: the cancelled lease' }))),
  },
  {
    $id: 'ExtendedTransaction',
    additionalProperties: true,
    description: 'Transaction JSON with the extended fields of Lease (`status`) and LeaseCancel (`lease`)',
  },
);

export const TransactionWithHeight = Type.Object(
  { ...ExtendedTransaction.properties, height: Int32({ description: 'Height of the block holding it' }) },
  { $id: 'TransactionWithHeight', additionalProperties: true },
);

/** A transaction request: `type` and `version` select the reader; the rest depends on them. */
export const TransactionRequest = Type.Object(
  {
    type: Type.Integer({ description: 'Transaction type id' }),
    version: Type.Optional(Type.Union([Type.Integer(), Type.String({ pattern: '^-?[0-9]{1,3}$' })], { description: 'Default 1' })),
  },
  { additionalProperties: true },
);

export const SignedTransactionRequest = Type.Object(
  {
    ...TransactionRequest.properties,
    senderPublicKey: Base58('Sender public key'),
    fee: Int64(),
    timestamp: Int64(),
    proofs: Type.Array(Base58('Proof'), { maxItems: 8 }),
    certificates: Type.Optional(Type.Array(Type.String({ description: 'Base64 DER X.509 certificate' }))),
  },
  {
    $id: 'SignedTransactionRequest',
    additionalProperties: true,
    description: 'A signed transaction as the official clients send it; `id`, `sender`, `height` are ignored',
  },
);

export const UnsignedTransactionRequest = Type.Object(
  {
    ...TransactionRequest.properties,
    sender: Type.String({ description: 'Address whose key in the node keystore signs (Data: `author` signs)' }),
    password: Type.Optional(Type.String({ description: 'Keystore password of that key' })),
    timestamp: Type.Optional(Int64({ description: "Default: the node's time" })),
    fee: Type.Optional(Int64({ description: 'Required except for Atomic' })),
    certificates: Type.Optional(Type.Array(Type.String())),
  },
  {
    $id: 'UnsignedTransactionRequest',
    additionalProperties: true,
    description:
      'The fields of the signed form, with `sender` (+ `password`, optional `timestamp`) instead of `senderPublicKey`, `timestamp`, `proofs`; LeaseCancel gives `txId`, Data gives `author`, Burn gives `quantity`',
  },
);

export const FeeRequest = Type.Object(
  { ...TransactionRequest.properties },
  { $id: 'FeeRequest', additionalProperties: true, description: 'The unsigned request without `sender`, `fee`, `password`, `timestamp` (they are ignored)' },
);

export const FeeAnswer = Type.Object({ feeAssetId: nullable(Base58('Asset the fee is paid in; null for WEST')), feeAmount: Int64() }, { $id: 'FeeAnswer' });

export const UtxSize = Type.Object({ size: Int32(), sizeInBytes: Int64() }, { $id: 'UtxSize' });

// ---------------------------------------------------------------------------
// Blocks

const HEADER_FIELDS = {
  version: Type.Integer({ description: '1 legacy genesis, 2 plain, 3 NG, 4 modern genesis' }),
  timestamp: Int64(),
  reference: Base58('Parent block id'),
  generator: Type.String({ description: 'Address of the miner' }),
  signature: Base58('Block id (for the liquid block: its current total signature)'),
  'pos-consensus': Type.Optional(Type.Object({ 'base-target': Int64(), 'generation-signature': Base58('') })),
  'poa-consensus': Type.Optional(Type.Object({ 'overall-skipped-rounds': Int64() })),
  'cft-consensus': Type.Optional(
    Type.Object({
      votes: Type.Array(Type.Object({ sender: Type.String(), blockVotingHash: Base58(''), signature: Base58('') })),
      'overall-skipped-rounds': Int64(),
    }),
  ),
  features: Type.Optional(Type.Array(Type.Integer(), { description: 'Feature votes (version ≥ 3)' })),
  senderRoleEnabled: Type.Optional(Type.Boolean({ description: 'Modern genesis block only' })),
  blocksize: Int32(),
  transactionCount: Int32(),
};

export const BlockHeader = Type.Object(
  { ...HEADER_FIELDS, fee: Int64({ description: 'WEST fees of its transactions' }), height: Int32() },
  { $id: 'BlockHeader' },
);

export const Block = Type.Object(
  { ...HEADER_FIELDS, fee: Int64({ description: 'WEST fees of its transactions' }), transactions: Type.Array(Type.Ref('Transaction')), height: Int32() },
  { $id: 'Block' },
);

export const BlockExtended = Type.Object(
  { ...HEADER_FIELDS, fee: Int64(), transactions: Type.Array(Type.Ref('ExtendedTransaction')), height: Int32() },
  { $id: 'BlockWithExtendedTransactions' },
);

export const BlockWithNullableHeight = Type.Object(
  { ...HEADER_FIELDS, fee: Int64(), transactions: Type.Array(Type.Ref('Transaction')), height: nullable(Int32()) },
  { $id: 'BlockWithNullableHeight' },
);

export const Height = Type.Object({ height: Int32() }, { $id: 'Height' });

// ---------------------------------------------------------------------------
// Debug

export const RollbackParams = Type.Object(
  {
    rollbackTo: Int32({ description: 'Height whose block becomes the last one' }),
    returnTransactionsToUtx: Type.Boolean({ description: 'Put the removed transactions back into the pool' }),
  },
  { $id: 'RollbackParams' },
);

export const BlockIdAnswer = Type.Object({ BlockId: Base58('Id of the new last block') }, { $id: 'BlockId' });

/** Every named schema, so `$ref`s resolve in the OpenAPI document. */
export const NAMED_SCHEMAS: readonly TSchema[] = [
  ErrorBody,
  StatusDetails,
  Transaction,
  ExtendedTransaction,
  TransactionWithHeight,
  SignedTransactionRequest,
  UnsignedTransactionRequest,
  FeeRequest,
  FeeAnswer,
  UtxSize,
  BlockHeader,
  Block,
  BlockExtended,
  BlockWithNullableHeight,
  Height,
  RollbackParams,
  BlockIdAnswer,
];
