/**
 * Confidential data in PostgreSQL, in WE's schema, so a WE node's privacy database can be
 * pointed at Weft and back (reference §3.2):
 *
 *   policy_meta_data (policy_id, hash, sender, filename, size int, timestamp bigint,
 *                     author, comment, lo_id oid NULL)   unique (policy_id, hash)
 *   policy_data      (policy_id, hash, data bytea)       unique (policy_id, hash)
 *
 * built by WE's four migrations, recorded in Flyway's `flyway_schema_history` table with
 * the checksums of WE's migration files (WE runs Flyway 5.2.4, which validates them):
 * a database WE migrated is used as it is, one Weft created passes WE's validation.
 *
 * A small (default) item is one transaction: its metadata row and its `policy_data` row. A
 * large item is a large object written in `upload-chunk-size` pieces while its SHA-256 is
 * taken, then its metadata row with `lo_id`, all in one transaction on one connection: a
 * hash mismatch, a cut upload or a crash rolls back the large object with the rest (no
 * orphan, unlike WE). Large objects are read back in pieces of the same size.
 *
 * Beyond WE: `metas` answers exactly the (policy, hash) pairs asked for (WE's query also
 * matches cross combinations of the ids and hashes of a request).
 */
import { Readable } from 'node:stream';
import pg from 'pg';
import { entityAlreadyExists, StorageFailure } from '../../errors/catalogue.js';
import type { PolicyItemKey, PolicyItemMeta, PrivacyDataType } from '../item.js';
import type { PostgresStorageSettings } from '../settings.js';
import { chunksOf, ItemDigest, piecesOf, type IncomingData, type PolicyStorage, type StoredData } from './storage.js';

/** PostgreSQL's INV_READ / INV_WRITE modes of lo_open. */
const INV_READ = 0x40000;
const UNIQUE_VIOLATION = '23505';

/** WE's migrations: version, Flyway description and script, the checksum Flyway 5.2.4 computes for WE's file, and the same schema change. */
export const WE_MIGRATIONS: ReadonlyArray<{
  readonly version: number;
  readonly description: string;
  readonly script: string;
  readonly checksum: number;
  readonly sql: (t: Tables) => string[];
}> = [
  {
    version: 1,
    description: 'init tables',
    script: 'V1__init_tables.sql',
    checksum: -813618216,
    sql: (t) => [
      `CREATE TABLE ${t.meta} ("policy_id" VARCHAR NOT NULL, "hash" VARCHAR NOT NULL, "sender" VARCHAR NOT NULL, "type" VARCHAR NOT NULL, "filename" VARCHAR NOT NULL, "size" INTEGER NOT NULL, "timestamp" BIGINT NOT NULL, "author" VARCHAR NOT NULL, "comment" VARCHAR NOT NULL, PRIMARY KEY ("hash"))`,
      `CREATE UNIQUE INDEX "policy_meta_data_policy_id_with_hash_idx" ON ${t.meta} ("policy_id", "hash")`,
      `CREATE TABLE ${t.data} ("policy_id" VARCHAR NOT NULL, "hash" VARCHAR NOT NULL, "data" BYTEA NOT NULL, PRIMARY KEY ("hash"))`,
      `CREATE UNIQUE INDEX "policy_data_policy_id_with_hash_idx" ON ${t.data} ("policy_id", "hash")`,
    ],
  },
  {
    version: 2,
    description: 'remove primary key for hash',
    script: 'V2__remove_primary_key_for_hash.sql',
    checksum: -146234538,
    sql: (t) => [`ALTER TABLE ${t.meta} DROP CONSTRAINT "policy_meta_data_pkey"`, `ALTER TABLE ${t.data} DROP CONSTRAINT "policy_data_pkey"`],
  },
  {
    version: 3,
    description: 'remove type column from metadata table',
    script: 'V3__remove_type_column_from_metadata_table.sql',
    checksum: 1078666037,
    sql: (t) => [`ALTER TABLE ${t.meta} DROP COLUMN "type"`],
  },
  {
    version: 4,
    description: 'add lo id column',
    script: 'V4__add_lo_id_column.sql',
    checksum: 373296287,
    sql: (t) => [`ALTER TABLE ${t.meta} ADD COLUMN "lo_id" OID`],
  },
];

