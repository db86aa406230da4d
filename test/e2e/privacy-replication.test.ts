/**
 * Confidential data replicated between the nodes of policy members, on three devnet node
 * processes with the default embedded storage (the suite: privacy-replication-suite.ts);
 * a 10 MB streamed item among the items.
 */
import { embeddedItemFiles, replicationSuite } from './privacy-replication-suite.js';

replicationSuite(
  {
    name: 'embedded',
    start: () => Promise.resolve(),
    section: () => Promise.resolve(undefined),
    stop: () => Promise.resolve(),
    holdsFile: (node, hash) => embeddedItemFiles(node).some((f) => f.includes(hash)),
  },
  10_000_000,
);
