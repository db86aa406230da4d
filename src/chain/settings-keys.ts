/**
 * The chain's key tables: `node.crypto.type`, `node.blockchain` (a CUSTOM chain with a plain
 * genesis) and `node.additional-cache` (rooted at `node`), and `node.utx`.
 *
 * The chain table reads the keys as the file lays them out (the consensus section without the
 * genesis' block delay, the genesis with it); chainSettings() then makes ChainSettings of
 * them, checking what spans both and, for a node, the genesis signature.
 */
import { encodeBase58 } from '../crypto/encoding.js';
import type { CryptoType } from '../crypto/suite.js';
import {
  boolKey,
  checkedKey,
  choiceKey,
  customKey,
  durationKey,
  durationText,
  intKey,
  keyTable,
  nestedKey,
  optionalKey,
  positiveDurationKey,
  sizeKey,
  variantTable,
  type HoconObject,
  type KeyTable,
} from '../config/key-table.js';
import { isObject, type ConfigSection, type RawObject } from '../config/section.js';
import { describeValue, fail, ConfigError, parseInt32 } from '../config/values.js';
import { WeError } from '../errors/catalogue.js';
import { genesisBlock, genesisSettingsFromConfig, parseWestAmount, type ConsensusType, type GenesisSettings } from '../protocol/blocks.js';
import type { Protocol } from '../protocol/protocol.js';
import {
  DEFAULT_FEES,
  DEFAULT_MAX_ROLLBACK_DEPTH,
  FEE_NAMES,
  UTX_DEFAULTS,
  type CftSettings,
  type ChainSettings,
  type FeeSettings,
  type FunctionalitySettings,
  type NodeUtxSettings,
  type PoaSettings,
} from './settings.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** `node.blockchain.consensus` as the file has it: PoA's or CFT's keys, or PoS's type alone (its block delay sits in the genesis). */
export type ConsensusKeys = PoaSettings | CftSettings | { readonly type: 'pos' };

/** `node.blockchain.custom.genesis`: the genesis settings and `average-block-delay` (WE requires it whatever the consensus; PoS runs on it). */
export interface GenesisKeys {
  readonly settings: GenesisSettings;
  readonly averageBlockDelayMs: number | undefined;
}

/** The chain's keys as the file lays them out. */
export interface ChainKeys {
  readonly crypto: CryptoType;
  readonly blockchainType: 'CUSTOM';
  readonly consensus: ConsensusKeys;
  readonly chainId: string;
  readonly functionality: FunctionalitySettings;
  readonly genesis: GenesisKeys;
  readonly fees: FeeSettings;
  readonly maxRollbackDepth: number;
}

/** What the genesis is read with: the network's protocol (its addresses and keys). */
export interface ChainReadContext {
  readonly protocol: Protocol;
}

/** A WEST amount in units: an integer of units, or "<decimal> WEST" (WE's WestAmount). */
export function parseAmount(v: unknown, path: string): bigint {
  try {
    return parseWestAmount(v, path);
  } catch (e) {
    if (e instanceof WeError) return fail(path, e.message);
    throw e;
  }
}

/** `node.crypto.type`; WAVES allows only `crypto.pki.mode = OFF`. */
export const CRYPTO_TYPE_KEY = customKey<CryptoType>(
  'crypto.type',
  (node) => {
    const type = node.choice('crypto.type', ['WAVES', 'GOST'] as const, 'WAVES');
    const pkiMode = node.choice('crypto.pki.mode', ['OFF', 'ON', 'TEST'] as const, 'OFF');
    if (type === 'WAVES' && pkiMode !== 'OFF')
      fail(node.at('crypto.pki.mode'), "Usage of 'node.crypto.pki = ON | TEST' is forbidden for 'node.crypto.type = Waves'");
    return type === 'WAVES' ? 'waves' : 'gost';
  },
  (crypto) => (crypto === 'gost' ? 'GOST' : 'WAVES'),
);

/** `node.blockchain.custom.address-scheme-character`: the chain id, one ASCII character. */
export const CHAIN_ID_KEY = customKey<string>(
  'blockchain.custom.address-scheme-character',
  (node) => {
    const key = 'blockchain.custom.address-scheme-character';
    const id = node.string(key);
    if (id.length !== 1 || id.charCodeAt(0) > 127) fail(node.at(key), `expected one ASCII character, got ${describeValue(id)}`);
    return id;
  },
  (id) => id,
);

