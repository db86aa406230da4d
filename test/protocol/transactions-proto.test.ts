import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Transaction as NpmTransaction } from '@wavesenterprise/js-contract-grpc-client/managed/transaction.js';
import type { Address, Recipient } from '../../src/crypto/address.js';
import { parseJson, stringifyJson } from '../../src/protocol/json.js';
import { Protocol } from '../../src/protocol/protocol.js';
import { protoRoot } from '../../src/protocol/proto/proto-files.js';
import { readProtoTransaction, transactionFromProto, transactionToProto } from '../../src/protocol/proto/transactions.js';
import { Atomic } from '../../src/protocol/transactions/atomic.js';
import { ExecutedContract } from '../../src/protocol/transactions/contracts-executed.js';
import { CallContract, CreateContract, UpdateContract } from '../../src/protocol/transactions/contracts-executable.js';
import { Genesis, GenesisPermit, GenesisRegisterNode } from '../../src/protocol/transactions/genesis.js';
import { ROLE_NAMES } from '../../src/protocol/transactions/permissions.js';
import { ALL_CODECS } from '../../src/protocol/transactions/registry.js';
import { PROOFS, type FieldSpec, type Transaction, type TxCodec, type TxSchema } from '../../src/protocol/transactions/schema.js';
import { Transfer } from '../../src/protocol/transactions/transfer.js';
import { javaUtf8 } from '../../src/ride/serde.js';
import { WeError } from '../../src/errors/catalogue.js';
import { expectWeError, onlyWeErrors } from '../support/errors.js';

const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
const KEYS = ['one', 'two', 'three'].map((s) => p.crypto.keyPairFromSeedPhrase(`${s} seed phrase for the protobuf tests`));
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const TRUE_SCRIPT = new Uint8Array(Buffer.from('AQa3b8tH', 'base64'));

// ---------------------------------------------------------------------------
// Transactions of every type and version, from each family's schema

const bytes = (min: number, max: number): fc.Arbitrary<Uint8Array> => fc.uint8Array({ minLength: min, maxLength: max });
const b32 = bytes(32, 32);
const opt = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | null> => fc.option(a, { nil: null });
const positive = fc.bigInt({ min: 1n, max: 2n ** 40n });
const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
const text = (min: number, max: number): fc.Arbitrary<string> => fc.string({ unit: 'grapheme', minLength: min, maxLength: max });
const ascii = (min: number, max: number): fc.Arbitrary<string> => fc.stringMatching(new RegExp(`^[a-zA-Z0-9]{${min},${max}}$`));
const sha256Hex = fc.uint8Array({ minLength: 32, maxLength: 32 }).map(hex);
const publicKey = fc.constantFrom(...KEYS.map((k) => k.publicKey));
const address: fc.Arbitrary<Address> = b32.map((pk) => p.addresses.fromPublicKey(pk));
const alias = fc.stringMatching(/^[-.0-9@_a-z]{4,30}$/).map((name) => p.addresses.alias(name));
const recipient: fc.Arbitrary<Recipient> = fc.oneof(address, alias);
const key = fc.stringMatching(/^[a-zA-Z0-9_]{1,30}$/);
const entry = fc.oneof(
  fc.record({ key, type: fc.constant('integer' as const), value: int64 }),
  fc.record({ key, type: fc.constant('boolean' as const), value: fc.boolean() }),
  fc.record({ key, type: fc.constant('binary' as const), value: bytes(0, 20) }),
  fc.record({ key, type: fc.constant('string' as const), value: text(0, 20) }),
);
const entries = fc.uniqueArray(entry, { selector: (e) => e.key, maxLength: 5 });
const apiVersion = fc.record({ major: fc.integer({ min: 0, max: 32767 }), minor: fc.integer({ min: 0, max: 32767 }) });
const assetOperation = fc.oneof(
  fc.record({ operationType: fc.constant('transfer' as const), assetId: opt(b32), recipient, amount: positive }),
  fc.record({
    operationType: fc.constant('issue' as const),
    assetId: b32,
    name: text(0, 10),
    description: text(0, 20),
    quantity: positive,
    decimals: fc.integer({ min: 0, max: 8 }),
    isReissuable: fc.boolean(),
    nonce: fc.integer({ min: -128, max: 127 }),
  }),
  fc.record({ operationType: fc.constant('reissue' as const), assetId: b32, quantity: positive, isReissuable: fc.boolean() }),
  fc.record({ operationType: fc.constant('burn' as const), assetId: opt(b32), amount: positive }),
  fc.record({ operationType: fc.constant('lease' as const), leaseId: b32, nonce: fc.integer({ min: -128, max: 127 }), recipient, amount: positive }),
  fc.record({ operationType: fc.constant('cancel-lease' as const), leaseId: b32 }),
);
const readDescriptor = fc.oneof(
  fc.record({ type: fc.constant('specific-keys' as const), contractId: b32, keys: fc.array(text(0, 10), { maxLength: 3 }) }),
  fc.record({
    type: fc.constant('filtered-keys' as const),
    contractId: b32,
    matches: opt(text(0, 10)),
    offset: opt(fc.integer({ min: 0, max: 1000 })),
    limit: opt(fc.integer({ min: 1, max: 1000 })),
  }),
  fc.record({ type: fc.constant('specific-balances' as const), contractId: b32, assetIds: fc.array(text(0, 10), { maxLength: 3 }) }),
);
const contractKeyed = <K extends string, V>(valuesKey: K, values: fc.Arbitrary<V[]>): fc.Arbitrary<Array<{ contractId: Uint8Array } & Record<K, V[]>>> =>
  fc.uniqueArray(
    fc.tuple(b32, values).map(([contractId, v]) => ({ contractId, [valuesKey]: v }) as { contractId: Uint8Array } & Record<K, V[]>),
    { selector: (c) => hex(c.contractId), maxLength: 6 },
  );

