/**
 * The OpenAPI document is complete and true:
 *
 * - every seed route — rest-api.md §3 for the issue's groups, test/fixtures/seed-routes.json —
 *   is served and documented (the test lists the missing ones);
 * - walking the document served at /api-docs/openapi.json, EVERY documented operation is
 *   called with valid inputs on a seeded chain (a real node in process, seeded-node.ts) and
 *   its answer is checked against the documented response of its status with a JSON-schema
 *   validator (the ajv that Fastify ships, 2020-12 dialect; int64 values read exactly and
 *   checked to fit 64 bits, then validated as integers); the request
 *   bodies sent are checked against the documented request schema too;
 * - the consensus operations are walked again on a PoS chain (consensus-chains.ts), where
 *   the PoS answers succeed and the PoA-only ones answer their documented error.
 *
 * Inputs come from tables below: a value per parameter name taken from the seeded data,
 * with per-route overrides, and an example body per operation. An operation the tables do
 * not cover fails the test by name, so a new route cannot slip through undocumented or
 * untested.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { ROUTE_GROUPS } from '../../src/api/routes/index.js';
import { encodeBase58, encodeBase64 } from '../../src/crypto/encoding.js';
import { encryptForRecipient } from '../../src/crypto/encryption.js';
import { form, type FormPart } from '../../devkit/multipart.js';
import { parseJson, stringifyJson } from '../../src/protocol/json.js';
import { devKeystorePassword, type DevAccount } from '../../src/cli/dev.js';
import { licenceJson, signLicence } from '../../src/licences/licence.js';
import { DEV_LICENCE_ISSUER_SEED } from '../../src/node/licences-wiring.js';
import { consensusChain, POS } from './consensus-chains.js';
import {
  DEV_API_KEY,
  documentedOperations,
  routeKey,
  SEED_ALIAS,
  seededNode,
  servedDocument,
  type DocumentedOperation,
  type Json,
  type SeededNode,
} from '../../devkit/api/seeded-node.js';
import { SEED_ROUTES } from './seed-routes.js';

// ---------------------------------------------------------------------------
// The JSON-schema validator Fastify ships (ajv 8, via @fastify/ajv-compiler)

interface AjvError {
  readonly instancePath: string;
  readonly message?: string;
}
interface ValidateFunction {
  (data: unknown): boolean;
  errors?: AjvError[] | null;
}
interface Ajv {
  addSchema(schema: object): Ajv;
  addFormat(name: string, format: { type: 'number' | 'string'; validate: (x: never) => boolean } | true): Ajv;
  compile(schema: object): ValidateFunction;
}

const require = createRequire(import.meta.url);
const fromFastify = createRequire(require.resolve('fastify'));
const fromCompiler = createRequire(fromFastify.resolve('@fastify/ajv-compiler'));
const Ajv2020 = (fromCompiler('ajv/dist/2020') as { default: new (options: object) => Ajv }).default;

const DOC_ID = 'https://weft.invalid/openapi.json';
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** A validator over the document's components; `#/components/...` references resolve into them. */
class DocumentValidator {
  private readonly ajv: Ajv;
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(doc: Json) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    this.ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
    this.ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
    for (const f of collectFormats(doc)) if (f !== 'int64' && f !== 'int32') this.ajv.addFormat(f, true);
    this.ajv.addSchema({ $id: DOC_ID, components: doc['components'] });
  }

  /** Problems of `value` against a documented schema (empty when it conforms). */
  problems(schema: object, value: unknown): string[] {
    const key = JSON.stringify(schema);
    let validate = this.cache.get(key);
    if (validate === undefined) {
      validate = this.ajv.compile(rebase(schema) as object);
      this.cache.set(key, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath === '' ? '(root)' : e.instancePath} ${e.message ?? ''}`);
  }
}

function collectFormats(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const x of node) collectFormats(x, out);
  else if (typeof node === 'object' && node !== null) {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'format' && typeof v === 'string') out.add(v);
      else collectFormats(v, out);
    }
  }
  return out;
}

/** `#/components/...` → the document's id, so a schema compiled on its own resolves them. */
function rebase(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rebase);
  if (typeof node !== 'object' || node === null) return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `${DOC_ID}${v}` : rebase(v);
  return out;
}

/** A parsed answer with int64 values checked to fit and turned into numbers (the validator sees integers). */
function forValidation(value: unknown, path = '(root)'): unknown {
  if (typeof value === 'bigint') {
    assert.ok(value >= INT64_MIN && value <= INT64_MAX, `${path}: ${value} does not fit a signed 64-bit integer`);
    return Number(value);
  }
  if (Array.isArray(value)) return value.map((v, i) => forValidation(v, `${path}/${i}`));
  if (typeof value === 'object' && value !== null) {
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) out[k] = forValidation(v, `${path}/${k}`);
    return out;
  }
  return value;
}

// ---------------------------------------------------------------------------
// Valid inputs from the seeded chain

interface ExampleBody {
  /** A JSON body (int64 as bigint), sent as application/json. */
  readonly json?: unknown;
  /** A raw text body, sent as text/plain. */
  readonly text?: string;
  /** A multipart/form-data body. */
  readonly multipart?: readonly FormPart[];
}

