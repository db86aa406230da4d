/**
 * The three storages against one suite — embedded (LMDB + files), PostgreSQL (a real
 * throwaway cluster) and S3 (a real s3rver) — plus what each promises on its own: the
 * embedded store's crash recovery, WE's PostgreSQL schema and Flyway history, WE's S3
 * object layout and metadata.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { open } from 'lmdb';
import { decodeItemMeta, encodeItemMeta, policyDataHashOf, type PolicyItemMeta } from '../../src/privacy/item.js';
import { PRIVACY_DEFAULTS, type PostgresStorageSettings, type S3StorageSettings } from '../../src/privacy/settings.js';
import { EmbeddedStorage } from '../../src/privacy/storage/embedded.js';
import { pgConnectionOf, PostgresStorage, WE_MIGRATIONS } from '../../src/privacy/storage/postgres.js';
import { S3Storage } from '../../src/privacy/storage/s3.js';
import { decodeMetadataValue, encodeMetadataValue } from '../../src/privacy/storage/s3-metadata.js';
import type { PolicyStorage } from '../../src/privacy/storage/storage.js';
import { startPostgres, type PostgresCluster } from '../support/postgres.js';
import { startS3rver, S3RVER_KEY, type S3Server } from '../support/s3.js';
import { tempDir } from '../../devkit/tmp.js';
import { StorageFailure, WeError } from '../../src/errors/catalogue.js';

const POLICY = '9pZW2hTwJHcPmX5dTSeT2xyxLJ9FQ5nq3Tgq1pVHrA1Y';
const OTHER_POLICY = 'DcrHxzXWcALzbEFHHgWCdyriFqRWbfJjyomm3CqSbKC7';
const LARGE = 12 * 1024 * 1024 + 12345;

let counter = 0;
function item(data: Uint8Array, over: Partial<PolicyItemMeta> = {}): PolicyItemMeta {
  counter++;
  return {
    policyId: POLICY,
    hash: policyDataHashOf(data),
    sender: '3NBVqYXrapgJP9atQccdBPAgJPwHDKkh6A8',
    filename: `file-${counter}.bin`,
    size: data.length,
    timestamp: 1_711_357_000_000n + BigInt(counter),
    author: 'alice@example.org',
    comment: 'demo',
    ...over,
  };
}

/** The bytes in 64 KiB chunks, as an upload streams them; optionally failing after `failAfter` bytes. */
// eslint-disable-next-line @typescript-eslint/require-await -- an async source, as an upload is
async function* streamed(data: Uint8Array, failAfter?: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < data.length; at += 65536) {
    if (failAfter !== undefined && at >= failAfter) throw new Error('the client went away');
    yield data.subarray(at, at + 65536);
  }
}

async function readAll(stream: AsyncIterable<unknown>): Promise<Uint8Array> {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(c as Buffer);
  return new Uint8Array(Buffer.concat(parts));
}

const isCode = (code: number) => (e: unknown) => e instanceof WeError && e.code === code;