/** Values of each DSL field type, by its name. */
const BY_KIND: Record<string, fc.Arbitrary<unknown>> = {
  BYTE: fc.integer({ min: -128, max: 127 }),
  BOOLEAN: fc.boolean(),
  INT: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  LONG: positive,
  SHORT_STRING: text(1, 20),
  SHORT_BYTE_ARRAY: bytes(0, 40),
  SHORT_BYTE_STR: bytes(0, 40),
  POLICY_DATA_HASH: b32,
  ASSET_ID: b32,
  'OPTION(ASSET_ID)': opt(b32),
  'ASSET_ID.?': fc.constant(null),
  PUBLIC_KEY_ACCOUNT: publicKey,
  'OPTION(PUBLIC_KEY_ACCOUNT)': opt(publicKey),
  ADDRESS_OR_ALIAS: recipient,
  ALIAS: alias,
  NODE_NAME: opt(text(1, 20)),
  PERMISSION_OP_TYPE: fc.constantFrom('add', 'remove'),
  PERMISSION_OP: fc.record({
    opType: fc.constantFrom('add', 'remove'),
    role: fc.constantFrom(...ROLE_NAMES),
    timestamp: positive,
    dueTimestamp: opt(positive),
  }),
  'OPTION(ATOMIC_BADGE)': opt(fc.record({ trustedSender: opt(address) })),
  'OPTION(SCRIPT)': opt(fc.constant(TRUE_SCRIPT)),
  'SHORT_LIST(DATA_ENTRY)': entries,
  'SHORT_LIST(CONTRACT_DATA_ENTRY)': entries,
  TRANSFER_BATCH: fc.array(fc.record({ recipient, amount: fc.bigInt({ min: 0n, max: 2n ** 40n }) }), { maxLength: 5 }),
  'BIG_LIST(ADDRESS)': fc.array(address, { maxLength: 4 }),
  'SHORT_SET(ADDRESS)': fc.uniqueArray(address, { selector: (a) => a.toString(), maxLength: 7 }),
  VALIDATION_POLICY: fc.oneof(
    fc.constant({ type: 'any' }),
    fc.constant({ type: 'majority' }),
    fc.record({ type: fc.constant('majority_with_one_of'), addresses: fc.array(address, { minLength: 1, maxLength: 3 }) }),
  ),
  CONTRACT_API_VERSION: apiVersion,
  'SHORT_LIST(CONTRACT_TRANSFER_IN)': fc.array(fc.record({ assetId: opt(b32), amount: positive }), { maxLength: 3 }),
  STORED_CONTRACT: fc.oneof(
    fc.record({ engine: fc.constant('docker'), image: ascii(1, 20), imageHash: sha256Hex, apiVersion }),
    fc.record({ engine: fc.constant('wasm'), bytecode: bytes(0, 50), bytecodeHash: sha256Hex }),
  ),
  COMMITMENT: b32,
  'OPTION(COMMITMENT)': opt(b32),
  'OPTION(SHORT_STRING)': opt(text(0, 20)),
  'SHORT_LIST(VALIDATION_PROOF)': fc.array(fc.record({ validatorPublicKey: publicKey, signature: bytes(64, 64) }), { maxLength: 2 }),
  'SHORT_LIST(CONTRACT_ASSET_OPERATION)': fc.array(assetOperation, { maxLength: 3 }),
  DATA_ENTRY_MAP: contractKeyed('results', entries),
  ASSET_OPERATIONS_MAP: contractKeyed('operations', fc.array(assetOperation, { maxLength: 3 })),
  'SHORT_LIST(READ_DESCRIPTOR)': fc.array(readDescriptor, { maxLength: 3 }),
  'OPTION(READINGS_HASH)': opt(b32),
};