interface Inputs {
  readonly params: (name: string) => string | undefined;
  readonly overrides: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly query: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly bodies: Readonly<Record<string, () => ExampleBody>>;
}

const b58 = encodeBase58;

function inputsFor(s: SeededNode): Inputs {
  const [owner, a1, a2, a3] = s.accounts as [DevAccount, DevAccount, DevAccount, DevAccount, DevAccount];
  const chain = s.node.chain;
  const top = chain.height();
  const blockId = (h: number): string => b58(chain.blockAt(h)!.id);
  const byName: Record<string, string> = {
    address: a1.address,
    addressOrAlias: a1.address,
    alias: SEED_ALIAS,
    assetId: s.seed.assetId,
    signature: blockId(2),
    id: s.seed.data.idBase58,
    txId: s.seed.data.idBase58,
    leaseId: s.seed.activeLease.idBase58,
    height: '3',
    from: '1',
    to: '3',
    limit: '10',
    key: s.seed.dataKeys.string,
    publicKey: b58(a1.keyPair.publicKey),
    timestamp: String(s.now()),
    confirmations: '1',
    howMany: '3',
    // The seeded chain holds no contract: any id shows the routes answer (600).
    contractId: s.seed.data.idBase58,
    executableTxId: s.seed.data.idBase58,
    policyId: s.seed.policy.idBase58,
    hash: s.seed.privacyItems.small.hash,
  };
  const message = 'weft openapi walk';
  // A licence for the seeded node, uploaded by the walk and deleted after it (DELETE /licenses/{id} comes last).
  const walkLicence = licenceJson(
    s.node.protocol.crypto,
    signLicence(
      s.node.protocol.crypto,
      {
        version: 1,
        id: 'openapi-walk',
        issuedAt: new Date(Number(s.now())).toISOString(),
        nodeOwnerAddress: owner.address,
        validAfter: '2026-01-01',
        validBefore: null,
        features: ['all_inclusive'],
      },
      s.node.protocol.crypto.keyPairFromSeedPhrase(DEV_LICENCE_ISSUER_SEED).privateKey,
    ),
  );
  const messageBytes = new Uint8Array(Buffer.from(message, 'utf8'));
  const crypto = s.node.protocol.crypto;
  const signedTransfer = (amount: bigint): unknown =>
    s.sign(a2, { type: 4, version: 3, recipient: a3.address, amount, fee: 1_000_000n, attachment: '' }).toJson();
  const privacyRequest = (data: Buffer) => ({
    version: 3,
    sender: owner.address,
    password: owner.keystorePassword,
    policyId: s.seed.policy.idBase58,
    hash: b58(createHash('sha256').update(data).digest()),
    info: { filename: 'walk.bin', size: data.length, timestamp: s.now(), author: 'openapi walk', comment: '' },
    fee: 5_000_000n,
  });
  const encryptRequest = {
    sender: a1.address,
    password: devKeystorePassword(1),
    encryptionText: message,
    recipientsPublicKeys: [b58(a2.keyPair.publicKey), b58(a3.keyPair.publicKey)],
    cryptoAlgo: 'aes',
  };
  const unsigned = (amount: bigint): Json => ({
    type: 4,
    version: 3,
    sender: a1.address,
    password: devKeystorePassword(1),
    recipient: a3.address,
    amount,
    fee: 1_000_000n,
    attachment: '',
  });
  return {
    params: (name) => byName[name],
    overrides: {
      'GET /transactions/unconfirmed/info/{}': { id: s.seed.unconfirmed.idBase58 },
      'GET /unconfirmed/info/{}': { id: s.seed.unconfirmed.idBase58 },
      'GET /blocks/address/{}/{}/{}': { address: owner.address },
      'GET /addresses/seq/{}/{}': { from: '0', to: '2' },
      'GET /assets/{}/distribution/{}/limit/{}': { height: String(top - 2) },
      'GET /addresses/generatingBalance/{}/at/{}': { height: String(top - 1) },
      'GET /addresses/validate/{}': { addressOrAlias: `alias:T:${SEED_ALIAS}` },
      'GET /addresses/data/{}/{}': { address: a1.address },
      'GET /permissions/{}': { address: a2.address },
      'GET /permissions/{}/at/{}': { address: a2.address },
      'GET /consensus/minersAtHeight/{}': { height: String(top) },
      'GET /consensus/bannedMiners/{}': { height: String(top) },
      'GET /debug/stateWE/{}': { height: String(top - 1) },
      'DELETE /debug/rollback-to/{}': { signature: blockId(top - 1) },
      'POST /addresses/sign/{}': { address: a1.address },
      'POST /addresses/signText/{}': { address: a1.address },
      'POST /addresses/verify/{}': { address: a1.address },
      'POST /addresses/verifyText/{}': { address: a1.address },
      'GET /pki/certificate/by-dn/{}': { value: 'CN=Nobody' },
      'GET /pki/certificate/by-dn-hash/{}': { value: '00'.repeat(20) },
      'GET /pki/certificate/by-public-key/{}': { value: b58(a1.keyPair.publicKey) },
      'GET /pki/certificate/by-fingerprint/{}': { value: 'AAAAAAAAAAAAAAAAAAAAAAAAAAA=' },
      'DELETE /licenses/{}': { id: 'openapi-walk' },
      'GET /privacy/{}/getLargeData/{}': { hash: s.seed.privacyItems.large.hash },
    },
    query: {
      'GET /addresses/data/{}': { offset: '0', limit: '10' },
      'GET /assets/details/{}': { full: 'true' },
      'GET /node/healthcheck': { service: 'docker' },
    },
    bodies: {
      'POST /transactions/calculateFee': () => ({ json: { type: 4, version: 3, recipient: a3.address, amount: 1n, attachment: '' } }),
      'POST /transactions/sign': () => ({ json: unsigned(11n) }),
      'POST /transactions/broadcast': () => ({ json: signedTransfer(12n) }),
      'POST /transactions/signAndBroadcast': () => ({ json: unsigned(13n) }),
      'POST /debug/validate': () => ({ json: signedTransfer(14n) }),
      'POST /debug/rollback': () => ({ json: { rollbackTo: chain.height() - 1, returnTransactionsToUtx: false } }),
      'POST /debug/print': () => ({ json: { message } }),
      'POST /addresses/balance/details': () => ({ json: { addresses: [a1.address, a2.address] } }),
      'POST /addresses/validateMany': () => ({ json: { addressesOrAliases: [a1.address, `alias:T:${SEED_ALIAS}`, 'no'] } }),
      'POST /addresses/sign/{}': () => ({ json: { message, password: devKeystorePassword(1) } }),
      'POST /addresses/signText/{}': () => ({ json: { message, password: devKeystorePassword(1) } }),
      'POST /addresses/verify/{}': () => ({
        json: { message: b58(messageBytes), publickey: b58(a1.keyPair.publicKey), signature: b58(crypto.sign(a1.keyPair.privateKey, messageBytes)) },
      }),
      'POST /addresses/verifyText/{}': () => ({
        json: { message, publicKey: b58(a1.keyPair.publicKey), signature: b58(crypto.sign(a1.keyPair.privateKey, messageBytes)) },
      }),
      'POST /assets/balance': () => ({ json: { addresses: [a1.address, a2.address] } }),
      'POST /permissions/addresses': () => ({ json: { addresses: [owner.address, a2.address], timestamp: s.now() } }),
      'POST /utils/hash/secure': () => ({ text: message }),
      'POST /utils/hash/fast': () => ({ text: message }),
      'POST /utils/reload-wallet': () => ({}),
      // `true`, compiled (version 1, TRUE, checksum).
      'POST /utils/script/estimate': () => ({ text: 'base64:AQa3b8tH' }),
      'POST /utils/script/compile': () => ({ text: 'true' }),
      'POST /debug/createGrpcAuth': () => ({ json: { contractId: s.seed.data.idBase58 } }),
      'POST /debug/freeze': () => ({}),
      'POST /debug/cleanState': () => ({}),
      'POST /node/logging': () => ({ json: { logger: 'api', level: 'INFO' } }),
      'POST /node/metrics': () => ({ json: { enabled: [], disabled: [] } }),
      'POST /node/stop': () => ({}),
      'POST /peers/connect': () => ({ json: { host: '127.0.0.1', port: 6864 } }),
      'POST /peers/identity': () => {
        const address = s.node.protocol.addresses.parseAddress(a1.address).bytes;
        return { json: { address: a1.address, signature: b58(crypto.sign(a1.keyPair.privateKey, address)) } };
      },
      'POST /pki/sign': () => ({ json: { inputData: 'AA==', keystoreAlias: a1.address, password: devKeystorePassword(1), sigType: 1 } }),
      'POST /pki/verify': () => ({ json: { inputData: 'AA==', signature: 'AA==', sigType: 1, extendedKeyUsageList: [] } }),
      'POST /licenses/upload': () => ({ json: walkLicence }),
      'POST /contracts': () => ({ json: { contracts: [s.seed.data.idBase58] } }),
      'POST /contracts/{}': () => ({ json: { keys: ['a'] } }),
      'POST /contracts/asset-balances': () => ({ json: { contractId: s.seed.data.idBase58, assetIds: [s.seed.assetId] } }),
      'POST /confidential-contracts/call': () => ({
        json: {
          sender: owner.address,
          contractId: s.seed.data.idBase58,
          contractVersion: 1,
          params: [{ key: 'k', type: 'integer', value: 1 }],
          timestamp: s.now(),
          fee: 10_000_000n,
        },
      }),
      'POST /privacy/getInfos': () => ({
        json: { policiesDataHashes: [{ policyId: s.seed.policy.idBase58, datahashes: [s.seed.privacyItems.small.hash, s.seed.privacyItems.large.hash] }] },
      }),
      'POST /privacy/sendData': () => {
        const data = Buffer.from('sent by the openapi walk');
        return { json: { ...privacyRequest(data), data: data.toString('base64') } };
      },
      'POST /privacy/sendDataV2': () => {
        const data = Buffer.from('sent by the openapi walk, V2');
        return {
          multipart: [
            { name: 'request', content: stringifyJson(privacyRequest(data)) },
            { name: 'data', content: data, filename: 'v2.bin' },
          ],
        };
      },
      'POST /privacy/sendLargeData': () => {
        const data = Buffer.alloc(70_000, 3);
        return {
          multipart: [
            { name: 'request', content: stringifyJson(privacyRequest(data)) },
            { name: 'data', content: data, filename: 'large.bin' },
          ],
        };
      },
      'POST /crypto/encryptSeparate': () => ({ json: encryptRequest }),
      'POST /crypto/encryptCommon': () => ({ json: encryptRequest }),
      'POST /crypto/decrypt': () => {
        const sealed = encryptForRecipient(messageBytes, a1.keyPair.privateKey, a2.keyPair.publicKey);
        return {
          json: {
            recipient: a2.address,
            password: devKeystorePassword(2),
            encryptedText: encodeBase64(sealed.encrypted),
            wrappedKey: b58(sealed.wrappedKey),
            senderPublicKey: b58(a1.keyPair.publicKey),
            cryptoAlgo: 'aes',
          },
        };
      },
    },
  };
}