/** PoA's round and ban keys, shared by CFT (WE's PoASettings and CftSettings name them alike). */
const ROUND_KEYS = {
  roundDurationMs: positiveDurationKey('round-duration'),
  syncDurationMs: durationKey('sync-duration'),
  banDurationBlocks: intKey('ban-duration-blocks', undefined, { min: 0 }),
  warningsForBan: intKey('warnings-for-ban', undefined, { min: 0 }),
} as const;

/**
 * WE's CftSettings: PoA's keys (its `max-bans-percentage` unchecked, as WE leaves it) and
 * the voting keys, with WE's two requirements checked in WE's order.
 */
const CFT_TABLE = keyTable<CftSettings>(
  {
    type: choiceKey('type', ['cft']),
    ...ROUND_KEYS,
    maxBansPercentage: intKey('max-bans-percentage'),
    maxValidators: intKey('max-validators', undefined, { min: 1 }),
    fullVoteSetTimeoutMs: optionalKey(durationKey('full-vote-set-timeout')),
    finalizationTimeoutMs: durationKey('finalization-timeout'),
  },
  {
    finish: (cft, section) => {
      const { fullVoteSetTimeoutMs: full, finalizationTimeoutMs: finalization, syncDurationMs: sync, roundDurationMs: round } = cft;
      if (full !== undefined && full > finalization + sync) {
        fail(
          section.at('full-vote-set-timeout'),
          `The full-vote-set-timeout should not exceed the finalization-timeout + sync-duration (${durationText(full)} > ${durationText(finalization)} + ${durationText(sync)})`,
        );
      }
      if (finalization >= round) {
        fail(
          section.at('finalization-timeout'),
          `The finalization-timeout must be less than the round-duration (${durationText(finalization)} ≥ ${durationText(round)})`,
        );
      }
      return cft;
    },
  },
);

const CONSENSUS = variantTable<ConsensusKeys, 'poa' | 'pos' | 'cft'>(
  'type',
  {
    poa: keyTable<PoaSettings>({
      type: choiceKey('type', ['poa']),
      ...ROUND_KEYS,
      maxBansPercentage: intKey('max-bans-percentage', undefined, { min: 0, max: 100 }),
    }),
    pos: keyTable<{ type: 'pos' }>({ type: choiceKey('type', ['pos'], 'pos') }),
    cft: CFT_TABLE,
  },
  (consensus) => consensus.type,
  'pos',
);

/** Re-attributes a protocol error about a genesis field to its full config path. */
function genesisError(genesis: ConfigSection, e: unknown): never {
  if (e instanceof WeError) throw new ConfigError(e.field === undefined ? genesis.path : genesis.at(e.field), e.message);
  throw e;
}

const GENESIS = customKey<GenesisKeys, ChainReadContext>(
  'blockchain.custom.genesis',
  (node, { protocol }) => {
    const genesis = node.section('blockchain.custom.genesis');
    const raw: RawObject = { ...genesis.raw };
    if (genesis.has('sender-role-enabled')) raw['sender-role-enabled'] = genesis.bool('sender-role-enabled');
    let settings: GenesisSettings;
    try {
      settings = genesisSettingsFromConfig(protocol, raw);
    } catch (e) {
      return genesisError(genesis, e);
    }
    return { settings, averageBlockDelayMs: genesis.duration('average-block-delay') };
  },
  ({ settings: g, averageBlockDelayMs }): HoconObject => ({
    type: 'plain',
    version: g.version,
    'block-timestamp': g.blockTimestamp,
    'initial-balance': g.initialBalance,
    'initial-base-target': g.initialBaseTarget,
    ...(averageBlockDelayMs === undefined ? {} : { 'average-block-delay': durationText(averageBlockDelayMs) }),
    'genesis-public-key-base-58': g.genesisPublicKey === null ? '' : encodeBase58(g.genesisPublicKey),
    signature: g.signature === null ? '' : encodeBase58(g.signature),
    'sender-role-enabled': g.senderRoleEnabled,
    transactions: g.transactions.map((t) => ({ recipient: t.recipient.toString(), amount: t.amount })),
    'network-participants': g.networkParticipants.map((p) => ({ 'public-key': encodeBase58(p.publicKey), roles: [...p.roles] })),
  }),
);

