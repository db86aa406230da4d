/**
 * A real GOST dev node in this process (real chain, real miner, PoA rounds of 1.5 s) whose
 * network trusts a test CA (openssl-gost.ts): the CA's root is the genesis' trusted root and
 * certificate, `node.crypto.pki` as the test asks. Transfers between the dev accounts carry
 * a `certificates` chain when given, the way a PKI client broadcasts them. The PKI tests of
 * REST and of the public gRPC API start their nodes here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { fingerprint, parseCertificate } from '../../src/crypto/pki/x509.js';
import { devAccounts, devNodeConfig, type DevAccount } from '../../src/cli/dev.js';
import type { NodeConfig } from '../../src/node/config.js';
import { Node } from '../../src/node/node.js';
import { stringifyJson } from '../../src/protocol/json.js';
import type { Protocol } from '../../src/protocol/protocol.js';
import { Transfer } from '../../src/protocol/transactions/transfer.js';
import { PKI_OFF, type PkiSettings } from '../../src/pki/settings.js';
import { httpRequest, type Answer } from '../http.js';
import { until } from '../wait.js';
import type { GostTestCa } from './openssl-gost.js';

const CHEAP = { scrypt: { N: 1024, r: 8, p: 1 } };

export interface PkiNode {
  readonly node: Node;
  readonly p: Protocol;
  readonly accounts: DevAccount[];
  request(method: string, path: string, body?: unknown): Promise<Answer>;
  /** A signed transfer of 1000 from `from` to `to`, its REST broadcast body carrying `certificates` when given. */
  transfer(from: DevAccount, to: DevAccount, certificates?: readonly string[]): { id: string; body: string };
  /** Resolves once the transaction is on the chain. */
  mined(id: string): Promise<void>;
  /** Stops the node and removes its directory. */
  stop(): Promise<void>;
}

/** A node trusting `ca` with `pki` (undefined: no `node.crypto.pki` block), GOST unless `crypto` says WAVES. */
export async function startPkiNode(ca: GostTestCa, pki: Partial<PkiSettings> | undefined, crypto: 'gost' | 'waves' = 'gost'): Promise<PkiNode> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-pki-node-'));
  const base = await devNodeConfig({ dataDir: dir, restPort: 0, p2pPort: 0, keystore: CHEAP, crypto });
  const config: NodeConfig = {
    ...base,
    chain: {
      ...base.chain,
      consensus: {
        ...base.chain.consensus,
        type: 'poa',
        roundDurationMs: 1500,
        syncDurationMs: 500,
        banDurationBlocks: 100,
        warningsForBan: 3,
        maxBansPercentage: 40,
      },
    },
    miner: { ...base.miner, microBlockIntervalMs: 200, minMicroBlockAgeMs: 200 },
    api: { ...base.api, ...(pki?.mode === undefined ? {} : { pkiMode: pki.mode }) },
    ...(pki === undefined
      ? {}
      : {
          pki: {
            ...PKI_OFF,
            ...pki,
            genesis: { trustedRootFingerprints: [fingerprint(ca.cert.der)], certificates: [parseCertificate(ca.cert.der)], crls: [], ...pki.genesis },
          },
        }),
  };
  let node: Node;
  try {
    node = await Node.start(config, { logger: pino({ level: 'silent' }) });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const p = node.protocol;
  const request = (method: string, path: string, body?: unknown): Promise<Answer> => httpRequest(node.url!, method, path, body);
  // Distinct timestamps: two equal transfers in one millisecond would be one transaction.
  let nonce = 0;
  return {
    node,
    p,
    accounts: devAccounts(p),
    request,
    transfer(from, to, certificates) {
      const tx = p.sign(
        p.transaction(Transfer, 3, {
          senderPublicKey: from.keyPair.publicKey,
          assetId: null,
          feeAssetId: null,
          timestamp: BigInt(Date.now()) + BigInt(nonce++),
          amount: 1000n,
          fee: 1_000_000n,
          recipient: p.addresses.parseAddress(to.address),
          attachment: new Uint8Array(0),
          atomicBadge: null,
        }),
        from.keyPair.privateKey,
      );
      return { id: tx.idBase58, body: stringifyJson(certificates === undefined ? tx.toJson() : { ...tx.toJson(), certificates: [...certificates] }) };
    },
    mined: async (id) => {
      await until(`${id} mined`, async () => ((await request('GET', `/transactions/info/${id}`)).status === 200 ? true : undefined), 20_000, 100);
    },
    stop: async () => {
      await node.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