/** Operations whose valid call answers an error on this chain, with why. */
const EXPECTED_ERRORS: Readonly<Record<string, { status: number; why: string }>> = {
  'GET /consensus/basetarget': { status: 400, why: 'PoS data on a PoA chain (WE: 199)' },
  'GET /consensus/basetarget/{}': { status: 400, why: 'PoS data on a PoA chain (WE: 199)' },
  'GET /consensus/generationsignature': { status: 400, why: 'PoS data on a PoA chain (WE: 199)' },
  'GET /consensus/generationsignature/{}': { status: 400, why: 'PoS data on a PoA chain (WE: 199)' },
  'GET /consensus/generatingbalance/{}': { status: 400, why: 'PoS data on a PoA chain (WE: 199)' },
  'GET /node/healthcheck': { status: 404, why: 'no docker on this node (WE: 637 Service is disabled)' },
  'POST /peers/connect': { status: 400, why: 'the seeded node runs no P2P network (network.port = 0): 199' },
  'GET /debug/utx-rebroadcast': { status: 400, why: 'the seeded node runs no P2P network (network.port = 0): 199' },
  // Rule PKI-2: the seeded chain runs WAVES crypto (the GOST answers are walked in test/pki/pki-api.test.ts).
  'GET /pki/certificate/by-dn/{}': { status: 400, why: 'PKI on a WAVES network (199)' },
  'GET /pki/certificate/by-dn-hash/{}': { status: 400, why: 'PKI on a WAVES network (199)' },
  'GET /pki/certificate/by-public-key/{}': { status: 400, why: 'PKI on a WAVES network (199)' },
  'GET /pki/certificate/by-fingerprint/{}': { status: 400, why: 'PKI on a WAVES network (199)' },
  'GET /pki/keystoreAliases': { status: 400, why: 'PKI on a WAVES network (199)' },
  'POST /pki/sign': { status: 400, why: 'PKI on a WAVES network (199)' },
  'POST /pki/verify': { status: 400, why: 'PKI on a WAVES network (199)' },
  // The seeded chain holds no contract: `/contracts` lists none, and a contract id answers as unknown.
  ...Object.fromEntries(
    [
      'POST /contracts',
      'GET /contracts/info/{}',
      'GET /contracts/{}',
      'POST /contracts/{}',
      'GET /contracts/{}/{}',
      'GET /contracts/balance/{}',
      'GET /contracts/asset-balance/{}/{}',
      'POST /contracts/asset-balances',
      'GET /contracts/balance/details/{}',
    ].map((key) => [key, { status: 404, why: 'the seeded chain holds no contract: 600' }]),
  ),
  'GET /contracts/executed-tx-for/{}': { status: 404, why: 'the seeded chain holds no contract: 601' },
  'GET /contracts/status/{}': { status: 404, why: 'the seeded chain holds no contract, so no execution status: 605' },
  'POST /confidential-contracts/call': { status: 404, why: 'the seeded chain holds no contract: 600' },
  'GET /confidential-contracts/{}': { status: 404, why: 'the seeded chain holds no contract: 600' },
  'GET /confidential-contracts/tx/{}': { status: 404, why: 'the seeded chain holds no confidential call: 601' },
};