const FUNCTIONALITY = customKey<FunctionalitySettings>(
  'blockchain.custom.functionality',
  (node) => {
    const f = node.section('blockchain.custom.functionality');
    const period = f.int('feature-check-blocks-period');
    if (period <= 1) fail(f.at('feature-check-blocks-period'), `must be greater than 1, got ${period}`);
    const blocksForFeatureActivation = f.int('blocks-for-feature-activation');
    if (blocksForFeatureActivation < 1 || blocksForFeatureActivation > period) {
      fail(f.at('blocks-for-feature-activation'), `must be in range 1 to ${period}, got ${blocksForFeatureActivation}`);
    }
    const preActivatedFeatures = new Map<number, number>();
    const raw = f.get('pre-activated-features');
    if (raw !== undefined && raw !== '') {
      if (!isObject(raw)) fail(f.at('pre-activated-features'), `expected an object { <feature id> = <height> }, got ${describeValue(raw)}`);
      const features = f.section('pre-activated-features');
      for (const key of Object.keys(features.raw)) {
        const id = parseInt32(key, features.at(key), { min: -32768, max: 32767 });
        preActivatedFeatures.set(id, features.int(key, undefined, { min: 0 }));
      }
    }
    return { featureCheckBlocksPeriod: period, blocksForFeatureActivation, preActivatedFeatures };
  },
  (f) => {
    const preActivated: HoconObject = {};
    for (const [id, height] of [...f.preActivatedFeatures].sort(([a], [b]) => a - b)) preActivated[String(id)] = height;
    return {
      'feature-check-blocks-period': f.featureCheckBlocksPeriod,
      'blocks-for-feature-activation': f.blocksForFeatureActivation,
      'pre-activated-features': preActivated,
    };
  },
);

const FEE_TYPE_BY_NAME = new Map([...FEE_NAMES].map(([type, name]) => [name, type]));

function readFeeMap(section: ConfigSection, defaults: ReadonlyMap<number, bigint>): Map<number, bigint> {
  const out = new Map(defaults);
  for (const name of Object.keys(section.raw)) {
    const type = FEE_TYPE_BY_NAME.get(name);
    if (type === undefined) fail(section.at(name), `unknown transaction type name '${name}' (known: ${[...FEE_TYPE_BY_NAME.keys()].join(', ')})`);
    out.set(type, section.value(name, parseAmount));
  }
  return out;
}

function renderFeeMap(fees: ReadonlyMap<number, bigint>): HoconObject {
  const out: HoconObject = {};
  for (const [type, amount] of [...fees].sort(([a], [b]) => a - b)) out[FEE_NAMES.get(type) ?? String(type)] = amount;
  return out;
}

const FEES = customKey<FeeSettings>(
  'blockchain.fees',
  (node) => {
    const fees = node.section('blockchain.fees');
    const enabled = fees.bool('enabled', true);
    const base = readFeeMap(fees.section('base'), DEFAULT_FEES.base);
    const additional = readFeeMap(fees.section('additional'), DEFAULT_FEES.additional);
    // WE's FeesDisabled charges nothing: the maps are empty, every minimal fee is 0.
    return enabled ? { enabled, base, additional } : { enabled, base: new Map(), additional: new Map() };
  },
  (fees) => ({ enabled: fees.enabled, base: renderFeeMap(fees.base), additional: renderFeeMap(fees.additional) }),
);

/** The chain's keys, rooted at `node`. */
export const CHAIN_TABLE: KeyTable<ChainKeys, ChainReadContext> = keyTable<ChainKeys, ChainReadContext>({
  crypto: CRYPTO_TYPE_KEY,
  blockchainType: customKey<'CUSTOM'>(
    'blockchain.type',
    (node) => {
      const type = node.choice('blockchain.type', ['CUSTOM', 'DEFAULT', 'MAINNET'] as const, 'DEFAULT');
      if (type !== 'CUSTOM')
        fail(
          node.at('blockchain.type'),
          `only CUSTOM blockchains are supported (set node.blockchain.type = CUSTOM and a node.blockchain.custom section), got ${type}`,
        );
      return type;
    },
    (type) => type,
  ),
  consensus: nestedKey('blockchain.consensus', CONSENSUS),
  chainId: CHAIN_ID_KEY,
  functionality: FUNCTIONALITY,
  genesis: GENESIS,
  fees: FEES,
  maxRollbackDepth: intKey('additional-cache.rocksdb.max-rollback-depth', DEFAULT_MAX_ROLLBACK_DEPTH, { min: 1 }),
});

