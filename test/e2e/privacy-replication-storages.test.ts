/**
 * The replication suite (privacy-replication-suite.ts) on devnet nodes whose
 * `node.privacy.storage` is PostgreSQL (one database per node in a real throwaway cluster)
 * and S3 (one bucket per node on a real s3rver on loopback). The streamed item is 6 MB:
 * more than one 5 MiB S3 part.
 */
import { startPostgres, type PostgresCluster } from '../support/postgres.js';
import { startS3rver, S3RVER_KEY, type S3Server } from '../support/s3.js';
import { replicationSuite } from './privacy-replication-suite.js';

const LARGE = 6_000_000;

let cluster: PostgresCluster | undefined;
replicationSuite(
  {
    name: 'PostgreSQL',
    start: async () => {
      cluster = await startPostgres();
    },
    section: async (node) => ({
      vendor: 'postgres',
      schema: 'public',
      'jdbc-config': { url: await cluster!.createDatabase(`weft_replication_${node}`), user: 'postgres', password: '', connectionTimeout: 5000 },
    }),
    stop: async () => {
      await cluster?.stop();
    },
    breakStore: async () => {
      await cluster?.stop();
    },
  },
  LARGE,
);

let s3: S3Server | undefined;
replicationSuite(
  {
    name: 'S3',
    start: async () => {
      s3 = await startS3rver();
    },
    section: (node) =>
      Promise.resolve({
        vendor: 's3',
        url: s3!.endpoint,
        bucket: `weft-replication-${node}`,
        region: 'us-east-1',
        'access-key-id': S3RVER_KEY,
        'secret-access-key': S3RVER_KEY,
        'path-style-access-enabled': true,
      }),
    stop: async () => {
      await s3?.stop();
    },
    breakStore: async () => {
      await s3?.stop();
    },
  },
  LARGE,
);
