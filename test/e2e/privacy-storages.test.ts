/**
 * The privacy storage suite (privacy-suite.ts) on configured node processes whose
 * `node.privacy.storage` is PostgreSQL (a real throwaway cluster) and S3 (a real s3rver),
 * each started the way an operator starts one (`start --config`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { startPostgres, type PostgresCluster } from '../support/postgres.js';
import { startS3rver, S3RVER_KEY, type S3Server } from '../support/s3.js';
import { prepareConfiguredNode, startConfiguredNode, untilHeight, type ConfiguredNode } from './configured.js';
import { type PrivacyTarget } from '../../devkit/privacy-client.js';
import { privacyNodeSuite } from './privacy-suite.js';

const MB = 1_000_000;
/** The API key whose hash configured.ts writes into node.conf. */
const API_KEY = 'we';
const OWNER_PASSWORD = 'owner secret';

const dirs: string[] = [];
const nodes: ConfiguredNode[] = [];
let cluster: PostgresCluster | undefined;
let s3: S3Server | undefined;

after(async () => {
  for (const n of nodes) n.child.kill('SIGKILL');
  await cluster?.stop();
  await s3?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A configured one-node chain with features 140 and 180 and this privacy storage, serving. */
async function privacyNode(storage: string): Promise<PrivacyTarget> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-e2e-privacy-storage-'));
  dirs.push(dir);
  const { owner, other, conf, restPort } = await prepareConfiguredNode(dir, {
    chainId: 'V',
    consensus: 'type = poa, round-duration = 3s, sync-duration = 1s, ban-duration-blocks = 100, warnings-for-ban = 3, max-bans-percentage = 40',
    preActivatedFeatures: [2, 3, 4, 5, 6, 7, 9, 10, 120, 140, 160, 180, 1122],
    averageBlockDelay: '60s',
    ownerRoles: ['permissioner', 'miner'],
    extraNodeConfig: `privacy { storage { ${storage} } }`,
  });
  const node = startConfiguredNode(conf, restPort, OWNER_PASSWORD);
  nodes.push(node);
  try {
    await untilHeight(node, 2, 'the node to serve and mine block 2', 60_000);
  } catch (e) {
    throw new Error(`${(e as Error).message}\n--- node output ---\n${node.output().slice(-3000)}`, { cause: e });
  }
  return {
    url: node.url,
    apiKey: API_KEY,
    owner: { address: owner.address, password: OWNER_PASSWORD },
    other: { address: other.address, password: OWNER_PASSWORD },
  };
}

describe('confidential data on a node with PostgreSQL storage', { timeout: 300_000 }, () => {
  let target: PrivacyTarget;
  before(async () => {
    cluster = await startPostgres();
    const url = await cluster.createDatabase('weft_privacy');
    target = await privacyNode(
      `vendor = postgres, schema = "public", jdbc-config { url = "${url}", user = "postgres", password = "", connectionTimeout = 5000 }`,
    );
  });
  privacyNodeSuite(() => target, 12 * MB);
});

describe('confidential data on a node with S3 storage', { timeout: 300_000 }, () => {
  let target: PrivacyTarget;
  before(async () => {
    s3 = await startS3rver();
    target = await privacyNode(
      `vendor = s3, url = "${s3.endpoint}", bucket = "weft-privacy", region = "us-east-1", access-key-id = "${S3RVER_KEY}", secret-access-key = "${S3RVER_KEY}", path-style-access-enabled = true`,
    );
  });
  privacyNodeSuite(() => target, 12 * MB);
});
