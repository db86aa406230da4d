/**
 * The genesis block of a plain genesis (we-node Block.genesis, Block.genesisTransactions,
 * settings/BlockchainSettings.PlainGenesisSettings, generator/GenesisBlockGeneratorBase).
 *
 * Transactions, in order: one Genesis (1) per `transactions` entry at the block
 * timestamp; then per network participant a GenesisRegisterNode (110) at the block
 * timestamp followed by one GenesisPermit (101) per role, timestamped block timestamp
 * − 1, − 2, … with one counter across all participants. Settings version 1 gives a v1
 * block, version 2 a v4 block carrying `senderRoleEnabled`. Reference: 64 × 0xFF; no
 * feature votes; consensus PoS {initial base target, 32 zero bytes}, PoA {0}, CFT {no votes, 0}.
 */
import type { Address } from '../../crypto/address.js';
import { decodeBase58, encodeBase58, EncodingError } from '../../crypto/encoding.js';
import { INT64 } from '../bytes.js';
import type { Protocol } from '../protocol.js';
import { genesisPermitTransaction, genesisRegisterNodeTransaction, genesisTransaction } from '../transactions/genesis.js';
import { roleFromName, type RoleName } from '../transactions/permissions.js';
import type { Transaction } from '../transactions/schema.js';
import { Block, LEGACY_GENESIS_BLOCK_VERSION, MODERN_GENESIS_BLOCK_VERSION, type UnsignedBlock } from './block.js';
import { GENERATION_SIGNATURE_LENGTH, type ConsensusData } from './consensus.js';
import { genericError } from '../../errors/catalogue.js';

export type ConsensusType = 'pos' | 'poa' | 'cft';

/** GenesisSettings.minTimestamp: the Mainnet start date. */
export const GENESIS_MIN_TIMESTAMP = 1559260800000n;
export const UNITS_IN_WEST = 100_000_000n;
/** WestAmount: at most 10 billion WEST. */
export const MAX_WEST_AMOUNT = 10_000_000_000n * UNITS_IN_WEST;

export interface GenesisTransferSettings {
  readonly recipient: Address;
  readonly amount: bigint;
}

export interface GenesisParticipant {
  readonly publicKey: Uint8Array;
  readonly roles: readonly RoleName[];
}

/** `node.blockchain.custom.genesis` of a plain genesis, typed. */
export interface GenesisSettings {
  readonly version: 1 | 2;
  readonly blockTimestamp: bigint;
  readonly initialBalance: bigint;
  readonly initialBaseTarget: bigint;
  /** `genesis-public-key-base-58`; null when the block is still to be signed. */
  readonly genesisPublicKey: Uint8Array | null;
  /** `signature`; null when the block is still to be signed. */
  readonly signature: Uint8Array | null;
  readonly transactions: readonly GenesisTransferSettings[];
  readonly networkParticipants: readonly GenesisParticipant[];
  readonly senderRoleEnabled: boolean;
}

/** The `require`s of PlainGenesisSettings (checked by WE when the config is read). */
export function checkGenesisSettings(s: GenesisSettings): void {
  if (s.blockTimestamp < GENESIS_MIN_TIMESTAMP) {
    throw genericError(`Genesis block timestamp '${s.blockTimestamp}' should be no less than '${GENESIS_MIN_TIMESTAMP}'`, 'block-timestamp');
  }
  if (s.senderRoleEnabled && s.version !== 2) throw genericError('Sender role is only supported in genesis version 2', 'sender-role-enabled');
}