/** Called last, in this order: they change the chain or stop the node. */
const LAST = ['DELETE /licenses/{}', 'POST /debug/rollback', 'DELETE /debug/rollback-to/{}', 'POST /debug/freeze', 'POST /debug/cleanState', 'POST /node/stop'];

function order(ops: DocumentedOperation[]): DocumentedOperation[] {
  const rank = (o: DocumentedOperation): number => LAST.indexOf(routeKey(o.method, o.path));
  return [...ops].sort((x, y) => rank(x) - rank(y));
}

/** A value a parameter's schema alone makes valid (an enum's first value, a boolean, the least allowed integer); undefined for free text. */
function fromParameterSchema(schema: Json | undefined): string | undefined {
  if (schema === undefined) return undefined;
  const values = schema['enum'] ?? (schema['const'] !== undefined ? [schema['const']] : undefined);
  if (Array.isArray(values) && values.length > 0) return String(values[0]);
  if (schema['type'] === 'boolean') return 'true';
  if (schema['type'] === 'integer' || schema['type'] === 'number') return String(Math.max(Number(schema['minimum'] ?? 1), 1));
  return undefined;
}

interface Called {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
}

async function call(app: FastifyInstance, inputs: Inputs, o: DocumentedOperation, problems: string[]): Promise<Called | undefined> {
  const key = routeKey(o.method, o.path);
  const op = o.operation;
  const parameters = (op['parameters'] ?? []) as Array<{ name: string; in: string; required?: boolean; schema?: Json }>;
  const override = inputs.overrides[key] ?? {};
  const fromSchema = (name: string): string | undefined => fromParameterSchema(parameters.find((p) => p.name === name)?.schema);
  let missing = false;
  const url = o.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const v = override[name] ?? inputs.params(name) ?? fromSchema(name);
    if (v === undefined) {
      problems.push(`${key}: no example value for path parameter '${name}'`);
      missing = true;
      return 'x';
    }
    return encodeURIComponent(v);
  });
  const query: Record<string, string> = { ...(inputs.query[key] ?? {}) };
  for (const p of parameters) {
    if (p.in !== 'query' || p.required !== true || query[p.name] !== undefined) continue;
    const v = override[p.name] ?? inputs.params(p.name) ?? fromSchema(p.name);
    if (v === undefined) {
      problems.push(`${key}: no example value for required query parameter '${p.name}'`);
      missing = true;
    } else query[p.name] = v;
  }
  const documentedBody = op['requestBody'] as { content?: Record<string, { schema?: object }> } | undefined;
  const example = inputs.bodies[key];
  if (documentedBody !== undefined && example === undefined) {
    problems.push(`${key}: no example body`);
    missing = true;
  }
  if (missing) return undefined;
  const body = example?.() ?? {};
  const headers: Record<string, string> = { 'x-api-key': DEV_API_KEY };
  let payload: string | Buffer | undefined;
  if (body.json !== undefined) {
    payload = stringifyJson(body.json);
    headers['content-type'] = 'application/json';
  } else if (body.text !== undefined) {
    payload = body.text;
    headers['content-type'] = 'text/plain; charset=UTF-8';
  } else if (body.multipart !== undefined) {
    const f = form(body.multipart);
    payload = await f.buffer();
    headers['content-type'] = f.contentType;
  }
  if (payload !== undefined) {
    const mediaType = body.json !== undefined ? 'application/json' : body.multipart !== undefined ? 'multipart/form-data' : 'text/plain';
    const documented = documentedBody?.content?.[mediaType] ?? (body.text !== undefined ? documentedBody?.content?.['*/*'] : undefined);
    if (documented === undefined) problems.push(`${key}: sends a ${mediaType} body the document does not describe`);
  }
  const res = await app.inject({ method: o.method as 'GET', url, query, headers, ...(payload !== undefined ? { payload } : {}) });
  return { status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), text: res.body };
}