/** Quoted names of the tables in the configured schema. */
interface Tables {
  readonly schema: string;
  readonly meta: string;
  readonly data: string;
  readonly history: string;
}

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

function tablesIn(schema: string): Tables {
  const s = quote(schema);
  return { schema: s, meta: `${s}."policy_meta_data"`, data: `${s}."policy_data"`, history: `${s}."flyway_schema_history"` };
}

/** `jdbc:postgresql://host[:port]/database[?user=…&password=…]` as pg's connection settings. */
export function pgConnectionOf(settings: PostgresStorageSettings): pg.PoolConfig {
  const m = /^jdbc:postgresql:\/\/(\[[^\]]+\]|[^:/?]+)(?::(\d+))?\/([^?]*)(?:\?(.*))?$/.exec(settings.url.trim());
  if (m === null) throw new Error(`node.privacy.storage.jdbc-config.url: expected jdbc:postgresql://host[:port]/database, got '${settings.url}'`);
  const params = new URLSearchParams(m[4] ?? '');
  return {
    host: m[1]!.replace(/^\[|\]$/g, ''),
    port: m[2] === undefined ? 5432 : Number(m[2]),
    database: decodeURIComponent(m[3]!),
    user: settings.user ?? params.get('user') ?? undefined,
    password: settings.password ?? params.get('password') ?? undefined,
    max: settings.poolSize,
    connectionTimeoutMillis: settings.connectionTimeoutMs,
  };
}

interface MetaRow {
  policy_id: string;
  hash: string;
  sender: string;
  filename: string;
  size: number;
  timestamp: string;
  author: string;
  comment: string;
  lo_id: number | string | null;
}

const metaOf = (r: MetaRow): PolicyItemMeta => ({
  policyId: r.policy_id,
  hash: r.hash,
  sender: r.sender,
  filename: r.filename,
  size: r.size,
  timestamp: BigInt(r.timestamp),
  author: r.author,
  comment: r.comment,
});