/** The extra checks of the GenesisBlockGenerator tool (not applied by the node at start-up). */
export function checkGeneratorSettings(s: GenesisSettings): void {
  const errors: string[] = [];
  const counts = new Map<string, number>();
  for (const participant of s.networkParticipants) {
    const key = encodeBase58(participant.publicKey);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const duplicated = [...counts].filter(([, n]) => n > 1).map(([key]) => key);
  if (duplicated.length > 0) errors.push(`The following network participants are duplicated: '[${duplicated.join(',')}]'`);
  if (!s.networkParticipants.some((x) => x.roles.includes('permissioner'))) {
    errors.push("At least one network participant must have the 'permissioner' role");
  }
  if (s.senderRoleEnabled) {
    if (s.version < 2) errors.push("'sender-role-enabled' config param can't be used with Genesis version below '2'");
    if (s.networkParticipants.some((x) => x.roles.length > 0 && !x.roles.includes('sender'))) {
      errors.push("Role 'sender' is required for every network participant which has any additional role");
    }
  }
  const sum = s.transactions.reduce((acc, t) => acc + t.amount, 0n);
  if (sum !== s.initialBalance) errors.push("The value of 'initial-balance' has to be equal to the sum of transactions amounts");
  if (errors.length > 0) throw genericError(`[${errors.join(',')}]`);
}

/** Block.genesisTransactions. */
export function genesisTransactions(p: Protocol, s: GenesisSettings): Transaction[] {
  const ts = s.blockTimestamp;
  const txs: Transaction[] = s.transactions.map((t) => genesisTransaction(p, t.recipient, t.amount, ts));
  let offset = 0n;
  for (const participant of s.networkParticipants) {
    txs.push(genesisRegisterNodeTransaction(p, participant.publicKey, ts));
    const target = p.addresses.fromPublicKey(participant.publicKey);
    for (const role of participant.roles) {
      offset += 1n;
      txs.push(genesisPermitTransaction(p, target, role, ts - offset));
    }
  }
  return txs;
}

/** Consensus data of a genesis block: the consensus type is baked into its signature. */
export function genesisConsensus(type: ConsensusType, initialBaseTarget: bigint): ConsensusData {
  switch (type) {
    case 'pos':
      return { type: 'pos', baseTarget: initialBaseTarget, generationSignature: new Uint8Array(GENERATION_SIGNATURE_LENGTH) };
    case 'poa':
      return { type: 'poa', overallSkippedRounds: 0n };
    case 'cft':
      return { type: 'cft', votes: [], overallSkippedRounds: 0n };
  }
}

/** 64 × 0xFF. */
export function genesisReference(): Uint8Array {
  return new Uint8Array(64).fill(0xff);
}

/** Everything of the genesis block but its generator and signature. */
export function unsignedGenesisBlock(p: Protocol, s: GenesisSettings, consensusType: ConsensusType): Omit<UnsignedBlock, 'generator'> {
  checkGenesisSettings(s);
  const modern = s.version === 2;
  return {
    version: modern ? MODERN_GENESIS_BLOCK_VERSION : LEGACY_GENESIS_BLOCK_VERSION,
    timestamp: s.blockTimestamp,
    reference: genesisReference(),
    consensus: genesisConsensus(consensusType, s.initialBaseTarget),
    transactions: genesisTransactions(p, s),
    featureVotes: [],
    genesisData: modern ? { senderRoleEnabled: s.senderRoleEnabled } : null,
  };
}

/**
 * Block.genesis: rebuilds the genesis block from the settings with the configured public
 * key and signature, and fails unless the signature verifies.
 */
export function genesisBlock(p: Protocol, s: GenesisSettings, consensusType: ConsensusType): Block {
  if (s.genesisPublicKey === null) throw genericError('Genesis public key is not set', 'genesis-public-key-base-58');
  if (s.signature === null) throw genericError('Genesis signature is not set', 'signature');
  const block = Block.build(p, { ...unsignedGenesisBlock(p, s, consensusType), generator: s.genesisPublicKey }, s.signature);
  if (!block.hasValidSignature()) throw genericError('Passed genesis signature is not valid', 'signature');
  return block;
}

/** What the GenesisBlockGenerator does with its fresh key: signs the genesis block. */
export function signGenesisBlock(p: Protocol, s: GenesisSettings, consensusType: ConsensusType, privateKey: Uint8Array): Block {
  return Block.sign(p, unsignedGenesisBlock(p, s, consensusType), privateKey);
}

// ---------------------------------------------------------------------------
// Reading the settings from a parsed config object (HOCON keys)

function configLong(v: unknown, path: string): bigint {
  if (typeof v === 'bigint') {
    if (v < INT64.MIN || v > INT64.MAX) throw genericError(`'${path}' does not fit a long`, path);
    return v;
  }
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^-?\d{1,19}$/.test(v.trim())) return configLong(BigInt(v.trim()), path);
  throw genericError(`'${path}' must be an integer`, path);
}

/**
 * WestAmount.fromString: an integer of units, or a decimal followed by ` WEST`
 * (at most 8 decimals); never negative, at most 10 billion WEST.
 */