function checkAnswer(validator: DocumentValidator, o: DocumentedOperation, called: Called, problems: string[], expectedErrors = EXPECTED_ERRORS): void {
  const key = routeKey(o.method, o.path);
  const expected = expectedErrors[key];
  const brief = called.text.length > 300 ? `${called.text.slice(0, 300)}…` : called.text;
  if (expected !== undefined) {
    if (called.status !== expected.status) problems.push(`${key}: expected ${expected.status} (${expected.why}), got ${called.status}: ${brief}`);
  } else if (called.status < 200 || called.status > 299) {
    problems.push(`${key}: valid inputs answered ${called.status}: ${brief}`);
  }
  const responses = (o.operation['responses'] ?? {}) as Record<string, { content?: Record<string, { schema?: object }> }>;
  const documented = responses[String(called.status)];
  if (documented === undefined) {
    problems.push(`${key}: status ${called.status} is not documented (documented: ${Object.keys(responses).join(', ')})`);
    return;
  }
  const content = documented.content;
  if (content === undefined) {
    if (called.text !== '') problems.push(`${key}: ${called.status} is documented without a body, but one came: ${brief}`);
    return;
  }
  const mediaType = called.contentType.split(';')[0]!.trim().toLowerCase();
  const media = content[mediaType];
  if (media === undefined) {
    problems.push(`${key}: ${called.status} came as '${mediaType}', documented as ${Object.keys(content).join(', ')}`);
    return;
  }
  if (media.schema === undefined) {
    problems.push(`${key}: ${called.status} ${mediaType} has no schema`);
    return;
  }
  let value: unknown = called.text;
  if (mediaType === 'application/json') {
    try {
      value = forValidation(parseJson(called.text));
    } catch (e) {
      problems.push(`${key}: ${called.status} is not JSON (${(e as Error).message}): ${brief}`);
      return;
    }
  }
  for (const p of validator.problems(media.schema, value)) problems.push(`${key}: ${called.status} answer ${p} — ${brief}`);
}