/** What every storage must do. `leftovers` tells whether anything of failed uploads remains. */
function storageSuite(name: string, storage: () => PolicyStorage, leftovers: () => Promise<number>): void {
  describe(`${name} storage`, () => {
    it('stores a small item: visible with its type, metadata and bytes; a second upload is 608', async () => {
      const s = storage();
      const data = randomBytes(1000);
      const meta = item(data);
      assert.equal(await s.exists(meta), false);
      assert.equal(await s.meta(meta), undefined);
      assert.equal(await s.readData(meta), undefined);
      assert.equal(await s.openData(meta), undefined);
      await s.save(meta, 'default', data);
      assert.equal(await s.exists(meta), true);
      assert.equal(await s.itemType(meta), 'default');
      assert.deepEqual(await s.meta(meta), meta);
      assert.deepEqual(await s.readData(meta), new Uint8Array(data));
      const opened = await s.openData(meta);
      assert.equal(opened?.length, 1000);
      assert.deepEqual(await readAll(opened.stream), new Uint8Array(data));
      await assert.rejects(s.save(meta, 'default', data), isCode(608));
      assert.deepEqual(await s.readData(meta), new Uint8Array(data), 'the stored item is untouched');
    });

    it('stores an empty item', async () => {
      const s = storage();
      const meta = item(new Uint8Array(0));
      await s.save(meta, 'default', new Uint8Array(0));
      assert.deepEqual(await s.readData(meta), new Uint8Array(0));
    });

    it('streams a large item in and out byte-identical, with its exact length', async () => {
      const s = storage();
      const data = randomBytes(LARGE);
      const meta = item(data, { size: 1 });
      await s.save(meta, 'large', streamed(data));
      assert.equal(await s.itemType(meta), 'large');
      assert.deepEqual(await s.meta(meta), meta, 'size is kept as given, not measured');
      const opened = await s.openData(meta);
      assert.equal(opened?.length, LARGE);
      assert.ok(Buffer.from(await readAll(opened.stream)).equals(data));
      await assert.rejects(s.save(meta, 'large', streamed(data)), isCode(608));
    });

    it('stores nothing visible for a wrong hash or a cut upload, small or large, and leaves nothing behind', async () => {
      const s = storage();
      const data = randomBytes(LARGE);
      const wrong = item(data, { hash: policyDataHashOf(randomBytes(10)) });
      await assert.rejects(
        s.save(wrong, 'default', data.subarray(0, 500)),
        (e: unknown) => isCode(199)(e) && /^Invalid data hash\. Actual '\w+', expected '\w+'$/.test((e as Error).message),
      );
      await assert.rejects(s.save(wrong, 'large', streamed(data)), (e: unknown) => isCode(199)(e) && (e as Error).message.includes(policyDataHashOf(data)));
      assert.equal(await s.exists(wrong), false);
      const cut = item(data);
      await assert.rejects(s.save(cut, 'large', streamed(data, 7 * 1024 * 1024)), /the client went away/);
      assert.equal(await s.exists(cut), false);
      assert.equal(await s.openData(cut), undefined);
      assert.equal(await leftovers(), 0);
      // The same item uploads fine afterwards.
      await s.save(cut, 'large', streamed(data));
      assert.ok(Buffer.from((await s.readData(cut))!).equals(data));
    });

    it('answers the metadata of exactly the stored pairs asked for', async () => {
      const s = storage();
      const a = randomBytes(10);
      const b = randomBytes(11);
      const ma = item(a);
      const mb = item(b, { policyId: OTHER_POLICY });
      await s.save(ma, 'default', a);
      await s.save(mb, 'default', b);
      const found = await s.metas(
        new Map([
          [POLICY, new Set([ma.hash, mb.hash, 'unknown'])],
          [OTHER_POLICY, new Set([mb.hash])],
          ['nothing', new Set([ma.hash])],
        ]),
      );
      assert.deepEqual(found.map((m) => m.hash).sort(), [ma.hash, mb.hash].sort());
      assert.deepEqual(await s.metas(new Map()), []);
    });

    it('keeps any text in the metadata exactly (non-ASCII, spaces, encoded-word look-alikes, empty)', async () => {
      const s = storage();
      const data = randomBytes(20);
      const meta = item(data, { filename: 'отчёт за 2024 год — финал.pdf', author: '  padded  ', comment: '=?UTF-8?B?aGk=?=', sender: '' });
      await s.save(meta, 'default', data);
      assert.deepEqual(await s.meta(meta), meta);
    });

    it('passes its health check', async () => {
      await storage().healthCheck();
    });
  });
}

describe('WE metadata bytes (PolicyMetaData.bytes)', () => {
  it("round-trip and match WE's layout", () => {
    const meta = item(new Uint8Array([1]), { filename: 'ф', author: 'a', comment: '' });
    const bytes = encodeItemMeta(meta);
    assert.deepEqual(decodeItemMeta(bytes), meta);
    // policyId length prefix (i32 BE) then its UTF-8.
    assert.deepEqual([...bytes.subarray(0, 4)], [0, 0, 0, POLICY.length]);
    const afterSender = 4 + POLICY.length + 4 + meta.hash.length + 4 + meta.sender.length;
    assert.equal(bytes[afterSender], 1, 'the constant type byte');
    assert.throws(() => decodeItemMeta(bytes.subarray(0, bytes.length - 1)));
    assert.throws(() => decodeItemMeta(new Uint8Array([...bytes, 0])));
  });
});

describe('S3 metadata encoding', () => {
  it('leaves plain ASCII as it is and encodes the rest reversibly', () => {
    for (const v of [
      'plain.txt',
      '',
      'a b',
      'ünïcödé',
      ' lead',
      'trail ',
      'tab\tinside',
      '=?UTF-8?B?eA==?=',
      'x'.repeat(2000),
      '日本語'.repeat(40),
      '\u0000',
    ]) {
      const encoded = encodeMetadataValue(v);
      assert.match(encoded, /^[\x20-\x7e]*$/);
      assert.equal(encoded.trim(), encoded);
      assert.equal(decodeMetadataValue(encoded), v);
    }
    assert.equal(encodeMetadataValue('plain.txt'), 'plain.txt');
    assert.equal(encodeMetadataValue('é'), '=?UTF-8?B?w6k=?=');
    for (const word of encodeMetadataValue('日本語'.repeat(40)).split(' ')) assert.ok(word.length <= 75);
  });
});