/** Where a field's rules want narrower values than its type's. */
const BY_FIELD: Record<string, fc.Arbitrary<unknown>> = {
  chainId: fc.constant(p.chainId),
  fee: fc.bigInt({ min: 0n, max: 2n ** 40n }),
  'Issue.name': ascii(4, 16).map(javaUtf8),
  'Issue.description': text(0, 40).map(javaUtf8),
  'SetScript.name': ascii(1, 20).map(javaUtf8),
  'SetScript.description': text(0, 40).map(javaUtf8),
  decimals: fc.integer({ min: 0, max: 8 }),
  image: ascii(1, 20),
  imageHash: sha256Hex,
  contractEngine: fc.constantFrom('docker', 'wasm'),
  resultsHash: b32,
  'Burn.amount': fc.bigInt({ min: 0n, max: 2n ** 40n }),
};

const EXECUTABLE = [CreateContract, CallContract, UpdateContract].flatMap((c) => c.versions.map((version) => ({ codec: c, version })));

function fieldsArb(schema: TxSchema, version: number): fc.Arbitrary<Record<string, unknown>> {
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const e of schema.entriesOf(version)) {
    if (e === PROOFS) continue;
    const spec = e as FieldSpec;
    const arb =
      spec.type.kind === 'EXECUTABLE_TRANSACTION'
        ? fc.constantFrom(...EXECUTABLE).chain(({ codec, version: v }) => txArb(codec, v))
        : (BY_FIELD[`${schema.name}.${spec.name}`] ?? BY_FIELD[spec.name] ?? BY_KIND[spec.type.kind]);
    assert.ok(arb !== undefined, `no arbitrary for ${schema.name}.${spec.name} (${spec.type.kind})`);
    model[spec.name] = arb;
  }
  return fc.record(model);
}

/** The rules that tie fields together. */
function tied(codec: TxCodec, data: Record<string, unknown>): Record<string, unknown> {
  if (codec.name === 'Permit') return { ...data, permissionOp: { ...(data['permissionOp'] as object), timestamp: data['timestamp'] } };
  if (codec.name === 'RegisterNode' && data['opType'] === 'add' && data['nodeName'] === null) return { ...data, nodeName: 'node' };
  return data;
}

const proofs = fc.array(bytes(64, 64), { minLength: 1, maxLength: 2 });

function build(codec: TxCodec, version: number, data: object, txProofs: readonly Uint8Array[]): Transaction | null {
  try {
    return p.transaction(codec, version, data, codec.hasProofs ? txProofs : []);
  } catch (e) {
    if (e instanceof WeError) return null;
    throw e;
  }
}

/** Inner transactions of an atomic by `sender`: transfers with a badge, and (mined) an executed contract. */
function atomicArb(): fc.Arbitrary<Transaction | null> {
  return fc.tuple(fc.constantFrom(...KEYS), fc.boolean(), positive, proofs).chain(([sender, mined, timestamp, atomicProofs]) => {
    const inner = fc
      .tuple(positive, recipient, proofs)
      .map(([amount, to, innerProofs]) =>
        build(
          Transfer,
          3,
          {
            senderPublicKey: sender.publicKey,
            assetId: null,
            feeAssetId: null,
            timestamp,
            amount,
            fee: 1n,
            recipient: to,
            attachment: new Uint8Array(0),
            atomicBadge: { trustedSender: null },
          },
          innerProofs,
        ),
      )
      .filter((t): t is Transaction => t !== null);
    const executed = fc.constantFrom(1, 2, 3, 4, 5).chain((v) => txArb(ExecutedContract, v));
    const transactions = mined
      ? fc.tuple(fc.uniqueArray(inner, { selector: (t) => t.idBase58, minLength: 1, maxLength: 2 }), executed).map(([ts, e]) => [...ts, e])
      : fc.uniqueArray(inner, { selector: (t) => t.idBase58, minLength: 2, maxLength: 3 });
    return transactions.map((txs) =>
      build(Atomic, 1, { senderPublicKey: sender.publicKey, miner: mined ? KEYS[2]!.publicKey : null, transactions: txs, timestamp }, atomicProofs),
    );
  });
}

