/**
 * Real nodes in this process for the `/consensus` and `/activation` tests, one PoA and one
 * PoS: the dev-chain config (keystore, API key) with a genesis and consensus of our own,
 * `Node.start` with an injected clock, no miner, no listening server —
 * `createApiServer(node.services())` driven with `inject`. Blocks are forged as the miners
 * forge them (forge.ts: planKeyBlock / planPosKeyBlock, Block.sign, appendKeyBlock), with chosen
 * feature votes.
 *
 * Both chains vote with P = 4, N = 3; every implemented feature is pre-activated except
 * Fee Switch (7) and WASM contracts (1140).
 *
 * PoA: dev account 0 (every role) and account 1 (`miner` only) mine; account 1 never forges,
 * so its rounds are skipped and it is warned, then banned (2 warnings for a ban, bans last
 * 4 blocks, at most 50 % of the miners banned).
 */
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { apiClient, type ApiClient } from '../../src/api/client.js';
import { ROUTE_GROUPS } from '../../src/api/routes/index.js';
import { createApiServer } from '../../src/api/server.js';
import { FEATURE } from '../../src/chain/features.js';
import { IMPLEMENTED_FEATURES, type ChainSettings, type ConsensusSettings, type PoaSettings } from '../../src/chain/settings.js';
import { signGenesisBlock, type Block, type GenesisSettings } from '../../src/protocol/blocks.js';
import { Protocol } from '../../src/protocol/protocol.js';
import type { RoleName } from '../../src/protocol/transactions/permissions.js';
import type { Transaction } from '../../src/protocol/transactions/schema.js';
import type { NodeConfig } from '../../src/node/config.js';
import { DEV_API_KEY, DEV_GENESIS_SIGNER_SEED, devAccounts, devGenesisSettings, devNodeConfig, type DevAccount } from '../../src/cli/dev.js';
import { Node } from '../../src/node/node.js';
import { tempDir } from '../../devkit/tmp.js';
import { Forger } from '../../devkit/api/forge.js';

export const WEST = 100_000_000n;
export const START = 1_760_000_000_000n;
export { DEV_API_KEY };
export const FEE_SWITCH = FEATURE.FEE_SWITCH;
export const WASM = FEATURE.WASM_CONTRACTS;

export const POA: PoaSettings = { type: 'poa', roundDurationMs: 4000, syncDurationMs: 1000, banDurationBlocks: 4, warningsForBan: 2, maxBansPercentage: 50 };
export const POS: ConsensusSettings = { type: 'pos', averageBlockDelayMs: 12_000, initialBaseTarget: 153_722_867n };

export interface ConsensusChain {
  readonly node: Node;
  readonly app: FastifyInstance;
  readonly client: ApiClient<typeof ROUTE_GROUPS>;
  readonly protocol: Protocol;
  /** Dev accounts; 0 is the owner and forger, 1 a second miner (PoA) or a plain account (PoS). */
  readonly accounts: readonly DevAccount[];
  readonly clock: { now: bigint };
  /** Forges the owner's next key block (waiting for its slot or delay) with these feature votes. */
  forge(votes?: readonly number[]): Block;
  /** Appends a micro-block of the owner's with these transactions (all must fit). */
  microBlock(txs: Transaction[]): void;
  transfer(from: DevAccount, to: DevAccount, amount: bigint): Transaction;
  close(): Promise<void>;
  /** Resolves when the node stopped on its own (an unimplemented feature became active). */
  readonly stoppedItself: Promise<void>;
}

export interface ConsensusChainOptions {
  /** Pre-activated features besides the implemented ones but 7 and 1140. */
  readonly extraPreActivated?: ReadonlyMap<number, number>;
  readonly autoShutdownOnUnsupportedFeature?: boolean;
}

export async function consensusChain(consensus: ConsensusSettings, options: ConsensusChainOptions = {}): Promise<ConsensusChain> {
  const clock = { now: START };
  const base = await devNodeConfig({
    dataDir: tempDir(`weft-${consensus.type}-`),
    restPort: 0,
    p2pPort: 0,
    now: () => clock.now,
    keystore: { scrypt: { N: 1024, r: 8, p: 1 } },
  });
  const p = await Protocol.create({ crypto: 'waves', chainId: 'T' });
  const accounts = devAccounts(p);
  const devGenesis = devGenesisSettings(p, START, null);
  const secondMiner: RoleName[] = consensus.type === 'poa' ? ['miner'] : [];
  const unsigned: GenesisSettings = {
    ...devGenesis,
    networkParticipants: devGenesis.networkParticipants.map((n, i) => (i === 1 ? { ...n, roles: secondMiner } : n)),
  };
  const genesis = {
    ...unsigned,
    signature: signGenesisBlock(p, unsigned, consensus.type, p.crypto.keyPairFromSeedPhrase(DEV_GENESIS_SIGNER_SEED).privateKey).signature,
  };
  const chainSettings: ChainSettings = {
    ...base.chain,
    consensus,
    genesis,
    functionality: {
      featureCheckBlocksPeriod: 4,
      blocksForFeatureActivation: 3,
      preActivatedFeatures: new Map([
        ...[...IMPLEMENTED_FEATURES.keys()].filter((id) => id !== FEE_SWITCH && id !== WASM).map((id): [number, number] => [id, 0]),
        ...(options.extraPreActivated ?? new Map<number, number>()),
      ]),
    },
  };
  const config: NodeConfig = {
    ...base,
    chain: chainSettings,
    consensusType: consensus.type,
    miner: { ...base.miner, enabled: false },
    api: { ...base.api, enabled: false },
    features: { ...base.features, autoShutdownOnUnsupportedFeature: options.autoShutdownOnUnsupportedFeature ?? true },
  };
  let stopped: () => void = () => {};
  const stoppedItself = new Promise<void>((resolve) => (stopped = resolve));
  const node = await Node.start(config, { now: () => clock.now, logger: pino({ level: 'silent' }), onStopRequested: () => stopped() });
  const app = createApiServer(node.services(), { logger: false });

  const forger = new Forger(node, clock);
  const forge = (votes: readonly number[] = []): Block => forger.keyBlock(votes);
  const microBlock = (txs: Transaction[]): void => forger.microBlock(txs);
  const transfer = (from: DevAccount, to: DevAccount, amount: bigint): Transaction => forger.transfer(from, to, amount);

  return {
    node,
    app,
    client: apiClient(app, ROUTE_GROUPS),
    protocol: p,
    accounts,
    clock,
    forge,
    microBlock,
    transfer,
    close: async () => {
      await app.close();
      await node.stop();
    },
    stoppedItself,
  };
}