/** A failure of the database (a duplicate item is the client's entityAlreadyExists). */
function databaseFailure(what: string, e: unknown): Error {
  if ((e as { code?: string }).code === UNIQUE_VIOLATION) return entityAlreadyExists();
  return new StorageFailure(`${what}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
}

/** One statement; its failure is the database's (see databaseFailure). */
async function run<R extends pg.QueryResultRow>(db: pg.Pool | pg.PoolClient, what: string, text: string, values: unknown[] = []): Promise<R[]> {
  try {
    return (await db.query<R>(text, values)).rows;
  } catch (e) {
    throw databaseFailure(what, e);
  }
}

export class PostgresStorage implements PolicyStorage {
  readonly vendor = 'postgres';

  private constructor(
    private readonly pool: pg.Pool,
    private readonly t: Tables,
    private readonly chunkSize: number,
  ) {}

  /** Connects, brings the schema to WE's latest migration, and checks it can be used. */
  static async open(settings: PostgresStorageSettings): Promise<PostgresStorage> {
    const pool = new pg.Pool(pgConnectionOf(settings));
    // An idle client that loses its connection must not crash the node.
    pool.on('error', () => undefined);
    const storage = new PostgresStorage(pool, tablesIn(settings.schema), settings.uploadChunkSize);
    try {
      await storage.migrate();
    } catch (e) {
      await pool.end();
      throw e;
    }
    return storage;
  }

  /** Applies WE's migrations the schema lacks, each in a transaction with its Flyway history row. */
  private async migrate(): Promise<void> {
    const client = await this.connect('connecting for the schema migration');
    try {
      const t = this.t;
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${t.schema}`);
      const schemaName = t.schema.slice(1, -1).replace(/""/g, '"');
      const tables = await client.query<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1`, [schemaName]);
      const names = new Set(tables.rows.map((r) => r.table_name));
      if (!names.has('flyway_schema_history')) {
        if (names.has('policy_meta_data') || names.has('policy_data')) {
          throw new Error(`schema ${t.schema} holds privacy tables without Flyway's history table: migrate it with WE's node first, or use an empty schema`);
        }
        await client.query(
          `CREATE TABLE ${t.history} ("installed_rank" INT NOT NULL, "version" VARCHAR(50), "description" VARCHAR(200) NOT NULL, "type" VARCHAR(20) NOT NULL, "script" VARCHAR(1000) NOT NULL, "checksum" INT, "installed_by" VARCHAR(100) NOT NULL, "installed_on" TIMESTAMP NOT NULL DEFAULT now(), "execution_time" INTEGER NOT NULL, "success" BOOLEAN NOT NULL, CONSTRAINT "flyway_schema_history_pk" PRIMARY KEY ("installed_rank"))`,
        );
        await client.query(`CREATE INDEX "flyway_schema_history_s_idx" ON ${t.history} ("success")`);
      }
      const applied = await client.query<{ version: string | null; success: boolean; checksum: number | null }>(
        `SELECT "version", "success", "checksum" FROM ${t.history}`,
      );
      const done = new Set<number>();
      for (const row of applied.rows) {
        if (row.version === null) continue;
        const m = WE_MIGRATIONS.find((x) => String(x.version) === row.version);
        if (!row.success)
          throw new Error(`migration ${row.version} of schema ${t.schema} failed earlier (flyway_schema_history.success = false): repair it first`);
        if (m !== undefined && row.checksum !== m.checksum)
          throw new Error(`migration ${row.version} of schema ${t.schema} has checksum ${row.checksum}, WE's is ${m.checksum}`);
        done.add(Number(row.version));
      }
      for (const m of WE_MIGRATIONS) {
        if (done.has(m.version)) continue;
        const started = Date.now();
        await client.query('BEGIN');
        try {
          for (const statement of m.sql(t)) await client.query(statement);
          await client.query(
            `INSERT INTO ${t.history} ("installed_rank", "version", "description", "type", "script", "checksum", "installed_by", "execution_time", "success") VALUES ((SELECT COALESCE(MAX("installed_rank"), 0) + 1 FROM ${t.history}), $1, $2, 'SQL', $3, $4, current_user, $5, true)`,
            [String(m.version), m.description, m.script, m.checksum, Date.now() - started],
          );
          await client.query('COMMIT');
        } catch (e) {
          await client.query('ROLLBACK');
          throw e;
        }
      }
    } finally {
      client.release();
    }
  }

  private async connect(what: string): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (e) {
      throw new StorageFailure(`${what}: ${(e as Error).message}`, { cause: e });
    }
  }

  private async metaRow(key: PolicyItemKey): Promise<MetaRow | undefined> {
    const rows = await run<MetaRow>(this.pool, 'reading item metadata', `SELECT * FROM ${this.t.meta} WHERE "policy_id" = $1 AND "hash" = $2`, [
      key.policyId,
      key.hash,
    ]);
    return rows[0];
  }

  async exists(key: PolicyItemKey): Promise<boolean> {
    return (await this.metaRow(key)) !== undefined;
  }

  async itemType(key: PolicyItemKey): Promise<PrivacyDataType | undefined> {
    const row = await this.metaRow(key);
    return row === undefined ? undefined : row.lo_id === null ? 'default' : 'large';
  }

  async meta(key: PolicyItemKey): Promise<PolicyItemMeta | undefined> {
    const row = await this.metaRow(key);
    return row === undefined ? undefined : metaOf(row);
  }

  async metas(request: ReadonlyMap<string, ReadonlySet<string>>): Promise<PolicyItemMeta[]> {
    const policyIds: string[] = [];
    const hashes: string[] = [];
    for (const [policyId, set] of request) {
      for (const hash of set) {
        policyIds.push(policyId);
        hashes.push(hash);
      }
    }
    if (policyIds.length === 0) return [];
    const rows = await run<MetaRow>(
      this.pool,
      'reading item metadata',
      `SELECT m.* FROM ${this.t.meta} m JOIN unnest($1::varchar[], $2::varchar[]) AS q(p, h) ON m."policy_id" = q.p AND m."hash" = q.h`,
      [policyIds, hashes],
    );
    return rows.map(metaOf);
  }

  async readData(key: PolicyItemKey): Promise<Uint8Array | undefined> {
    const row = await this.metaRow(key);
    if (row === undefined) return undefined;
    if (row.lo_id === null) {
      const rows = await run<{ data: Buffer }>(this.pool, 'reading item data', `SELECT "data" FROM ${this.t.data} WHERE "policy_id" = $1 AND "hash" = $2`, [
        key.policyId,
        key.hash,
      ]);
      return rows[0] === undefined ? undefined : new Uint8Array(rows[0].data);
    }
    const opened = await this.openLargeObject(row.lo_id);
    if (opened === undefined) return undefined;
    const parts: Buffer[] = [];
    for await (const chunk of opened.stream) parts.push(chunk as Buffer);
    return new Uint8Array(Buffer.concat(parts));
  }

  async openData(key: PolicyItemKey): Promise<StoredData | undefined> {
    const row = await this.metaRow(key);
    if (row === undefined) return undefined;
    if (row.lo_id !== null) return this.openLargeObject(row.lo_id);
    const data = await this.readData(key);
    return data === undefined ? undefined : { length: data.length, stream: Readable.from([Buffer.from(data)]) };
  }

  /** A large object's length and its bytes read in `chunkSize` pieces; undefined when it is gone. */
  private async openLargeObject(oid: number | string): Promise<StoredData | undefined> {
    const client = await this.connect('opening a large object');
    let length: number;
    try {
      await client.query('BEGIN');
      const fd = (await client.query<{ fd: number }>('SELECT lo_open($1, $2) AS fd', [oid, INV_READ])).rows[0]!.fd;
      length = Number((await client.query<{ size: string }>('SELECT lo_lseek64($1, 0, 2) AS size', [fd])).rows[0]!.size);
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      // 42704: the large object does not exist.
      if ((e as { code?: string }).code === '42704') return undefined;
      throw databaseFailure('opening a large object', e);
    } finally {
      client.release();
    }
    const pool = this.pool;
    const size = this.chunkSize;
    async function* pieces(): AsyncGenerator<Buffer> {
      for (let offset = 0; offset < length; offset += size) {
        const rows = await run<{ piece: Buffer }>(pool, 'reading a large object', 'SELECT lo_get($1, $2, $3) AS piece', [
          oid,
          offset,
          Math.min(size, length - offset),
        ]);
        yield rows[0]!.piece;
      }
    }
    return { length, stream: Readable.from(pieces()) };
  }

  async save(meta: PolicyItemMeta, type: PrivacyDataType, data: IncomingData): Promise<void> {
    const client = await this.connect('storing an item');
    const what = 'storing an item';
    try {
      await run(client, what, 'BEGIN');
      const digest = new ItemDigest();
      let loId: number | null = null;
      if (type === 'default') {
        const bytes = data instanceof Uint8Array ? data : await collectAll(data);
        digest.update(bytes);
        digest.check(meta.hash);
        await run(client, what, `INSERT INTO ${this.t.data} ("policy_id", "hash", "data") VALUES ($1, $2, $3)`, [
          meta.policyId,
          meta.hash,
          Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
        ]);
      } else {
        loId = (await run<{ oid: number }>(client, what, 'SELECT lo_create(0) AS oid'))[0]!.oid;
        let offset = 0;
        // The incoming stream's own failures (a cut upload, a refused size) pass through as they are.
        for await (const piece of piecesOf(chunksOf(data), this.chunkSize)) {
          digest.update(piece);
          await run(client, what, 'SELECT lo_put($1, $2, $3)', [loId, offset, piece]);
          offset += piece.length;
        }
        digest.check(meta.hash);
      }
      await run(
        client,
        what,
        `INSERT INTO ${this.t.meta} ("policy_id", "hash", "sender", "filename", "size", "timestamp", "author", "comment", "lo_id") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [meta.policyId, meta.hash, meta.sender, meta.filename, meta.size, meta.timestamp.toString(), meta.author, meta.comment, loId],
      );
      await run(client, what, 'COMMIT');
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
  }

  async healthCheck(): Promise<void> {
    await run(this.pool, 'health check', 'SELECT 1', []);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

async function collectAll(source: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const chunk of source) parts.push(chunk);
  return new Uint8Array(Buffer.concat(parts));
}