function txArb(codec: TxCodec, version: number): fc.Arbitrary<Transaction> {
  let arb: fc.Arbitrary<Transaction | null>;
  if (codec === Atomic) arb = atomicArb();
  else if (codec === Genesis) arb = fc.record({ recipient: address, amount: positive, timestamp: positive }).map((d) => build(codec, 1, d, []));
  else if (codec === GenesisPermit)
    arb = fc.record({ target: address, role: fc.constantFrom(...ROLE_NAMES), timestamp: positive }).map((d) => build(codec, 1, d, []));
  else if (codec === GenesisRegisterNode) arb = fc.record({ targetPublicKey: publicKey, timestamp: positive }).map((d) => build(codec, 1, d, []));
  else {
    const schema = codec as TxSchema;
    arb = fc.tuple(fieldsArb(schema, version), proofs).map(([data, txProofs]) => build(codec, version, tied(codec, data), txProofs));
  }
  return arb.filter((t): t is Transaction => t !== null);
}

/** Every type and version with a protobuf form (all but Exchange). */
const PAIRS = ALL_CODECS.filter((c) => c.type !== 7).flatMap((codec) => codec.versions.map((version) => ({ codec, version })));
const RUNS = Number(process.env['PROTO_RUNS'] ?? 15);

function sameProto(a: Uint8Array, b: Uint8Array, what: string): void {
  assert.equal(hex(a), hex(b), what);
}

describe('transactions in protobuf form', () => {
  it('covers every type and version but Exchange', () => {
    assert.equal(PAIRS.length, ALL_CODECS.reduce((n, c) => n + c.versions.length, 0) - 1);
  });

  for (const { codec, version } of PAIRS) {
    it(`${codec.name} V${version}: protobuf → transaction → protobuf, JSON → transaction → protobuf, bytes ↔ protobuf`, () => {
      fc.assert(
        fc.property(txArb(codec, version), (tx) => explained(tx, () => roundTrips(tx))),
        { numRuns: RUNS, includeErrorInReport: true },
      );
    });
  }
});

/** Runs `check`; a failure names the transaction by its JSON (not the object, which holds the protocol). */
function explained(tx: Transaction, check: () => void): void {
  try {
    check();
  } catch (e) {
    throw new Error(`${(e as Error).message}\nfor ${stringifyJson(tx.toJson())}`, { cause: e });
  }
}

/** The node's JSON of a transaction as a request: CallContract V7's commitment is `inputCommitmentOpt` out, `inputCommitment` in. */
function asRequest(json: Record<string, unknown>): Record<string, unknown> {
  return json['type'] === 104 && json['version'] === 7 ? { ...json, inputCommitment: json['inputCommitmentOpt'] } : json;
}

function roundTrips(tx: Transaction): void {
  const pb = transactionToProto(tx);
  assert.equal(transactionToProto(tx), pb, 'the encoding is kept per transaction');
  const back = readProtoTransaction(p, pb);
  assert.equal(back.idBase58, tx.idBase58);
  assert.deepEqual(back.proofsBase58, tx.proofsBase58);
  assert.equal(hex(back.bytes), hex(tx.bytes));
  sameProto(transactionToProto(back), pb, 'protobuf → transaction → protobuf');

  // A mined atomic's JSON is no request (its miner and executed transactions are the miner's): it is not read back.
  if (!(Atomic.is(tx) && tx.data.miner !== null)) {
    const fromJson = p.transactionFromJson(asRequest(parseJson(stringifyJson(tx.toJson())) as Record<string, unknown>), { forBroadcast: false });
    sameProto(transactionToProto(fromJson), pb, 'JSON → transaction → protobuf');
  }

  const fromBytes = p.transactionFromBytes(tx.bytes);
  sameProto(transactionToProto(fromBytes), pb, 'bytes → transaction → protobuf');
}

// ---------------------------------------------------------------------------
// The official 1.10 client's codec, where its messages and 1.14's agree

