/**
 * One object of a parsed HOCON config with its path, and typed getters with defaults: the
 * reading half every settings key table (config/key-table.ts) stands on.
 */
import { describeValue, fail, parseBoolean, parseDuration, parseInt32, parseLong, parseSize, parseString, type IntRange } from './values.js';

/** A HOCON object as parsed: values not yet checked. */
export type RawObject = Record<string, unknown>;

export const isObject = (v: unknown): v is RawObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One object of the parsed config, with its path, and typed getters with defaults. */
export class ConfigSection {
  constructor(
    readonly raw: RawObject,
    readonly path: string,
  ) {}

  /** Full path of a key of this section. */
  at(key: string): string {
    return this.path === '' ? key : `${this.path}.${key}`;
  }

  /** The raw value at a (possibly dotted) key; undefined when absent. */
  get(key: string): unknown {
    let v: unknown = this.raw;
    let walked = this.path;
    for (const part of key.split('.')) {
      if (v === undefined || v === null) return undefined;
      if (!isObject(v)) return fail(walked, `expected an object, got ${describeValue(v)}`);
      v = v[part];
      walked = walked === '' ? part : `${walked}.${part}`;
    }
    return v === null ? undefined : v;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /** A sub-section; an absent key gives an empty section. */
  section(key: string): ConfigSection {
    const v = this.get(key);
    if (v === undefined) return new ConfigSection({}, this.at(key));
    if (!isObject(v)) return fail(this.at(key), `expected an object, got ${describeValue(v)}`);
    return new ConfigSection(v, this.at(key));
  }

  /** The value at `key` read by `parse` (which names the key's full path in its errors); absent: `fallback`, or an error when there is none. */
  value<T>(key: string, parse: (v: unknown, path: string) => T, fallback?: T): T {
    const v = this.get(key);
    if (v === undefined) {
      if (fallback === undefined) return fail(this.at(key), 'required, but not set');
      return fallback;
    }
    return parse(v, this.at(key));
  }

  string(key: string, fallback?: string, options: { allowEmpty?: boolean } = {}): string {
    return this.value(key, (v, p) => parseString(v, p, options), fallback);
  }
  optionalString(key: string): string | undefined {
    const v = this.get(key);
    return v === undefined ? undefined : parseString(v, this.at(key));
  }
  int(key: string, fallback?: number, range?: IntRange): number {
    return this.value(key, (v, p) => parseInt32(v, p, range), fallback);
  }
  long(key: string, fallback?: bigint): bigint {
    return this.value(key, parseLong, fallback);
  }
  bool(key: string, fallback?: boolean): boolean {
    return this.value(key, parseBoolean, fallback);
  }
  duration(key: string, fallback?: number): number {
    return this.value(key, parseDuration, fallback);
  }
  size(key: string, fallback?: number): number {
    return this.value(key, parseSize, fallback);
  }
  list(key: string, fallback?: readonly unknown[]): readonly unknown[] {
    return this.value(
      key,
      (v, p) => {
        if (Array.isArray(v)) return v;
        // Typesafe Config reads an empty string where a list is expected as no list at all only for some
        // readers; WE's configs write `known-peers = []`, so a string here is an error.
        return fail(p, `expected a list, got ${describeValue(v)}`);
      },
      fallback,
    );
  }
  /** One of `choices` (case-insensitive); returns the choice as written in `choices`. */
  choice<T extends string>(key: string, choices: readonly T[], fallback?: T): T {
    return this.value(
      key,
      (v, p) => {
        const s = parseString(v, p).toLowerCase();
        const found = choices.find((c) => c.toLowerCase() === s);
        return found ?? fail(p, `expected one of ${choices.join(', ')}, got ${describeValue(v)}`);
      },
      fallback,
    );
  }
}
