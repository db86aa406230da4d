/**
 * The `weft` command line (`node dist/src/cli/cli.js <command>`):
 *
 *   start [--config FILE] [--data-dir DIR] [--rest-port N] [--p2p-port N] [--crypto waves|gost] [--pki test]
 *         [--grpc-port N] [--contract IMAGE=DIR]...
 *   generate accounts     N key pairs for a chain into a keystore (WE's AccountsGeneratorApp)
 *   generate genesis      signs the genesis block of a node config (WE's GenesisBlockGenerator)
 *   generate api-key-hash the hash of an API key for `node.api.auth.*-hash` (WE's ApiKeyHashGenerator)
 *   licence issuer-key    the public key of a licence issuer (for `node.licenses.issuers`)
 *   licence issue         a signed licence for a node owner (src/licences/licence.ts)
 *   contract hash DIR|FILE.tgz  the content digest of a contract package: the imageHash of its 103
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, readFileSync, renameSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { decodeBase58, encodeBase58 } from '../crypto/encoding.js';
import { AddressScheme } from '../crypto/address.js';
import { dayStart, licenceJson, signLicence, type LicenceTerms } from '../licences/licence.js';
import type { CryptoType } from '../crypto/suite.js';
import { createCryptoSuite } from '../crypto/create-suite.js';
import { checkGeneratorSettings, checkGenesisSettings, signGenesisBlock, type GenesisSettings } from '../protocol/blocks.js';
import { Protocol } from '../protocol/protocol.js';
import { apiKeyHash, blockchainFromConfig, loadNodeConfig } from '../node/config.js';
import { ConfigSection } from '../config/section.js';
import { readHoconFile } from '../config/hocon.js';
import { Keystore, writeFileAtomic, type KeystoreOptions } from '../keystore/keystore.js';
import { processIo, startNode, type StartIo } from './start.js';
import { isMainModule } from './main-module.js';
import { packageDigestOf } from '../contracts/packages.js';

export interface CliIo extends StartIo {
  readonly err: (text: string) => void;
}

// ---------------------------------------------------------------------------
// generate genesis

export interface GenesisUpdate {
  readonly blockTimestamp: bigint;
  readonly genesisPublicKey: string;
  readonly signature: string;
}

/** `dd-MM-yyyy.HH-mm-ss` in local time (WE's suffix of the kept config). */
export function backupSuffix(date: Date): string {
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${two(date.getDate())}-${two(date.getMonth() + 1)}-${date.getFullYear()}.${two(date.getHours())}-${two(date.getMinutes())}-${two(date.getSeconds())}`;
}

const GENESIS_KEYS = ['signature', 'genesis-public-key-base-58', 'block-timestamp'] as const;

/**
 * Rewrites the lines `signature`, `genesis-public-key-base-58` and `block-timestamp` of a
 * config (`key: value` or `key = value`, also as the last part of a dotted key), keeping their
 * indentation, as WE's generator does. Every key must be found at least once.
 */
export function rewriteGenesisLines(text: string, update: GenesisUpdate): string {
  const values: Record<(typeof GENESIS_KEYS)[number], string> = {
    signature: `"${update.signature}"`,
    'genesis-public-key-base-58': `"${update.genesisPublicKey}"`,
    'block-timestamp': update.blockTimestamp.toString(),
  };
  const found = new Set<string>();
  const lines = text.split('\n').map((line) => {
    const colon = line.indexOf(':');
    const equals = line.indexOf('=');
    const at = colon < 0 ? equals : equals < 0 ? colon : Math.min(colon, equals);
    if (at < 0) return line;
    const keyText = line.slice(0, at).trim();
    const key = keyText.replace(/^"(.*)"$/, '$1');
    const name = GENESIS_KEYS.find((k) => key === k || key.endsWith(`.${k}`));
    if (name === undefined) return line;
    found.add(name);
    const indent = /^\s*/.exec(line)![0];
    return `${indent}${keyText}${line[at] === ':' ? ': ' : ' = '}${values[name]}${line.endsWith('\r') ? '\r' : ''}`;
  });
  const missing = GENESIS_KEYS.filter((k) => !found.has(k));
  if (missing.length > 0) {
    throw new Error(`cannot find the line(s) of ${missing.map((k) => `'${k}'`).join(', ')} to rewrite: put each genesis key on a line of its own`);
  }
  return lines.join('\n');
}

export interface GenerateGenesisOptions {
  /** Time of the genesis block (WE takes NTP time). */
  readonly now?: () => bigint;
  /** Time for the backup name. */
  readonly date?: () => Date;
}

export interface GenerateGenesisResult extends GenesisUpdate {
  readonly configFile: string;
  readonly backupFile: string;
}

/**
 * WE's GenesisBlockGenerator: reads a node config (CUSTOM chain, plain genesis), validates it,
 * takes the current time as `block-timestamp`, signs the genesis block with a fresh random key
 * that is then dropped, and rewrites the config, keeping the old one as `<file>.old.<time>`.
 */
export async function generateGenesis(file: string, options: GenerateGenesisOptions = {}): Promise<GenerateGenesisResult> {
  const configFile = resolve(file);
  const root = await readHoconFile(configFile);
  const { protocol, chain, consensusType } = await blockchainFromConfig(root, { requireSignedGenesis: false });
  const blockTimestamp = (options.now ?? ((): bigint => BigInt(Date.now())))();
  const settings: GenesisSettings = { ...chain.genesis, blockTimestamp };
  checkGenesisSettings(settings);
  checkGeneratorSettings(settings);
  const signer = protocol.crypto.generateKeyPair();
  const block = signGenesisBlock(protocol, settings, consensusType, signer.privateKey);
  signer.privateKey.fill(0);
  const update: GenesisUpdate = { blockTimestamp, genesisPublicKey: encodeBase58(signer.publicKey), signature: encodeBase58(block.signature) };

  const original = readFileSync(configFile, 'utf8');
  const rewritten = rewriteGenesisLines(original, update);
  const backupFile = `${configFile}.old.${backupSuffix((options.date ?? ((): Date => new Date()))())}`;
  if (existsSync(backupFile)) throw new Error(`Cannot rename ${configFile} to ${backupFile}: File already exists`);
  const mode = statSync(configFile).mode & 0o777;
  renameSync(configFile, backupFile);
  try {
    writeFileAtomic(configFile, rewritten);
    chmodSync(configFile, mode);
    // The rewritten config must describe exactly the block just signed.
    const check = await blockchainFromConfig(await readHoconFile(configFile), { requireSignedGenesis: true });
    if (check.chain.genesis.blockTimestamp !== blockTimestamp) throw new Error('block-timestamp was not rewritten where the config reads it');
  } catch (e) {
    renameSync(backupFile, configFile);
    throw new Error(`the rewritten config does not describe the signed genesis block, ${configFile} is left as it was: ${(e as Error).message}`, { cause: e });
  }
  return { ...update, configFile, backupFile };
}

// ---------------------------------------------------------------------------
// generate accounts

export interface GenerateAccountsOptions {
  readonly keystore: string;
  readonly crypto: CryptoType;
  readonly chainId: string;
  readonly count: number;
  /** Password of each new key ('' = none). */
  readonly passwords: readonly string[];
  readonly keystoreOptions?: KeystoreOptions;
}

export interface GeneratedAccount {
  readonly address: string;
  readonly publicKey: string;
  readonly privateKey: string;
}

/** WE's AccountsGeneratorApp: `count` fresh key pairs added to a keystore (created if missing). */
export async function generateAccounts(o: GenerateAccountsOptions): Promise<GeneratedAccount[]> {
  if (o.passwords.length !== o.count) throw new Error(`expected ${o.count} passwords, got ${o.passwords.length}`);
  const protocol = await Protocol.create({ crypto: o.crypto, chainId: o.chainId });
  const keystore = Keystore.open(o.keystore, protocol.addresses, o.keystoreOptions);
  const out: GeneratedAccount[] = [];
  for (let i = 0; i < o.count; i++) {
    const keyPair = protocol.crypto.generateKeyPair();
    const address = keystore.addKeyPair(keyPair, o.passwords[i]!);
    out.push({ address, publicKey: encodeBase58(keyPair.publicKey), privateKey: encodeBase58(keyPair.privateKey) });
  }
  return out;
}

// ---------------------------------------------------------------------------
// licence issue

export interface IssueLicenceOptions {
  readonly crypto: CryptoType;
  /** The issuer's key: a seed phrase, or a Base58 private key. */
  readonly issuer: { readonly seed: string } | { readonly privateKey: string };
  readonly owner: string;
  readonly validAfter: string;
  readonly validBefore?: string;
  readonly features?: readonly string[];
  readonly id?: string;
  readonly now?: () => Date;
}

async function issuerKeys(crypto: CryptoType, issuer: IssueLicenceOptions['issuer']) {
  const suite = await createCryptoSuite(crypto);
  if ('seed' in issuer) return { suite, keys: suite.keyPairFromSeedPhrase(issuer.seed) };
  let privateKey: Uint8Array;
  try {
    privateKey = decodeBase58(issuer.privateKey.trim());
  } catch {
    throw new Error('the issuer private key is not Base58');
  }
  if (privateKey.length !== suite.privateKeyLength)
    throw new Error(`the issuer private key has ${privateKey.length} bytes, a ${crypto} key has ${suite.privateKeyLength}`);
  return { suite, keys: { privateKey, publicKey: suite.publicKeyOf(privateKey) } };
}

/**
 * Refuses an owner address that is not one of a `crypto` network: its checksum is that crypto's
 * secure hash, so a GOST owner's address fails WAVES' check (and says which crypto it is of).
 */
async function checkOwnerAddress(owner: string, crypto: CryptoType): Promise<void> {
  let bytes: Uint8Array;
  try {
    bytes = decodeBase58(owner.replace(/^address:/, ''));
  } catch {
    throw new Error(`--owner '${owner}' is not a Base58 address`);
  }
  const validFor = async (type: CryptoType): Promise<string | undefined> => {
    try {
      new AddressScheme(bytes[1] ?? 0, await createCryptoSuite(type)).addressFromBytes(bytes);
      return undefined;
    } catch (e) {
      return (e as Error).message;
    }
  };
  const problem = await validFor(crypto);
  if (problem === undefined) return;
  const other: CryptoType = crypto === 'waves' ? 'gost' : 'waves';
  if ((await validFor(other)) === undefined)
    throw new Error(`--owner ${owner} is an address of a ${other} network (its checksum is ${other}'s), the licence a ${crypto} one: add --crypto ${other}`);
  throw new Error(`--owner '${owner}' is not a valid address: ${problem}`);
}

/** A licence document signed with an issuer key, as `POST /licenses/upload` takes it. */
export async function issueLicenceDocument(o: IssueLicenceOptions): Promise<Record<string, unknown>> {
  await checkOwnerAddress(o.owner, o.crypto);
  const { suite, keys } = await issuerKeys(o.crypto, o.issuer);
  if (dayStart(o.validAfter) === undefined) throw new Error(`--valid-after '${o.validAfter}' is not a YYYY-MM-DD date`);
  const terms: LicenceTerms = {
    version: 1,
    id: o.id ?? randomUUID(),
    issuedAt: (o.now ?? ((): Date => new Date()))().toISOString(),
    nodeOwnerAddress: o.owner,
    validAfter: o.validAfter,
    validBefore: o.validBefore ?? null,
    features: o.features ?? ['all_inclusive'],
  };
  return licenceJson(suite, signLicence(suite, terms, keys.privateKey));
}

// ---------------------------------------------------------------------------
// The program

function portArg(value: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError('expected a port number from 0 to 65535');
  return Number(value);
}

function countArg(value: string): number {
  if (!/^\d{1,6}$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('expected a positive number');
  return Number(value);
}

/** `--pki`: test (the only mode a dev chain runs besides the default OFF), in any case. */
export function pkiArg(value: string): 'TEST' {
  if (value.toUpperCase() === 'TEST') return 'TEST';
  throw new InvalidArgumentError(`'${value}' is not a dev chain PKI mode: test (ON needs TLS and CRLs: configure a node for it)`);
}

/** `--crypto`: waves or gost, in any case. */
export function cryptoArg(value: string): CryptoType {
  const v = value.toLowerCase();
  if (v !== 'waves' && v !== 'gost') throw new InvalidArgumentError("expected 'waves' or 'gost'");
  return v;
}

function chainIdArg(value: string): string {
  if (value.length !== 1 || value.charCodeAt(0) > 127) throw new InvalidArgumentError('expected one ASCII character');
  return value;
}

interface AccountsCliOptions {
  config?: string;
  keystore?: string;
  chainId?: string;
  crypto?: CryptoType;
  count?: number;
  password?: string;
  passwordFile?: string;
  showPrivateKeys?: boolean;
  json?: boolean;
}

/** Settings for `generate accounts` from a config: WE's `accounts-generator { … }` or a node config. */
async function accountsSettingsFromConfig(file: string): Promise<{ keystore?: string; chainId?: string; crypto?: CryptoType; count?: number }> {
  const root = new ConfigSection(await readHoconFile(file), '');
  if (root.has('accounts-generator')) {
    const g = root.section('accounts-generator');
    return {
      keystore: g.string('wallet'),
      chainId: g.string('chain-id'),
      crypto: g.choice('crypto.type', ['WAVES', 'GOST'] as const, 'WAVES') === 'WAVES' ? 'waves' : 'gost',
      count: g.int('amount', 1, { min: 1 }),
    };
  }
  const node = root.section('node');
  const chainId = node.string('blockchain.custom.address-scheme-character');
  return {
    keystore: node.string('wallet.file'),
    chainId,
    crypto: node.choice('crypto.type', ['WAVES', 'GOST'] as const, 'WAVES') === 'WAVES' ? 'waves' : 'gost',
  };
}

async function accountPasswords(o: AccountsCliOptions, count: number, io: CliIo): Promise<string[]> {
  if (o.password !== undefined) return Array.from({ length: count }, () => o.password!);
  if (o.passwordFile !== undefined) {
    const lines = readFileSync(o.passwordFile, 'utf8').split(/\r?\n/);
    if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    if (lines.length < count)
      throw new Error(`${o.passwordFile} has ${lines.length} password line(s), ${count} needed (one per account; an empty line is no password)`);
    return lines.slice(0, count);
  }
  if (io.askSecret === undefined) {
    throw new Error('no console to ask passwords on: give --password <pw> (for every key) or --password-file <file> (one line per key)');
  }
  const out: string[] = [];
  for (let i = 1; i <= count; i++) {
    for (;;) {
      const first = await io.askSecret(`Please enter password for ${i} account (empty password means no password): `);
      const again = await io.askSecret('Repeat the password: ');
      if (first === again) {
        out.push(first);
        break;
      }
      io.err('The passwords differ, try again.\n');
    }
  }
  return out;
}

export function buildProgram(io: CliIo): Command {
  const program = new Command('weft')
    .description('Weft: a permissioned-blockchain node compatible with the Waves Enterprise 1.14 REST API')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });

  program
    .command('start')
    .description('run a node: the one on --config FILE, or without it the dev chain on embedded defaults')
    .option('--config <file>', 'WE-style HOCON node config (default: the dev chain)')
    .option('--data-dir <dir>', 'data directory (dev chain: its whole directory, default data/dev)')
    .option('--rest-port <port>', 'REST API port', portArg)
    .option('--p2p-port <port>', 'P2P port', portArg)
    .option('--crypto <type>', 'dev chain only: waves (default) or gost', cryptoArg)
    .option('--pki <mode>', 'GOST dev chain only: test = PKI mode TEST, the dev accounts certified by a dev root CA', pkiArg)
    .option('--grpc-port <port>', 'dev chain only: contract gRPC port (default 6865; any free port when --rest-port is given)', portArg)
    .option(
      '--contract <image=dir>',
      'dev chain only: run contract IMAGE from the package in DIR (or a .tgz) as a local process; repeatable',
      (v: string, all: string[] = []) => [...all, v],
    )
    .action(
      async (o: {
        config?: string;
        dataDir?: string;
        restPort?: number;
        p2pPort?: number;
        crypto?: CryptoType;
        pki?: 'TEST';
        grpcPort?: number;
        contract?: string[];
      }) => {
        await startNode(o, io);
      },
    );

  const generate = program.command('generate').description('generators: accounts, genesis, api-key-hash');

  generate
    .command('accounts')
    .description('generate key pairs into a keystore (each key encrypted with its own password)')
    .option('--config <file>', "read keystore, chain id and crypto from WE's accounts-generator config or a node config")
    .option('--keystore <file>', 'keystore file (created if missing)')
    .option('--chain-id <c>', 'chain id (address scheme character)', chainIdArg)
    .option('--crypto <type>', 'waves or gost (default waves)', cryptoArg)
    .option('-n, --count <n>', 'how many key pairs (default 1)', countArg)
    .option('--password <pw>', 'password of every new key ("" for none)')
    .option('--password-file <file>', 'one password per line, line i for key i (an empty line is no password)')
    .option('--show-private-keys', 'also print the private keys (Base58)')
    .option('--json', 'print JSON')
    .action(async (o: AccountsCliOptions) => {
      const fromConfig = o.config === undefined ? {} : await accountsSettingsFromConfig(o.config);
      const keystore = o.keystore ?? fromConfig.keystore;
      const chainId = o.chainId ?? fromConfig.chainId;
      if (keystore === undefined) throw new Error('give --keystore <file> (or --config)');
      if (chainId === undefined) throw new Error('give --chain-id <c> (or --config)');
      chainIdArg(chainId);
      const count = o.count ?? fromConfig.count ?? 1;
      const accounts = await generateAccounts({
        keystore,
        chainId,
        crypto: o.crypto ?? fromConfig.crypto ?? 'waves',
        count,
        passwords: await accountPasswords(o, count, io),
      });
      const show = o.showPrivateKeys === true;
      if (o.json === true) {
        const list = accounts.map((a) => (show ? a : { address: a.address, publicKey: a.publicKey }));
        io.out(`${JSON.stringify({ keystore: resolve(keystore), chainId, accounts: list }, null, 2)}\n`);
      } else {
        accounts.forEach((a, i) => io.out(`${i + 1} Address: ${a.address}; public key: ${a.publicKey}${show ? `; private key: ${a.privateKey}` : ''}\n`));
        io.out(`Keystore: ${resolve(keystore)}\n`);
      }
    });

  generate
    .command('genesis')
    .description('sign the genesis block of a node config with a fresh key and rewrite its genesis lines')
    .requiredOption('--config <file>', 'node config (node.blockchain.type = CUSTOM, plain genesis)')
    .action(async (o: { config: string }) => {
      const r = await generateGenesis(o.config);
      io.out(
        [
          'Genesis signed successfully!',
          `New configuration file: ${r.configFile}`,
          `Old configuration saved to: ${r.backupFile}`,
          `block-timestamp: ${r.blockTimestamp}`,
          `genesis-public-key-base-58: ${r.genesisPublicKey}`,
          `signature: ${r.signature}`,
          '',
        ].join('\n'),
      );
    });

  generate
    .command('api-key-hash')
    .description('hash an API key for node.api.auth.api-key-hash (and the privacy / confidential-contracts hashes)')
    .argument('[key]', 'the API key')
    .option('--config <file>', "read api-key, crypto.type and file from WE's apikeyhash-generator config")
    .option('--crypto <type>', 'waves or gost (default waves)', cryptoArg)
    .option('--hash-only', 'print the hash alone')
    .action(async (key: string | undefined, o: { config?: string; crypto?: CryptoType; hashOnly?: boolean }) => {
      let apiKey = key;
      let crypto = o.crypto;
      let outFile: string | undefined;
      if (o.config !== undefined) {
        const g = new ConfigSection(await readHoconFile(o.config), '').section('apikeyhash-generator');
        apiKey ??= g.string('api-key', undefined, { allowEmpty: true });
        crypto ??= g.choice('crypto.type', ['WAVES', 'GOST'] as const, 'WAVES') === 'WAVES' ? 'waves' : 'gost';
        outFile = g.optionalString('file');
      }
      if (apiKey === undefined) throw new Error('give the API key as an argument (or --config)');
      const hash = apiKeyHash(await createCryptoSuite(crypto ?? 'waves'), apiKey);
      const text = o.hashOnly === true ? `${hash}\n` : `Api key: ${apiKey}\nApi key hash: ${hash}\n`;
      if (outFile !== undefined) writeFileAtomic(resolve(outFile), text);
      io.out(text);
    });

  const licence = program.command('licence').description('licences: issuer keys and signed licences');

  const issuerOf = (o: { issuerSeed?: string; issuerKeyFile?: string }): IssueLicenceOptions['issuer'] => {
    if (o.issuerSeed !== undefined) return { seed: o.issuerSeed };
    if (o.issuerKeyFile !== undefined) return { privateKey: readFileSync(o.issuerKeyFile, 'utf8') };
    throw new Error('give --issuer-seed <phrase> or --issuer-key-file <file holding the Base58 private key>');
  };

  licence
    .command('issuer-key')
    .description('print the public key of a licence issuer, for node.licenses.issuers')
    .option('--issuer-seed <phrase>', "the issuer's seed phrase")
    .option('--issuer-key-file <file>', "a file holding the issuer's Base58 private key")
    .option('--crypto <type>', 'waves or gost (default waves)', cryptoArg)
    .action(async (o: { issuerSeed?: string; issuerKeyFile?: string; crypto?: CryptoType }) => {
      const { keys } = await issuerKeys(o.crypto ?? 'waves', issuerOf(o));
      io.out(`${encodeBase58(keys.publicKey)}\n`);
    });

  licence
    .command('issue')
    .description('sign a licence for a node owner (JSON for POST /licenses/upload)')
    .option('--issuer-seed <phrase>', "the issuer's seed phrase")
    .option('--issuer-key-file <file>', "a file holding the issuer's Base58 private key")
    .option('--crypto <type>', "the network's crypto: waves or gost (default waves)", cryptoArg)
    .requiredOption('--owner <address>', "the node owner's address")
    .requiredOption('--valid-after <date>', 'first day of validity, YYYY-MM-DD (UTC)')
    .option('--valid-before <date>', 'the day validity ends, YYYY-MM-DD (UTC); none: no end')
    .option('--features <list>', 'comma-separated features (default all_inclusive)')
    .option('--id <id>', 'licence id (default a random UUID)')
    .option('--out <file>', 'write the licence to a file instead of printing it')
    .action(
      async (o: {
        issuerSeed?: string;
        issuerKeyFile?: string;
        crypto?: CryptoType;
        owner: string;
        validAfter: string;
        validBefore?: string;
        features?: string;
        id?: string;
        out?: string;
      }) => {
        const doc = await issueLicenceDocument({
          crypto: o.crypto ?? 'waves',
          issuer: issuerOf(o),
          owner: o.owner,
          validAfter: o.validAfter,
          ...(o.validBefore === undefined ? {} : { validBefore: o.validBefore }),
          ...(o.features === undefined
            ? {}
            : {
                features: o.features
                  .split(',')
                  .map((f) => f.trim())
                  .filter((f) => f !== ''),
              }),
          ...(o.id === undefined ? {} : { id: o.id }),
        });
        const text = `${JSON.stringify(doc, null, 2)}\n`;
        if (o.out !== undefined) writeFileAtomic(resolve(o.out), text);
        else io.out(text);
      },
    );

  program
    .command('contract')
    .description('contract packages for the process runtime')
    .command('hash')
    .description('print the content digest of a contract package (a folder or a .tgz): the imageHash its CreateContract names')
    .argument('<package>', 'package folder or .tgz')
    .action(async (source: string) => {
      if (!existsSync(source)) throw new Error(`no contract package at '${source}'`);
      io.out(`${await packageDigestOf(resolve(source), tmpdir())}\n`);
    });

  program
    .command('check-config')
    .description('read a node config and report the first invalid value, if any')
    .argument('<file>', 'node config')
    .action(async (file: string) => {
      const c = await loadNodeConfig(file, { env: io.env });
      io.out(
        `${c.source}: chain '${c.chain.chainId}' (${c.chain.crypto}, ${c.consensusType}), owner ${c.node.ownerAddress.toString()}, REST ${c.api.bindAddress}:${c.api.port}\n`,
      );
    });

  return program;
}

/** Runs the CLI; resolves to the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode;
    io.err(`error: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}

if (isMainModule(import.meta.url)) {
  const io: CliIo = { ...processIo(), err: (text) => process.stderr.write(text) };
  process.exitCode = await runCli(process.argv.slice(2), io);
}