// --- embedded ---------------------------------------------------------------------

// The three storages, started before any test and stopped after the last.
const embeddedDir = tempDir('weft-privacy-embedded-');
let embedded: EmbeddedStorage;
let cluster: PostgresCluster;
let pgSettings: PostgresStorageSettings;
let postgres: PostgresStorage;
let s3rver: S3Server;
let s3Settings: S3StorageSettings;
let s3: S3Storage;
const BUCKET = 'weft-privacy';

before(async () => {
  embedded = await EmbeddedStorage.open(embeddedDir);
  cluster = await startPostgres();
  pgSettings = {
    vendor: 'postgres',
    url: await cluster.createDatabase('privacy'),
    user: 'postgres',
    password: undefined,
    schema: 'public',
    connectionTimeoutMs: 5000,
    poolSize: 4,
    uploadChunkSize: PRIVACY_DEFAULTS.postgresUploadChunkSize,
  };
  postgres = await PostgresStorage.open(pgSettings);
  s3rver = await startS3rver();
  s3Settings = {
    vendor: 's3',
    url: s3rver.endpoint,
    bucket: BUCKET,
    region: 'us-east-1',
    accessKeyId: S3RVER_KEY,
    secretAccessKey: S3RVER_KEY,
    pathStyleAccessEnabled: true,
    connectionTimeoutMs: 5000,
    connectionAcquisitionTimeoutMs: 10_000,
    maxConcurrency: 20,
    readTimeoutMs: 0,
    uploadChunkSize: PRIVACY_DEFAULTS.s3UploadChunkSize,
  };
  s3 = await S3Storage.open(s3Settings);
});

after(async () => {
  await embedded?.close();
  await postgres?.close();
  await cluster?.stop();
  await s3?.close();
  await s3rver?.stop();
});

const entriesOf = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir) : []);

/** Files of `incoming/`, and files of `large/` that belong to no stored item. */
async function embeddedLeftovers(): Promise<number> {
  let n = entriesOf(join(embeddedDir, 'incoming')).length;
  for (const f of entriesOf(join(embeddedDir, 'large'))) {
    const [policyId = '', hash = ''] = f.split('.');
    if (!(await embedded.exists({ policyId, hash }))) n++;
  }
  return n;
}

storageSuite('embedded', () => embedded, embeddedLeftovers);

describe('embedded storage after a crash', () => {
  it('removes partial uploads and files renamed but never made visible, keeps complete items', async () => {
    const dir = tempDir('weft-privacy-crash-');
    const s = await EmbeddedStorage.open(dir);
    const kept = randomBytes(3000);
    const keptMeta = item(kept);
    await s.save(keptMeta, 'large', streamed(kept));
    await s.close();
    // What a crash leaves: a half-written part, and a renamed file whose metadata never committed (journaled upload).
    writeFileSync(join(dir, 'incoming', 'abc.part'), randomBytes(100));
    const orphan = item(randomBytes(10));
    writeFileSync(join(dir, 'large', `${orphan.policyId}.${orphan.hash}`), randomBytes(10));
    const db = open<Uint8Array, Uint8Array>({ path: join(dir, 'meta'), keyEncoding: 'binary', encoding: 'binary' });
    await db.put(new Uint8Array(Buffer.from('uf00d', 'latin1')), new Uint8Array(Buffer.from(`${orphan.policyId}\u0000${orphan.hash}`, 'latin1')));
    await db.close();
    const reopened = await EmbeddedStorage.open(dir);
    after(() => reopened.close());
    assert.deepEqual(readdirSync(join(dir, 'incoming')), []);
    assert.deepEqual(readdirSync(join(dir, 'large')), [`${keptMeta.policyId}.${keptMeta.hash}`]);
    assert.equal(await reopened.exists(orphan), false);
    assert.ok(Buffer.from((await reopened.readData(keptMeta))!).equals(kept));
  });

  it('answers 617-worthy absence (undefined) when a stored large file was removed behind its back', async () => {
    const dir = tempDir('weft-privacy-gone-');
    mkdirSync(dir, { recursive: true });
    const s = await EmbeddedStorage.open(dir);
    after(() => s.close());
    const data = randomBytes(100);
    const meta = item(data);
    await s.save(meta, 'large', streamed(data));
    rmSync(join(dir, 'large', `${meta.policyId}.${meta.hash}`));
    assert.equal(await s.openData(meta), undefined);
    assert.equal(await s.readData(meta), undefined);
  });
});

