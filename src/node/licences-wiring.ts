/**
 * The licences of one node: `<data-directory>/licenses.json`, the issuers of
 * `node.licenses.issuers`, the status checked after every block, and
 * `node.licenses.on-expiry` carried out (report / stop-mining / stop-node).
 *
 * Dev chains and devnets are licensed from the start: their configs list the dev licence
 * issuer (seed `DEV_LICENCE_ISSUER_SEED`) and their data directories get a licence for their
 * owner with no end date (`writeDevLicence`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Blockchain } from '../chain/blockchain.js';
import type { CryptoSuite } from '../crypto/suite.js';
import { LicenceService, type LicenceSettings, type LicenceStorage } from '../licences/licence-service.js';
import { licenceJson, signLicence, type LicenceTerms } from '../licences/licence.js';
import type { NodeConfig } from './config.js';
import { writeFileAtomic } from '../keystore/keystore.js';

export const DEV_LICENCE_ISSUER_SEED = 'weft dev licence issuer - never use this seed on a real network';

/** The licence document of a node's data directory. */
export function licenceFileStorage(dataDirectory: string): LicenceStorage & { readonly file: string } {
  const file = join(dataDirectory, 'licenses.json');
  return { file, read: () => (existsSync(file) ? readFileSync(file, 'utf8') : undefined), write: (text) => writeFileAtomic(file, text) };
}

/** The dev licence settings: the dev issuer, `report`. */
export function devLicenceSettings(suite: CryptoSuite): LicenceSettings {
  return { issuers: [suite.keyPairFromSeedPhrase(DEV_LICENCE_ISSUER_SEED).publicKey], onExpiry: 'report' };
}

/** Gives a dev data directory a licence for its owner, valid from `since` with no end date, unless it has licences. */
export function writeDevLicence(suite: CryptoSuite, dataDirectory: string, ownerAddress: string, since: bigint): void {
  const storage = licenceFileStorage(dataDirectory);
  if (storage.read() !== undefined) return;
  const issuer = suite.keyPairFromSeedPhrase(DEV_LICENCE_ISSUER_SEED);
  const terms: LicenceTerms = {
    version: 1,
    id: `weft-dev-${ownerAddress}`,
    issuedAt: new Date(Number(since)).toISOString(),
    nodeOwnerAddress: ownerAddress,
    validAfter: new Date(Number(since)).toISOString().slice(0, 10),
    validBefore: null,
    features: ['all_inclusive'],
  };
  storage.write(`${JSON.stringify({ licenses: [licenceJson(suite, signLicence(suite, terms, issuer.privateKey))] }, null, 2)}\n`);
}

export interface NodeLicenceParts {
  readonly config: NodeConfig;
  readonly suite: CryptoSuite;
  readonly chain: Blockchain;
  readonly now: () => bigint;
  readonly log: Logger;
  /** Mining on/off for `stop-mining` (absent when the node does not mine). */
  readonly mining: { start(): void; stop(): void } | undefined;
  /** Stops the node, for `stop-node`. */
  readonly stopNode: () => void;
}

/** The service over a licence file; a file that cannot be read stops the start with its path and reason. */
function readableLicences(file: string, open: () => LicenceService): LicenceService {
  try {
    return open();
  } catch (e) {
    throw new Error(`${file}: ${e instanceof Error ? e.message : String(e)} (fix or remove the file; licences are uploaded again with POST /licenses/upload)`, {
      cause: e,
    });
  }
}

export function startNodeLicences(parts: NodeLicenceParts): LicenceService {
  const { config, chain, log } = parts;
  const settings = config.licences ?? { issuers: [], onExpiry: 'report' };
  const storage = licenceFileStorage(config.node.dataDirectory);
  const service = readableLicences(
    storage.file,
    () =>
      new LicenceService({
        suite: parts.suite,
        settings,
        nodeOwnerAddress: config.node.ownerAddress.toString(),
        storage,
        height: () => chain.height(),
        now: parts.now,
        onLicensedChange: (licensed, status) => {
          if (licensed) {
            log.info({ status: status.status }, status.description);
            if (settings.onExpiry === 'stop-mining') parts.mining?.start();
            return;
          }
          log.warn({ status: status.status, onExpiry: settings.onExpiry }, `the node is not licensed: ${status.description}`);
          if (settings.onExpiry === 'stop-mining') parts.mining?.stop();
          if (settings.onExpiry === 'stop-node') setImmediate(parts.stopNode);
        },
      }),
  );
  chain.on((event) => {
    if (event.kind === 'block') service.check();
  });
  return service;
}