// ---------------------------------------------------------------------------
// The specification's fields (`fields` of test/fixtures/seed-routes.json)

/** `balances[].assetId` → `balances`, `[]`, `assetId`; `*` is every value of a map. */
function fieldSteps(path: string): string[] {
  return path.split('.').flatMap((part) => {
    const m = /^(\*|[^[\]*]*)((?:\[\])*)$/.exec(part);
    if (m === null) throw new Error(`bad field path '${path}'`);
    return [...(m[1] === '' ? [] : [m[1]!]), ...Array.from({ length: m[2]!.length / 2 }, () => '[]')];
  });
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The documented fields an answer lacks. A field must be present (null counts); a list or map
 * it lies in must be non-empty, else there is nothing to check and that is reported too.
 */
export function absentFields(answer: unknown, paths: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (value: unknown, steps: readonly string[], at: string, path: string): void => {
    const [step, ...rest] = steps;
    if (step === undefined) return;
    const where = at === '' ? 'the answer' : at;
    if (step === '[]' || step === '*') {
      const items =
        step === '[]'
          ? Array.isArray(value)
            ? value.map((v, i) => [`${at}[${i}]`, v] as const)
            : undefined
          : isMap(value)
            ? Object.entries(value).map(([k, v]) => [`${at}.${k}`, v] as const)
            : undefined;
      if (items === undefined) out.push(`${path}: ${where} is not a ${step === '[]' ? 'list' : 'map'}`);
      else if (items.length === 0) out.push(`${path}: ${where} is empty, nothing to check`);
      else for (const [itemAt, item] of items) walk(item, rest, itemAt, path);
      return;
    }
    if (!isMap(value) || !(step in value)) out.push(`${path}: absent from ${where}`);
    else walk(value[step], rest, at === '' ? step : `${at}.${step}`, path);
  };
  for (const path of paths) walk(answer, fieldSteps(path), '', path);
  return out;
}

const SEED_BY_KEY = new Map(SEED_ROUTES.map((r) => [routeKey(r.method, r.path), r]));

/**
 * Documented fields the seeded node (no P2P network) leaves out, with the reason; the
 * network end-to-end test (test/e2e/network.test.ts) checks them on nodes that have one.
 */
const FIELDS_ABSENT_WITHOUT_NETWORK: Readonly<Record<string, readonly string[]>> = {
  'GET /debug/info': ['microBlockSynchronizerCacheSizes', 'scoreObserverStats'],
};

/** A successful JSON answer of a seed route, against the fields the specification documents for it; the route is added to `checked`. */
function checkSpecifiedFields(key: string, called: Called, problems: string[], checked: Set<string>): void {
  const seed = SEED_BY_KEY.get(key);
  if (seed === undefined || called.status < 200 || called.status > 299 || !called.contentType.startsWith('application/json')) return;
  const absentByDesign = new Set(FIELDS_ABSENT_WITHOUT_NETWORK[key] ?? []);
  for (const p of absentFields(
    parseJson(called.text),
    seed.fields.filter((f) => !absentByDesign.has(f)),
  ))
    problems.push(`${key}: the specification's field ${p}`);
  checked.add(key);
}

/** The request body sent, against the documented request schema. */
function checkRequest(validator: DocumentValidator, o: DocumentedOperation, body: ExampleBody | undefined, problems: string[]): void {
  if (body?.json === undefined) return;
  const key = routeKey(o.method, o.path);
  const schema = (o.operation['requestBody'] as { content?: Record<string, { schema?: object }> } | undefined)?.content?.['application/json']?.schema;
  if (schema === undefined) return;
  for (const p of validator.problems(schema, forValidation(parseJson(stringifyJson(body.json)))))
    problems.push(`${key}: the valid request body does not fit its documented schema: ${p}`);
}

// ---------------------------------------------------------------------------

/**
 * Seed routes deliberately not served yet, each with the reason. A route that cannot work
 * does not exist: these wait for the capability behind them. The test fails when one of
 * them appears (remove it here) or when any other seed route is missing.
 */
const KNOWN_GAPS: Readonly<Record<string, string>> = {
  'GET /node/metrics':
    "WE's switches of its InfluxDB measurement segments (common, block, privacy, contract, contract-validation, poa): Weft has no InfluxDB writer and no segments — its Prometheus metrics are at node.metrics.path — and the contract segments would switch executions the miner does not run yet",
  'POST /node/metrics':
    "WE's switches of its InfluxDB measurement segments (common, block, privacy, contract, contract-validation, poa): Weft has no InfluxDB writer and no segments — its Prometheus metrics are at node.metrics.path — and the contract segments would switch executions the miner does not run yet",
  'GET /debug/threadDump': 'a JVM thread dump; a Node.js process has no equivalent',
  'POST /debug/freeze': 'freezes the node before a snapshot swap: snapshots are not built yet',
  'POST /debug/cleanState': 'wipes state after a freeze for a snapshot swap: snapshots are not built yet',
};

const KNOWN_GAPS_BY_KEY: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(KNOWN_GAPS).map(([k, why]) => {
    const [method, path] = k.split(' ') as [string, string];
    return [routeKey(method, path), why];
  }),
);

