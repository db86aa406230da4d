/**
 * Confidential data replicated between the nodes of policy members, on three devnet node
 * processes with the default embedded storage (the suite: privacy-replication-suite.ts):
 * over plain P2P connections (items encrypted with the session keys) with a 100 MB streamed
 * item (the full transfer size in the default suite; about 4 s more than 10 MB here),
 * and over TLS connections (items in clear inside TLS) with a 3 MB one.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { embeddedItemFiles, replicationSuite, type ReplicationStorage } from './privacy-replication-suite.js';

const embedded: ReplicationStorage = {
  name: 'embedded',
  start: () => Promise.resolve(),
  section: () => Promise.resolve(undefined),
  stop: () => Promise.resolve(),
  holdsFile: (node, hash) => embeddedItemFiles(node).some((f) => f.includes(hash)),
  breakStore: (node) => rm(join(node.spec.dir, 'data', 'privacy', 'large'), { recursive: true, force: true }),
};

replicationSuite(embedded, 100_000_000);

const certDir = mkdtempSync(join(tmpdir(), 'weft-privacy-tls-'));
after(() => rmSync(certDir, { recursive: true, force: true }));
replicationSuite(embedded, 3_000_000, () => {
  const keyFile = join(certDir, 'key.pem');
  const certFile = join(certDir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=weft-devnet',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  return { keyFile, certFile, caFile: certFile };
});