export interface ChainReadOptions {
  /**
   * Require `genesis-public-key-base-58` and `signature` and verify the genesis block
   * (true for a node; false for the genesis generator, which fills them in).
   */
  readonly requireSignedGenesis: boolean;
}

/** ChainSettings of the chain's keys: PoS runs on the genesis' block delay (positive); a node's genesis must be signed and verify. */
export function chainSettings(
  keys: ChainKeys,
  node: ConfigSection,
  protocol: Protocol,
  options: ChainReadOptions,
): { chain: ChainSettings; consensusType: ConsensusType } {
  const genesisPath = 'blockchain.custom.genesis';
  const { settings: genesis, averageBlockDelayMs } = keys.genesis;
  let consensus: ChainSettings['consensus'];
  if (keys.consensus.type === 'pos') {
    if (averageBlockDelayMs === undefined || averageBlockDelayMs <= 0) fail(node.at(`${genesisPath}.average-block-delay`), 'must be positive for PoS');
    consensus = { type: 'pos', averageBlockDelayMs, initialBaseTarget: genesis.initialBaseTarget };
  } else consensus = keys.consensus;
  if (options.requireSignedGenesis) {
    const unsigned = 'the genesis block is not signed yet: run "generate genesis --config FILE" first';
    if (genesis.genesisPublicKey === null || genesis.genesisPublicKey.length === 0) fail(node.at(`${genesisPath}.genesis-public-key-base-58`), unsigned);
    if (genesis.signature === null || genesis.signature.length === 0) fail(node.at(`${genesisPath}.signature`), unsigned);
    try {
      genesisBlock(protocol, genesis, consensus.type);
    } catch (e) {
      genesisError(node.section(genesisPath), e);
    }
  }
  const { crypto, chainId, functionality, fees, maxRollbackDepth } = keys;
  return { chain: { crypto, chainId, consensus, genesis, fees, functionality, maxRollbackDepth }, consensusType: consensus.type };
}

/** The chain's keys of ChainSettings, for rendering: the genesis carries the block delay under PoS. */
export function chainKeys(chain: ChainSettings): ChainKeys {
  const { crypto, chainId, consensus, genesis, fees, functionality, maxRollbackDepth } = chain;
  return {
    crypto,
    blockchainType: 'CUSTOM',
    consensus: consensus.type === 'pos' ? { type: 'pos' } : consensus,
    chainId,
    functionality,
    genesis: { settings: genesis, averageBlockDelayMs: consensus.type === 'pos' ? consensus.averageBlockDelayMs : undefined },
    fees,
    maxRollbackDepth,
  };
}

/** `node.utx`. */
export const UTX_TABLE: KeyTable<NodeUtxSettings> = keyTable<NodeUtxSettings>({
  memoryLimitBytes: sizeKey('memory-limit', UTX_DEFAULTS.memoryLimitBytes),
  cleanupIntervalMs: durationKey('cleanup-interval', UTX_DEFAULTS.cleanupIntervalMs),
  allowTransactionsFromSmartAccounts: boolKey('allow-transactions-from-smart-accounts', UTX_DEFAULTS.allowTransactionsFromSmartAccounts),
  txExpireTimeoutMs: checkedKey(durationKey('tx-expire-timeout', UTX_DEFAULTS.txExpireTimeoutMs), (ms, path) => {
    if (ms < 5 * MINUTE || ms > 96 * HOUR) fail(path, `should be between 5 minutes and 96 hours, got ${ms}ms`);
  }),
  rebroadcastThresholdMs: durationKey('rebroadcast-threshold', UTX_DEFAULTS.rebroadcastThresholdMs),
  rebroadcastIntervalMs: durationKey('rebroadcast-interval', UTX_DEFAULTS.rebroadcastIntervalMs),
});