export function parseWestAmount(v: unknown, path: string): bigint {
  let units: bigint;
  if (typeof v === 'bigint' || typeof v === 'number') {
    if (typeof v === 'number' && !Number.isSafeInteger(v)) throw genericError(`Failed to parse '${v}' as WEST Amount`, path);
    units = BigInt(v);
  } else if (typeof v === 'string') {
    const parts = v.trim().split(' ');
    const decimal = /^(\d+)(?:\.(\d+))?$/;
    if (parts.length === 2 && parts[1] === 'WEST' && decimal.test(parts[0]!)) {
      const [, whole, fraction = ''] = decimal.exec(parts[0]!)!;
      const trimmed = fraction.replace(/0+$/, '');
      if (trimmed.length > 8) throw genericError('Only 8 decimal units are allowed in WEST', path);
      units = BigInt(whole!) * UNITS_IN_WEST + BigInt(trimmed.padEnd(8, '0'));
    } else if (parts.length === 1 && /^\d+$/.test(parts[0]!)) {
      units = BigInt(parts[0]!);
    } else {
      throw genericError(`Failed to parse '${v}' as WEST Amount`, path);
    }
  } else {
    throw genericError(`Failed to parse '${String(v)}' as WEST Amount`, path);
  }
  if (units < 0n) throw genericError('WEST amount should be positive', path);
  if (units > MAX_WEST_AMOUNT) throw genericError('WEST amounts greater than 10 billion are not allowed', path);
  return units;
}

function describe(v: unknown): string {
  switch (typeof v) {
    case 'string':
    case 'number':
    case 'bigint':
    case 'boolean':
      return String(v);
    case 'undefined':
      return 'undefined';
    default:
      return v === null ? 'null' : Array.isArray(v) ? 'a list' : 'an object';
  }
}

function configBase58(v: unknown, path: string): Uint8Array {
  if (typeof v !== 'string') throw genericError(`'${path}' must be a Base58 string`, path);
  try {
    return decodeBase58(v);
  } catch (e) {
    throw genericError(`'${path}': unable to decode base58: ${(e as EncodingError).message}`, path);
  }
}

function configList(v: unknown, path: string): unknown[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw genericError(`'${path}' must be a list`, path);
  return v;
}

function configObject(v: unknown, path: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw genericError(`'${path}' must be an object`, path);
  return v as Record<string, unknown>;
}

/**
 * Plain genesis settings from the parsed `node.blockchain.custom.genesis` object (keys as in
 * the HOCON config: `block-timestamp`, `genesis-public-key-base-58`, `network-participants`…).
 */
export function genesisSettingsFromConfig(p: Protocol, config: unknown): GenesisSettings {
  const c = configObject(config, 'genesis');
  const type = c['type'];
  if (type !== undefined && (typeof type !== 'string' || type.toLowerCase() !== 'plain')) {
    throw genericError(`Unsupported genesis type '${describe(type)}': only plain genesis settings build a genesis block`, 'type');
  }
  const versionRaw = c['version'] ?? 1;
  if (versionRaw !== 1 && versionRaw !== 2 && versionRaw !== '1' && versionRaw !== '2') {
    throw genericError(`Unknown genesis version '${describe(versionRaw)}', expected 1 or 2`, 'version');
  }
  const senderRoleEnabled = c['sender-role-enabled'] ?? false;
  if (typeof senderRoleEnabled !== 'boolean') throw genericError("'sender-role-enabled' must be a boolean", 'sender-role-enabled');
  const transactions = configList(c['transactions'], 'transactions').map((item, i) => {
    const path = `transactions(${i})`;
    const t = configObject(item, path);
    const recipient = t['recipient'];
    if (typeof recipient !== 'string') throw genericError(`'${path}.recipient' must be an address`, `${path}.recipient`);
    return {
      recipient: p.addresses.parseAddress(recipient, `${path}.recipient`),
      amount: parseWestAmount(t['amount'], `${path}.amount`),
    };
  });
  const networkParticipants = configList(c['network-participants'], 'network-participants').map((item, i) => {
    const path = `network-participants(${i})`;
    const n = configObject(item, path);
    const key = n['public-key'];
    if (typeof key !== 'string') throw genericError(`'${path}.public-key' must be a Base58 public key`, `${path}.public-key`);
    const roles = configList(n['roles'], `${path}.roles`).map((r, j) => {
      if (typeof r !== 'string') throw genericError(`'${path}.roles(${j})' must be a role name`, `${path}.roles`);
      return roleFromName(r, `${path}.roles`);
    });
    return { publicKey: p.addresses.parsePublicKey(key, `${path}.public-key`), roles };
  });
  const settings: GenesisSettings = {
    version: Number(versionRaw) as 1 | 2,
    blockTimestamp: configLong(c['block-timestamp'], 'block-timestamp'),
    initialBalance: parseWestAmount(c['initial-balance'], 'initial-balance'),
    initialBaseTarget: configLong(c['initial-base-target'], 'initial-base-target'),
    genesisPublicKey: c['genesis-public-key-base-58'] === undefined ? null : configBase58(c['genesis-public-key-base-58'], 'genesis-public-key-base-58'),
    signature: c['signature'] === undefined || c['signature'] === null ? null : configBase58(c['signature'], 'signature'),
    transactions,
    networkParticipants,
    senderRoleEnabled,
  };
  checkGenesisSettings(settings);
  return settings;
}
