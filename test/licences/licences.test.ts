/**
 * Node licences: the open signed format, WE's status machine reached through every status by
 * chain height and an injected clock, the service (upload checks, list, delete, persistence,
 * what an unlicensed node does), the CLI that issues licences, and `/licenses/*` on a dev
 * node, which starts licensed.
 */
import assert from 'node:assert/strict';
import { Protocol } from '../../src/protocol/protocol.js';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import type { CryptoSuite, KeyPair } from '../../src/crypto/suite.js';
import { createCryptoSuite } from '../../src/crypto/create-suite.js';
import { encodeBase58 } from '../../src/crypto/encoding.js';
import { LicenceService, type LicenceStorage } from '../../src/licences/licence-service.js';
import { LicenceError, parseLicence, signLicence, type LicenceTerms, type SignedLicence } from '../../src/licences/licence.js';
import { licenceStatus, TRIAL_BLOCKS } from '../../src/licences/status.js';
import { runCli, type CliIo } from '../../src/cli/cli.js';
import { devNodeConfig } from '../../src/cli/dev.js';
import { startNodeLicences } from '../../src/node/licences-wiring.js';
import type { Blockchain, ChainEvent } from '../../src/chain/blockchain.js';
import type { NodeConfig } from '../../src/node/config.js';
import { Node } from '../../src/node/node.js';
import { httpRequest } from '../../devkit/http.js';

const day = (text: string): bigint => BigInt(Date.parse(`${text}T00:00:00Z`));
const OWNER = '3MtKxY7Ww5CTFSywVdkEAQ34WAngNyeUSEf';

let suite: CryptoSuite;
let issuer: KeyPair;
let stranger: KeyPair;

before(async () => {
  suite = await createCryptoSuite('waves');
  issuer = suite.keyPairFromSeedPhrase('licence test issuer');
  stranger = suite.keyPairFromSeedPhrase('someone else');
});

function terms(o: Partial<LicenceTerms> = {}): LicenceTerms {
  return {
    version: 1,
    id: 'lic-1',
    issuedAt: '2026-01-01T10:00:00.000Z',
    nodeOwnerAddress: OWNER,
    validAfter: '2026-02-01',
    validBefore: '2026-03-01',
    features: ['all_inclusive'],
    ...o,
  };
}

const licence = (o: Partial<LicenceTerms> = {}, key = issuer): SignedLicence => signLicence(suite, terms(o), key.privateKey);

function memory(): LicenceStorage & { text: string | undefined } {
  const m = {
    text: undefined as string | undefined,
    read: () => m.text,
    write: (t: string) => {
      m.text = t;
    },
  };
  return m;
}

describe('the licence status machine', () => {
  it('reaches every status by height and time', () => {
    const feb = licence();
    const later = licence({ id: 'lic-2', validAfter: '2026-06-01', validBefore: null });
    const mid = day('2026-02-15');
    // Nothing uploaded: TRIAL up to 30 000 blocks, then TRIAL_EXPIRED.
    assert.deepEqual(licenceStatus([], 1, mid), { status: 'TRIAL', description: `Trial period is active. Blocks before expiration: '${TRIAL_BLOCKS - 1}'` });
    assert.equal(licenceStatus([], TRIAL_BLOCKS, mid).status, 'TRIAL');
    assert.equal(licenceStatus([], TRIAL_BLOCKS + 1, mid).status, 'TRIAL_EXPIRED');
    // A licence valid now: ACTIVE at any height; valid_after inclusive, valid_before exclusive.
    assert.deepEqual(licenceStatus([feb], 40_000, mid), { status: 'ACTIVE', description: "License 'lic-1' is active until 2026-03-01" });
    assert.equal(licenceStatus([feb], 40_000, day('2026-02-01')).status, 'ACTIVE');
    assert.equal(licenceStatus([feb], 40_000, day('2026-02-01') - 1n).status, 'PENDING');
    assert.equal(licenceStatus([feb], 40_000, day('2026-03-01')).status, 'EXPIRED');
    // During the trial a future or past licence leaves the status TRIAL.
    assert.equal(licenceStatus([feb], 100, day('2026-01-15')).status, 'TRIAL');
    assert.equal(licenceStatus([feb], 100, day('2026-04-15')).status, 'TRIAL');
    // After the trial: PENDING while a later one waits, EXPIRED when none will come.
    assert.deepEqual(licenceStatus([feb, later], 40_000, day('2026-04-15')), {
      status: 'PENDING',
      description: "Trial period is over and no license is active; license 'lic-2' becomes active on 2026-06-01",
    });
    assert.equal(licenceStatus([feb, later], 40_000, day('2026-06-01')).status, 'ACTIVE');
    assert.deepEqual(licenceStatus([feb], 40_000, day('2026-04-15')), {
      status: 'EXPIRED',
      description: "License 'lic-1' expired on 2026-03-01 and no other license is valid",
    });
  });
});