/** Union members whose 1.10 message numbers its fields as 1.14 does (1.12 inserted `atomic_badge` into the others, and 1.14 `results_map` into ExecutedContract). */
const NPM_AGREES = new Set([
  'Genesis',
  'GenesisPermit',
  'GenesisRegisterNode',
  'Transfer',
  'Permit',
  'CreatePolicy',
  'UpdatePolicy',
  'PolicyDataHash',
  'CreateContract',
  'CallContract',
  'DisableContract',
  'UpdateContract',
  'SetScript',
  'SetAssetScript',
  'Atomic',
]);

const ours = protoRoot(new URL('../../../src/protocol/proto/', import.meta.url), ['transactions-1.14.proto']).lookupType('wavesenterprise.Transaction');

/** A decoded message as comparable JSON: int64 as decimal text, bytes as hex, wrappers unwrapped (as ts-proto does), absent as undefined. */
function comparable(v: unknown): unknown {
  if (v instanceof Uint8Array) return hex(v);
  if (Array.isArray(v)) return v.map(comparable);
  if (typeof v === 'object' && v !== null) {
    if ('low' in v && 'high' in v && 'unsigned' in v) return (v as { toString(): string }).toString();
    const entries = Object.entries(v).filter(([, x]) => x !== undefined && x !== null);
    if (entries.length === 1 && entries[0]![0] === 'value' && !(v instanceof Object && 'key' in v)) return comparable(entries[0]![1]);
    return Object.fromEntries(entries.map(([k, x]) => [k, comparable(x)]));
  }
  return v;
}

/** A proto3 default as comparable() writes it. */
const isDefault = (v: unknown): boolean =>
  v === undefined ||
  v === '0' ||
  v === 0 ||
  v === '' ||
  v === false ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'object' && v !== null && Object.keys(v).length === 0);

/** Every field the 1.10 codec decoded holds what 1.14's message holds (or both are the default). */
function sameFields(theirs: unknown, mine: unknown, path: string): void {
  if (typeof theirs !== 'object' || theirs === null || Array.isArray(theirs) || typeof mine !== 'object' || mine === null || Array.isArray(mine)) {
    // 1.10 declares ContractTransferIn.asset_id `repeated`: the same bytes as 1.14's one wrapper.
    if (Array.isArray(theirs) && theirs.length === 1 && !Array.isArray(mine) && mine !== undefined) {
      sameFields(theirs[0], mine, path);
      return;
    }
    if (Array.isArray(theirs) && Array.isArray(mine)) {
      assert.equal(theirs.length, mine.length, path);
      theirs.forEach((t, i) => sameFields(t, mine[i], `${path}(${i})`));
      return;
    }
    if (isDefault(theirs) && isDefault(mine)) return;
    assert.deepEqual(theirs, mine, path);
    return;
  }
  for (const [k, v] of Object.entries(theirs)) {
    const m = (mine as Record<string, unknown>)[k];
    if (m === undefined) assert.ok(isDefault(v), `${path}.${k}: 1.10 reads ${JSON.stringify(v)} where 1.14 has nothing`);
    else sameFields(v, m, `${path}.${k}`);
  }
}

describe("the official client's 1.10 codec", () => {
  for (const { codec, version } of PAIRS.filter((x) => NPM_AGREES.has(x.codec.name))) {
    it(`${codec.name} V${version}: decodes our bytes into the same field values`, () => {
      fc.assert(
        // A mined atomic holds an ExecutedContract, whose 1.10 message is numbered otherwise.
        fc.property(
          txArb(codec, version).filter((tx) => !(Atomic.is(tx) && tx.data.miner !== null)),
          (tx) =>
            explained(tx, () => {
              const pb = transactionToProto(tx);
              const npm = NpmTransaction.decode(pb) as unknown as Record<string, unknown>;
              const mine = ours.toObject(ours.decode(pb), { defaults: false, oneofs: false }) as Record<string, unknown>;
              const member = `${codec.name.charAt(0).toLowerCase()}${codec.name.slice(1)}Transaction`;
              assert.equal(npm['version'], version);
              assert.ok(npm[member] !== undefined, `the 1.10 codec sees ${member}`);
              sameFields(comparable(npm[member]), comparable(mine[member]), member);
              assert.equal(hex((npm[member] as { id: Uint8Array }).id), hex(tx.id));
            }),
        ),
        { numRuns: Math.max(3, Math.floor(RUNS / 3)), includeErrorInReport: true },
      );
    });
  }
});