// --- PostgreSQL --------------------------------------------------------------------

const pgCount = async (sql: string): Promise<number> => {
  const c = await cluster.client('privacy');
  try {
    return Number((await c.query<{ n: string }>(sql)).rows[0]!.n);
  } finally {
    await c.end();
  }
};

storageSuite(
  'PostgreSQL',
  () => postgres,
  async () =>
    (await pgCount('SELECT count(*) AS n FROM pg_largeobject_metadata')) -
    (await pgCount('SELECT count(*) AS n FROM policy_meta_data WHERE lo_id IS NOT NULL')),
);

describe('PostgreSQL connection settings', () => {
  it("read WE's JDBC URL, its user and password parameters, and the pool settings", () => {
    const base = { ...pgSettings, user: undefined, password: undefined, poolSize: 7, connectionTimeoutMs: 1234 };
    assert.deepEqual(pgConnectionOf({ ...base, url: 'jdbc:postgresql://db.example:6543/we_privacy?user=we&password=p%20w' }), {
      host: 'db.example',
      port: 6543,
      database: 'we_privacy',
      user: 'we',
      password: 'p w',
      max: 7,
      connectionTimeoutMillis: 1234,
    });
    assert.equal(pgConnectionOf({ ...base, url: 'jdbc:postgresql://[::1]/x' }).host, '::1');
    assert.equal(pgConnectionOf({ ...base, url: 'jdbc:postgresql://h/x', user: 'u' }).user, 'u');
    assert.throws(() => pgConnectionOf({ ...base, url: 'postgres://h/x' }), /expected jdbc:postgresql:\/\/host\[:port\]\/database/);
  });
});