describe('the licence service', () => {
  it('uploads, lists, keeps and deletes licences signed by a listed issuer for this node', () => {
    const storage = memory();
    const clock = { now: day('2026-02-10'), height: 10 };
    const options = {
      suite,
      settings: { issuers: [issuer.publicKey], onExpiry: 'report' as const },
      nodeOwnerAddress: OWNER,
      storage,
      height: () => clock.height,
      now: () => clock.now,
    };
    const service = new LicenceService(options);
    const doc = service.upload(asDoc(licence()));
    assert.deepEqual({ ...doc, signer_id: undefined }, { ...asDoc(licence()), signature: doc['signature'], signer_id: undefined });
    assert.equal(typeof doc['signer_id'], 'string');
    assert.deepEqual(service.list(), [doc]);
    assert.throws(() => service.upload(doc), /license 'lic-1' is already uploaded/);
    // Kept: a new service on the same storage has it.
    assert.deepEqual(new LicenceService(options).list(), [doc]);
    clock.height = 40_000;
    assert.equal(service.status().status, 'ACTIVE');
    assert.deepEqual(service.delete('lic-1'), doc);
    assert.equal(service.delete('lic-1'), undefined);
    assert.deepEqual(service.list(), []);
    assert.equal(service.status().status, 'TRIAL_EXPIRED');
  });

  it('refuses a licence by another issuer, a changed one, one for another node, and malformed ones', () => {
    const service = new LicenceService({
      suite,
      settings: { issuers: [issuer.publicKey], onExpiry: 'report' },
      nodeOwnerAddress: OWNER,
      storage: memory(),
      height: () => 1,
      now: () => day('2026-02-10'),
    });
    const refuse = (doc: unknown, field: string, message: RegExp): void =>
      assert.throws(
        () => service.upload(doc),
        (e: unknown) => e instanceof LicenceError && e.field === field && message.test(e.message),
      );
    refuse(asDoc(licence({}, stranger)), 'signer_public_key', new RegExp(`signed by '${encodeBase58(stranger.publicKey)}', which is not a licence issuer`));
    const changed = asDoc(licence()) as { license: Record<string, unknown> };
    changed.license['valid_before'] = '2099-01-01';
    refuse(changed, 'signature', /signature does not verify/);
    refuse(asDoc(licence({ nodeOwnerAddress: '3N4WaaaNAVLMQgVKTRSePgwBuAKvZTjAQbq' })), 'license.node_owner_address', /not for this node's owner/);
    refuse(
      { license: { ...(asDoc(licence()).license as object), valid_after: '2026-02-30' }, signer_public_key: 'x', signature: 'x' },
      'license.valid_after',
      /not a YYYY-MM-DD date/,
    );
    refuse(
      { license: { ...(asDoc(licence()).license as object), version: 2 }, signer_public_key: 'x', signature: 'x' },
      'license.version',
      /unsupported licence version 2/,
    );
    refuse('text', 'body', /JSON object/);
    assert.throws(
      () => parseLicence({ license: asDoc(licence()).license, signer_public_key: '0OIl', signature: 'x' }),
      /signer_public_key is not valid Base58/,
    );
  });

  it('tells when the node stops and starts being licensed (what on-expiry acts on)', () => {
    const storage = memory();
    const clock = { now: day('2026-02-10'), height: TRIAL_BLOCKS };
    const changes: Array<[boolean, string]> = [];
    const service = new LicenceService({
      suite,
      settings: { issuers: [issuer.publicKey], onExpiry: 'stop-mining' },
      nodeOwnerAddress: OWNER,
      storage,
      height: () => clock.height,
      now: () => clock.now,
      onLicensedChange: (licensed, status) => changes.push([licensed, status.status]),
    });
    service.check();
    clock.height = TRIAL_BLOCKS + 1;
    service.check();
    service.check();
    service.upload(asDoc(licence()));
    clock.now = day('2026-03-01');
    service.check();
    assert.deepEqual(changes, [
      [true, 'TRIAL'],
      [false, 'TRIAL_EXPIRED'],
      [true, 'ACTIVE'],
      [false, 'EXPIRED'],
    ]);
  });
});

describe('node.licenses.on-expiry in a node', () => {
  it('report keeps mining; stop-mining stops the miner and starts it again once licensed; stop-node stops the node', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-licences-'));
    try {
      const base = await devNodeConfig({ dataDir: dir, keystore: { scrypt: { N: 1024, r: 8, p: 1 } } });
      rmSync(join(base.node.dataDirectory, 'licenses.json'));
      const run = (onExpiry: 'report' | 'stop-mining' | 'stop-node') => {
        const listeners: Array<(e: ChainEvent) => void> = [];
        const state = { height: TRIAL_BLOCKS + 1, mining: [] as string[], stopped: 0 };
        const chain = { height: () => state.height, on: (l: (e: ChainEvent) => void) => listeners.push(l) } as unknown as Blockchain;
        const config: NodeConfig = { ...base, licences: { ...base.licences!, onExpiry } };
        const service = startNodeLicences({
          config,
          suite,
          chain,
          now: () => BigInt(Date.now()),
          log: pino({ level: 'silent' }),
          mining: { start: () => void state.mining.push('start'), stop: () => void state.mining.push('stop') },
          stopNode: () => void state.stopped++,
        });
        const block = (): void => listeners.forEach((l) => l({ kind: 'block', height: state.height } as ChainEvent));
        return { service, state, block };
      };
      const report = run('report');
      report.service.check();
      report.block();
      assert.deepEqual(report.state.mining, []);
      assert.equal(report.service.status().status, 'TRIAL_EXPIRED');

      const pause = run('stop-mining');
      pause.service.check();
      assert.deepEqual(pause.state.mining, ['stop']);
      const issuerKey = suite.keyPairFromSeedPhrase('weft dev licence issuer - never use this seed on a real network');
      pause.service.upload(
        asDoc(
          signLicence(
            suite,
            terms({ id: 'now', nodeOwnerAddress: base.node.ownerAddress.toString(), validAfter: '2020-01-01', validBefore: null }),
            issuerKey.privateKey,
          ),
        ),
      );
      assert.deepEqual(pause.state.mining, ['stop', 'start']);
      pause.service.delete('now');
      assert.deepEqual(pause.state.mining, ['stop', 'start', 'stop']);

      const stop = run('stop-node');
      stop.service.check();
      await nextTurn();
      assert.equal(stop.state.stopped, 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function asDoc(l: SignedLicence): Record<string, unknown> {
  return {
    license: {
      version: l.terms.version,
      id: l.terms.id,
      issued_at: l.terms.issuedAt,
      node_owner_address: l.terms.nodeOwnerAddress,
      valid_after: l.terms.validAfter,
      valid_before: l.terms.validBefore,
      features: l.terms.features,
    },
    signer_public_key: encodeBase58(l.signerPublicKey),
    signature: encodeBase58(l.signature),
  };
}

describe('`licence` CLI and /licenses on a dev node', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'weft-licences-'));
  let node: Node;
  after(async () => {
    await node?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const io: CliIo = { env: {}, askSecret: undefined, out: (t) => void (out += t), err: (t) => void (err += t) };
    const code = await runCli(args, io);
    return { code, out, err };
  }

  it('starts licensed, lists its dev licence, uploads a licence issued by the CLI, refuses another issuer, deletes', async () => {
    const config = await devNodeConfig({ dataDir: dir, restPort: 0, p2pPort: 0, keystore: { scrypt: { N: 1024, r: 8, p: 1 } } });
    node = await Node.start({ ...config, miner: { ...config.miner, enabled: false } }, { logger: pino({ level: 'silent' }) });
    const get = (path: string) => httpRequest(node.url!, 'GET', path);
    assert.equal((await get('/licenses/status')).json.status, 'ACTIVE');
    const listed = (await get('/licenses')).json as Array<{ license: { node_owner_address: string; valid_before: unknown } }>;
    assert.equal(listed.length, 1);
    assert.equal(listed[0]!.license.node_owner_address, config.node.ownerAddress.toString());
    assert.equal(listed[0]!.license.valid_before, null);

    const owner = config.node.ownerAddress.toString();
    const issued = await cli([
      'licence',
      'issue',
      '--issuer-seed',
      'weft dev licence issuer - never use this seed on a real network',
      '--owner',
      owner,
      '--valid-after',
      '2026-01-01',
      '--valid-before',
      '2027-01-01',
      '--id',
      'from-cli',
    ]);
    assert.equal(issued.code, 0, issued.err);
    const up = await httpRequest(node.url!, 'POST', '/licenses/upload', issued.out);
    assert.equal(up.status, 200, up.text);
    assert.equal(up.json.license.id, 'from-cli');
    assert.deepEqual(
      ((await get('/licenses')).json as Array<{ license: { id: string } }>).map((l) => l.license.id).sort(),
      ['from-cli', `weft-dev-${owner}`].sort(),
    );
    assert.equal((await httpRequest(node.url!, 'POST', '/licenses/upload', issued.out, { apiKey: null })).status, 403);

    const key = await cli(['licence', 'issuer-key', '--issuer-seed', 'another issuer']);
    assert.equal(key.code, 0, key.err);
    const foreign = await cli(['licence', 'issue', '--issuer-seed', 'another issuer', '--owner', owner, '--valid-after', '2026-01-01']);
    const refused = await httpRequest(node.url!, 'POST', '/licenses/upload', foreign.out);
    assert.equal(refused.status, 400);
    assert.equal(refused.json.error, 199);
    assert.match(refused.json.message, new RegExp(`^Invalid license: the licence is signed by '${key.out.trim()}', which is not a licence issuer`));

    const deleted = await httpRequest(node.url!, 'DELETE', '/licenses/from-cli');
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(deleted.json.license.id, 'from-cli');
    const again = await httpRequest(node.url!, 'DELETE', '/licenses/from-cli');
    assert.equal(again.status, 404);
    assert.equal(again.json.error, 199);
    assert.equal(((await get('/licenses')).json as unknown[]).length, 1);
    const bad = await cli(['licence', 'issue', '--issuer-seed', 'x', '--owner', owner, '--valid-after', '2026-13-01']);
    assert.equal(bad.code, 1);
    assert.match(bad.err, /--valid-after '2026-13-01' is not a YYYY-MM-DD date/);

    // A GOST owner's address with a WAVES licence (the default crypto): refused, saying which crypto the address is of.
    const gostOwner = (await Protocol.create({ crypto: 'gost', chainId: 'T' })).addresses.fromPublicKey(new Uint8Array(64).fill(7)).toString();
    const mismatched = await cli(['licence', 'issue', '--issuer-seed', 'x', '--owner', gostOwner, '--valid-after', '2026-01-01']);
    assert.equal(mismatched.code, 1);
    assert.match(mismatched.err, new RegExp(`--owner ${gostOwner} is an address of a gost network .*add --crypto gost`));
    const forGost = await cli(['licence', 'issue', '--crypto', 'gost', '--issuer-seed', 'x', '--owner', gostOwner, '--valid-after', '2026-01-01']);
    assert.equal(forGost.code, 0, forGost.err);
    const broken = await cli(['licence', 'issue', '--issuer-seed', 'x', '--owner', `${owner.slice(0, -2)}11`, '--valid-after', '2026-01-01']);
    assert.equal(broken.code, 1);
    assert.match(broken.err, /is not a valid address: invalid address: Bad address checksum/);
  });
});
