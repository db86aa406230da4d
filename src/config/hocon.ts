/**
 * Reading a WE-style HOCON document: the file or text parsed with WE's substitutions, and
 * every number checked to be exact. The parser reads numbers as JS numbers, so an integer
 * literal beyond 2^53 has lost digits before we see it: such a value is refused with its
 * path; values that large are written as strings ("100000000000000000") or, for amounts,
 * as "<n> WEST".
 */
import { createRequire } from 'node:module';
import { homedir, userInfo } from 'node:os';
import { resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { isObject, type RawObject } from './section.js';
import { ConfigError, fail } from './values.js';

interface HoconParser {
  parse(options: { url?: string; text?: string; strict?: boolean; env?: boolean; scope?: RawObject }): Promise<unknown>;
}

const requireCjs = createRequire(import.meta.url);

function hoconParser(): HoconParser {
  return requireCjs('@pushcorn/hocon-parser') as HoconParser;
}

/** The Java system properties a WE config may substitute (`${user.home}` in application.conf). */
function systemProperties(): RawObject {
  let name = '';
  try {
    name = userInfo().username;
  } catch {
    // no user name on this system
  }
  return { user: { home: homedir(), dir: process.cwd(), name } };
}

/**
 * Every number of the parsed document must be exact: an integer beyond 2^53 has already lost
 * digits in the parser, so it is refused with its path.
 */
function refuseInexactIntegers(v: unknown, path: string): void {
  if (typeof v === 'number') {
    if (Number.isFinite(v) && Math.abs(v) > Number.MAX_SAFE_INTEGER) {
      fail(
        path,
        `an integer beyond 2^53 (read as ${BigInt(v)}) cannot be read without losing digits; ` +
          'write it as a string ("100000000000000001") or, for an amount, as "<n> WEST"',
      );
    }
    return;
  }
  if (Array.isArray(v)) v.forEach((x, i) => refuseInexactIntegers(x, `${path}(${i})`));
  else if (isObject(v)) for (const [k, x] of Object.entries(v)) refuseInexactIntegers(x, path === '' ? k : `${path}.${k}`);
}

async function parseHocon(options: { url?: string; text?: string }, origin: string): Promise<RawObject> {
  let doc: unknown;
  try {
    doc = await hoconParser().parse({ ...options, strict: true, env: true, scope: systemProperties() });
  } catch (e) {
    throw new ConfigError('', `${origin}: cannot parse HOCON: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!isObject(doc)) throw new ConfigError('', `${origin}: expected a HOCON object at the top level`);
  refuseInexactIntegers(doc, '');
  return doc;
}

/** Parses HOCON text (substitutions see environment variables and `${user.home}`, `${user.dir}`, `${user.name}`). */
export function parseHoconText(text: string): Promise<RawObject> {
  return parseHocon({ text }, 'config text');
}

/** Reads and parses a HOCON file; `include`s are resolved relative to it. */
export async function readHoconFile(file: string): Promise<RawObject> {
  const path = resolve(file);
  if (!existsSync(path)) throw new ConfigError('', `Configuration file '${file}' does not exist`);
  return await parseHocon({ url: path }, path);
}

/** A key as HOCON writes it: bare when it is one plain path element, quoted otherwise. */
const hoconKey = (key: string): string => (/^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key));

function hoconValue(value: unknown, indent: string): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    if (value.every((v) => v === null || typeof v !== 'object')) return `[${value.map((v) => hoconValue(v, indent)).join(', ')}]`;
    const inner = `${indent}  `;
    return `[\n${value.map((v) => `${inner}${hoconValue(v, inner)}`).join(',\n')}\n${indent}]`;
  }
  if (isObject(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    return `{\n${hoconMembers(value, `${indent}  `)}${indent}}`;
  }
  throw new TypeError(`a value HOCON cannot hold: ${typeof value}`);
}

function hoconMembers(object: RawObject, indent: string): string {
  let out = '';
  for (const [key, value] of Object.entries(object)) {
    out += isObject(value) ? `${indent}${hoconKey(key)} ${hoconValue(value, indent)}\n` : `${indent}${hoconKey(key)} = ${hoconValue(value, indent)}\n`;
  }
  return out;
}

/**
 * An object as readable HOCON text: the top level without braces, one key per line, nested
 * objects as blocks — a file an operator can read, edit and append blocks to (parseHoconText
 * reads it back to the same object).
 */
export function renderHoconText(object: RawObject, header?: string): string {
  return `${
    header === undefined
      ? ''
      : `${header
          .split('\n')
          .map((l) => `# ${l}`)
          .join('\n')}\n`
  }${hoconMembers(object, '')}`;
}