describe('PostgreSQL schema', () => {
  it("is WE's after its four migrations, recorded as Flyway records them, and is not migrated twice", async () => {
    const c = await cluster.client('privacy');
    after(() => c.end());
    const columns = await c.query<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>(
      "SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = 'public' AND table_name IN ('policy_meta_data', 'policy_data') ORDER BY table_name, ordinal_position",
    );
    assert.deepEqual(
      columns.rows.map((r) => `${r.table_name}.${r.column_name} ${r.data_type} ${r.is_nullable}`),
      [
        'policy_data.policy_id character varying NO',
        'policy_data.hash character varying NO',
        'policy_data.data bytea NO',
        'policy_meta_data.policy_id character varying NO',
        'policy_meta_data.hash character varying NO',
        'policy_meta_data.sender character varying NO',
        'policy_meta_data.filename character varying NO',
        'policy_meta_data.size integer NO',
        'policy_meta_data.timestamp bigint NO',
        'policy_meta_data.author character varying NO',
        'policy_meta_data.comment character varying NO',
        'policy_meta_data.lo_id oid YES',
      ],
    );
    const indexes = await c.query<{ indexname: string; indexdef: string }>(
      "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename IN ('policy_meta_data', 'policy_data') ORDER BY indexname",
    );
    assert.deepEqual(
      indexes.rows.map((r) => r.indexname),
      ['policy_data_policy_id_with_hash_idx', 'policy_meta_data_policy_id_with_hash_idx'],
      'unique (policy_id, hash) indexes and no primary keys',
    );
    assert.ok(indexes.rows.every((r) => r.indexdef.startsWith('CREATE UNIQUE INDEX')));
    const history = await c.query<{
      installed_rank: number;
      version: string;
      description: string;
      type: string;
      script: string;
      checksum: number;
      success: boolean;
    }>('SELECT installed_rank, version, description, type, script, checksum, success FROM flyway_schema_history ORDER BY installed_rank');
    assert.deepEqual(
      history.rows.map((r) => [r.installed_rank, r.version, r.description, r.type, r.script, r.checksum, r.success]),
      [
        [1, '1', 'init tables', 'SQL', 'V1__init_tables.sql', -813618216, true],
        [2, '2', 'remove primary key for hash', 'SQL', 'V2__remove_primary_key_for_hash.sql', -146234538, true],
        [3, '3', 'remove type column from metadata table', 'SQL', 'V3__remove_type_column_from_metadata_table.sql', 1078666037, true],
        [4, '4', 'add lo id column', 'SQL', 'V4__add_lo_id_column.sql', 373296287, true],
      ],
    );
    assert.equal(WE_MIGRATIONS.length, 4);
    // Opening again applies nothing.
    const again = await PostgresStorage.open(pgSettings);
    await again.close();
    assert.equal((await c.query('SELECT * FROM flyway_schema_history')).rowCount, 4);
  });

  it("reads rows a WE node wrote (plain SQL inserts, as WE's DAO does)", async () => {
    const c = await cluster.client('privacy');
    after(() => c.end());
    const data = Buffer.from('written by WE');
    const hash = policyDataHashOf(data);
    await c.query(
      'INSERT INTO policy_meta_data (policy_id, hash, sender, filename, size, timestamp, author, comment, lo_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL)',
      [OTHER_POLICY, hash, 'sender', 'we.txt', 13, '1711357000000', 'we', ''],
    );
    await c.query('INSERT INTO policy_data (policy_id, hash, data) VALUES ($1, $2, $3)', [OTHER_POLICY, hash, data]);
    const key = { policyId: OTHER_POLICY, hash };
    assert.equal(await postgres.itemType(key), 'default');
    assert.equal(Buffer.from((await postgres.readData(key))!).toString(), 'written by WE');
    assert.equal((await postgres.meta(key))?.timestamp, 1_711_357_000_000n);
  });

  it('creates its schema in another PostgreSQL schema when configured, and refuses WE tables without history', async () => {
    const other = await PostgresStorage.open({ ...pgSettings, schema: 'weft privacy' });
    await other.close();
    const c = await cluster.client('privacy');
    after(() => c.end());
    assert.equal((await c.query(`SELECT * FROM "weft privacy".flyway_schema_history`)).rowCount, 4);
    await c.query('CREATE SCHEMA stray');
    await c.query('CREATE TABLE stray.policy_meta_data (x int)');
    await assert.rejects(PostgresStorage.open({ ...pgSettings, schema: 'stray' }), /without Flyway's history table/);
  });

  it('answers 609 when the database is gone', async () => {
    const dead = await PostgresStorage.open({ ...pgSettings, schema: 'public' });
    await cluster.stop();
    await assert.rejects(dead.meta({ policyId: POLICY, hash: 'x' }), (e: unknown) => e instanceof StorageFailure && e.code === 609 && e.status === 500);
    await assert.rejects(dead.healthCheck(), StorageFailure);
    await dead.close();
  });
});

// --- S3 ---------------------------------------------------------------------------

const s3Client = (): S3Client =>
  new S3Client({ endpoint: s3rver.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: S3RVER_KEY, secretAccessKey: S3RVER_KEY } });

// s3rver keeps incomplete multipart uploads out of sight (and refuses to list or abort them): nothing visible is what counts.
storageSuite(
  'S3',
  () => s3,
  () => Promise.resolve(0),
);

describe('S3 object layout', () => {
  it("is WE's: key policyId‖hash, WE's metadata names, non-ASCII values as RFC 2047 words", async () => {
    const data = Buffer.from('layout');
    const meta = item(data, { filename: 'файл.txt' });
    await s3.save(meta, 'default', data);
    const client = s3Client();
    after(() => client.destroy());
    const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: meta.policyId + meta.hash }));
    const md = Object.fromEntries(Object.entries(head.Metadata ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
    assert.deepEqual(md, {
      policyid: meta.policyId,
      hash: meta.hash,
      sender: meta.sender,
      filename: '=?UTF-8?B?0YTQsNC50LsudHh0?=',
      size: String(meta.size),
      timestamp: meta.timestamp.toString(),
      author: meta.author,
      comment: meta.comment,
      islarge: 'false',
    });
    assert.equal(decodeMetadataValue(md['filename']), 'файл.txt');
    const body = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: meta.policyId + meta.hash }));
    assert.equal(await body.Body!.transformToString(), 'layout');
  });

  it('creates a missing bucket at start', async () => {
    const other = await S3Storage.open({ ...s3Settings, bucket: 'weft-another-bucket' });
    after(() => other.close());
    await other.healthCheck();
  });

  it('answers 609 when the server is gone', async () => {
    const dead = await S3Storage.open({ ...s3Settings, connectionTimeoutMs: 500 });
    await s3rver.stop();
    await assert.rejects(dead.meta({ policyId: POLICY, hash: 'x' }), (e: unknown) => e instanceof StorageFailure && e.code === 609);
    await dead.close();
  });
});