// ---------------------------------------------------------------------------
// What a broadcast refuses

const sample = <T>(arb: fc.Arbitrary<T>): T => fc.sample(arb, { numRuns: 1, seed: 42 })[0]!;
const encodeUnion = (o: Record<string, unknown>): Uint8Array => ours.encode(ours.fromObject(o)).finish();

describe('transactionFromProto (gRPC broadcast)', () => {
  it('takes a broadcastable transaction: same id, proofs and bytes', () => {
    const tx = sample(txArb(Transfer, 3));
    const back = transactionFromProto(p, transactionToProto(tx));
    assert.equal(back.idBase58, tx.idBase58);
    assert.equal(hex(back.bytes), hex(tx.bytes));
  });

  it('refuses what WE refuses, with WE errors', () => {
    expectWeError(() => transactionFromProto(p, transactionToProto(sample(txArb(Genesis, 1)))), 199, 'Genesis transaction is not allowed to be broadcasted');
    expectWeError(
      () => transactionFromProto(p, transactionToProto(sample(txArb(ExecutedContract, 2)))),
      199,
      'ExecutedContract transaction is not allowed to be broadcasted',
    );
    for (const v of [1, 2]) {
      const codec = ALL_CODECS.find((c) => c.type === 114)!;
      expectWeError(
        () => transactionFromProto(p, transactionToProto(sample(txArb(codec, v)))),
        199,
        'PolicyDataHash V1/V2 transaction is not allowed to be broadcasted',
      );
    }
    expectWeError(() => transactionFromProto(p, encodeUnion({ version: 3 })), 199, 'Empty inner transaction');
    expectWeError(() => transactionFromProto(p, new Uint8Array([0x0a, 0xff])), 199, /Invalid protobuf transaction/);
    expectWeError(() => transactionFromProto(p, encodeUnion({ version: 9, transferTransaction: {} })), 199, 'UnsupportedVersion(9)');
  });

  it('refuses keys, addresses and ids of the wrong size, naming the field', () => {
    const tx = sample(txArb(Transfer, 3));
    const m = ours.toObject(ours.decode(transactionToProto(tx))) as { transferTransaction: Record<string, unknown> };
    const broken = (change: Record<string, unknown>): Uint8Array => encodeUnion({ version: 3, transferTransaction: { ...m.transferTransaction, ...change } });
    expectWeError(() => transactionFromProto(p, broken({ senderPublicKey: new Uint8Array(31) })), 108, undefined, 'senderPublicKey');
    expectWeError(() => transactionFromProto(p, broken({ recipient: new Uint8Array(26) })), 102, undefined, 'recipient');
    expectWeError(() => transactionFromProto(p, broken({ assetId: { value: new Uint8Array(31) } })), 199, /32 bytes/, 'assetId');
    expectWeError(
      () => transactionFromProto(p, broken({ atomicBadge: { trustedSender: { value: new Uint8Array(3) } } })),
      102,
      undefined,
      'atomicBadge.trustedSender',
    );
  });

  it("answers WE's UnimplementedError (641) for what has no protobuf form: a contract's payment to a contract", () => {
    const executed = sample(txArb(ExecutedContract, 5));
    const payment = { operationType: 'contract-payment', assetId: null, recipient: new Uint8Array(32).fill(1), amount: 5n };
    const withPayment = p.transaction(
      ExecutedContract,
      5,
      { ...executed.data, assetOperationsMap: [{ contractId: new Uint8Array(32).fill(2), operations: [payment] }] },
      executed.proofs,
    );
    assert.throws(
      () => transactionToProto(withPayment),
      (e: unknown) => e instanceof WeError && e.code === 641 && e.status === 501 && e.message.includes('contract-payment'),
    );
  });

  it('never throws anything but a WeError, whatever the bytes', () => {
    const valid = PAIRS.map(({ codec, version }) => transactionToProto(sample(txArb(codec, version))));
    const mutated = fc.tuple(fc.constantFrom(...valid), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 })).map(([b, edits]) => {
      const copy = new Uint8Array(b);
      for (const [i, v] of edits) copy[i % copy.length] = v;
      return copy;
    });
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 200 }), mutated), (bytes) => {
        onlyWeErrors(() => transactionFromProto(p, bytes));
        onlyWeErrors(() => readProtoTransaction(p, bytes));
      }),
      { numRuns: 3000 },
    );
  });
});