describe("the specification's route list (test/fixtures/seed-routes.json)", () => {
  it('lists the documented fields of every route', () => {
    assert.deepEqual(
      SEED_ROUTES.filter((r) => !Array.isArray(r.fields)).map((r) => `${r.method} ${r.path}`),
      [],
    );
    for (const r of SEED_ROUTES) for (const f of r.fields) assert.doesNotThrow(() => fieldSteps(f), `${r.method} ${r.path}: ${f}`);
  });

  it('the field check is not lax: an absent field, a field in an empty list, a wrong shape are each reported', () => {
    assert.deepEqual(absentFields({ fee: null, height: 3 }, ['fee', 'height']), []);
    assert.deepEqual(absentFields({ height: 3 }, ['fee']), ['fee: absent from the answer']);
    assert.deepEqual(absentFields({ balances: [] }, ['balances[].minSponsoredAssetFee']), [
      'balances[].minSponsoredAssetFee: balances is empty, nothing to check',
    ]);
    assert.deepEqual(absentFields({ balances: [{ a: 1 }, { minSponsoredAssetFee: 2 }] }, ['balances[].minSponsoredAssetFee']), [
      'balances[].minSponsoredAssetFee: absent from balances[0]',
    ]);
    assert.deepEqual(absentFields([[{ id: 'x', height: 1 }]], ['[][].height']), []);
    assert.deepEqual(absentFields({ x: [{ assetId: 'a' }] }, ['*[].balance']), ['*[].balance: absent from .x[0]']);
    assert.deepEqual(absentFields({ lease: { in: 1 } }, ['lease.in', 'lease.out']), ['lease.out: absent from lease']);
    assert.deepEqual(absentFields('text', ['[]']), ['[]: the answer is not a list']);
  });
});

describe('every seed route is served and documented', () => {
  it('lists the seed routes of rest-api.md §3 that are missing', async () => {
    const s = await seededNode();
    after(() => s.close());
    const doc = await servedDocument(s.app);
    const served = new Set<string>();
    for (const g of ROUTE_GROUPS) for (const r of g.routes) served.add(routeKey(r.method, r.path));
    const documented = new Set(documentedOperations(doc).map((o) => routeKey(o.method, o.path)));
    const missing = SEED_ROUTES.filter((r) => !served.has(routeKey(r.method, r.path))).map((r) => `${r.method} ${r.path}`);
    const undocumented = SEED_ROUTES.filter(
      (r) => served.has(routeKey(r.method, r.path)) && r.inWeSwagger !== false && !documented.has(routeKey(r.method, r.path)),
    ).map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(
      { missing, undocumented },
      { missing: SEED_ROUTES.map((r) => `${r.method} ${r.path}`).filter((k) => k in KNOWN_GAPS), undocumented: [] },
      `${missing.length} of ${SEED_ROUTES.length} seed routes are not served; ${undocumented.length} served but not in the OpenAPI document`,
    );
  });
});

