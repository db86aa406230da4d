/**
 * Confidential data replicated between the nodes of policy members, on three devnet node
 * processes with the default embedded storage (the suite: privacy-replication-suite.ts):
 * over plain P2P connections (items encrypted with the session keys) with a 100 MB streamed
 * item (the full transfer size in the default suite; about 4 s more than 10 MB here),
 * and over TLS connections (items in clear inside TLS) with a 3 MB one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { embeddedItemFiles, replicationSuite, type ReplicationStorage } from './privacy-replication-suite.js';
import { writeSelfSignedCertificate } from '../../devkit/tls.js';

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
  const files = writeSelfSignedCertificate(certDir, 'weft-devnet');
  if (files === undefined) throw new Error('openssl could not write a certificate');
  return { ...files, caFile: files.certFile };
});