describe('the OpenAPI document, walked on a seeded chain', () => {
  let s: SeededNode;
  let doc: Json;
  let validator: DocumentValidator;
  before(async () => {
    s = await seededNode();
    doc = await servedDocument(s.app);
    validator = new DocumentValidator(doc);
  });
  after(() => s.close());

  it('the validator is not lax: a wrong answer fails its documented schema, an int64 past 2^63 is caught', () => {
    const op = documentedOperations(doc).find((o) => o.method === 'GET' && o.path === '/blocks/last')!;
    const schema = (op.operation['responses'] as Record<string, { content: Record<string, { schema: object }> }>)['200']!.content['application/json']!.schema;
    assert.notDeepEqual(validator.problems(schema, { height: 'x' }), []);
    assert.notDeepEqual(validator.problems(schema, []), []);
    const height = documentedOperations(doc).find((o) => o.method === 'GET' && o.path === '/blocks/height')!;
    const hs = (height.operation['responses'] as Record<string, { content: Record<string, { schema: object }> }>)['200']!.content['application/json']!.schema;
    assert.deepEqual(validator.problems(hs, { height: 3 }), []);
    assert.notDeepEqual(validator.problems(hs, { height: 3.5 }), []);
    assert.notDeepEqual(validator.problems(hs, { height: 2 ** 31 }), [], 'int32 range');
    assert.notDeepEqual(validator.problems(hs, {}), []);
    assert.throws(() => forValidation(parseJson('{"fee": 9223372036854775808}')), /does not fit a signed 64-bit integer/);
    assert.deepEqual(forValidation(parseJson('{"fee": 9223372036854775807}')), { fee: 2 ** 63 });
  });

  it('documents a schema for every parameter, request body and answer body', () => {
    const problems: string[] = [];
    for (const o of documentedOperations(doc)) {
      const key = `${o.method} ${o.path}`;
      const responses = (o.operation['responses'] ?? {}) as Record<string, { content?: Record<string, { schema?: unknown }> }>;
      if (!Object.keys(responses).some((st) => st.startsWith('2'))) problems.push(`${key}: no success answer documented`);
      for (const [status, r] of Object.entries(responses)) {
        for (const [media, m] of Object.entries(r.content ?? {})) if (m.schema === undefined) problems.push(`${key}: ${status} ${media} without a schema`);
      }
      for (const p of (o.operation['parameters'] ?? []) as Array<{ name: string; schema?: unknown }>)
        if (p.schema === undefined) problems.push(`${key}: parameter ${p.name} without a schema`);
      const body = o.operation['requestBody'] as { content?: Record<string, { schema?: unknown }> } | undefined;
      if (body !== undefined && !Object.values(body.content ?? {}).some((m) => m.schema !== undefined)) problems.push(`${key}: request body without a schema`);
    }
    assert.deepEqual(problems, []);
  });

  it('every schema of the document compiles (references resolve)', () => {
    const problems: string[] = [];
    for (const o of documentedOperations(doc)) {
      const schemas: object[] = [];
      for (const r of Object.values((o.operation['responses'] ?? {}) as Record<string, { content?: Record<string, { schema?: object }> }>)) {
        for (const m of Object.values(r.content ?? {})) if (m.schema !== undefined) schemas.push(m.schema);
      }
      const body = o.operation['requestBody'] as { content?: Record<string, { schema?: object }> } | undefined;
      for (const m of Object.values(body?.content ?? {})) if (m.schema !== undefined) schemas.push(m.schema);
      for (const schema of schemas) {
        try {
          validator.problems(schema, null);
        } catch (e) {
          problems.push(`${o.method} ${o.path}: ${(e as Error).message}`);
        }
      }
    }
    assert.deepEqual(problems, []);
  });

  it("calls every documented operation with valid inputs; each answer fits its documented schema and has the specification's fields", async () => {
    const inputs = inputsFor(s);
    const problems: string[] = [];
    const ops = order(documentedOperations(doc));
    assert.ok(ops.length > 0);
    const answered: string[] = [];
    const fieldsChecked = new Set<string>();
    for (const o of ops) {
      const key = routeKey(o.method, o.path);
      const example = inputs.bodies[key];
      const body = example?.();
      checkRequest(validator, o, body, problems);
      const called = await call(s.app, { ...inputs, bodies: { ...inputs.bodies, ...(body !== undefined ? { [key]: () => body } : {}) } }, o, problems);
      if (called !== undefined) {
        checkAnswer(validator, o, called, problems);
        checkSpecifiedFields(key, called, problems, fieldsChecked);
        answered.push(`${key} → ${called.status}`);
      }
    }
    // Every served seed route with documented fields had them checked here, or answers an expected error on this chain.
    const unchecked = SEED_ROUTES.map((r) => routeKey(r.method, r.path)).filter(
      (k) => !(k in KNOWN_GAPS_BY_KEY) && !(k in EXPECTED_ERRORS) && (SEED_BY_KEY.get(k)?.fields.length ?? 0) > 0 && !fieldsChecked.has(k),
    );
    for (const k of unchecked) problems.push(`${k}: the specification's fields were not checked (no successful JSON answer)`);
    process.stdout.write(`# walked ${answered.length} of ${ops.length} operations: ${answered.join('; ')}\n`);
    assert.deepEqual(problems, [], `${problems.length} problems over ${ops.length} operations`);
  });
});

describe('the consensus operations of the document, walked on a PoS chain', () => {
  it('answer under PoS as documented: the PoS routes succeed, the PoA-only ones answer their documented error', async () => {
    const c = await consensusChain(POS);
    after(() => c.close());
    for (let i = 0; i < 3; i++) c.forge();
    const doc = await servedDocument(c.app);
    const validator = new DocumentValidator(doc);
    const top = c.node.chain.height();
    const byName: Record<string, string> = {
      signature: encodeBase58(c.node.chain.blockAt(top)!.id),
      address: c.accounts[0]!.address,
      height: String(top),
      timestamp: String(c.clock.now),
    };
    const inputs: Inputs = { params: (name) => byName[name], overrides: {}, query: {}, bodies: {} };
    const expected: Record<string, { status: number; why: string }> = {
      'GET /consensus/minersAtHeight/{}': { status: 400, why: 'PoA data on a PoS chain (WE: 199)' },
      'GET /consensus/bannedMiners/{}': { status: 400, why: 'PoA data on a PoS chain (WE: 199)' },
    };
    const problems: string[] = [];
    const ops = documentedOperations(doc).filter((o) => o.path.startsWith('/consensus'));
    assert.ok(ops.length >= 10, `${ops.length} consensus operations`);
    for (const o of ops) {
      const called = await call(c.app, inputs, o, problems);
      if (called !== undefined) {
        checkAnswer(validator, o, called, problems, expected);
        checkSpecifiedFields(routeKey(o.method, o.path), called, problems, new Set());
      }
    }
    assert.deepEqual(problems, []);
  });
});
