/**
 * A settings key table: one declaration per key of a HOCON section — its path, how it is
 * read (parser, default, checks) and how it is written back — from which come both the
 * reader (`read(section) → settings`) and the renderer (`render(settings) → HOCON object`),
 * so no key is read without being rendered or rendered without being read.
 *
 * A table's fields are its settings object's fields, in the order the keys are rendered and
 * read (a table may read some first, where WE's reader checks them first). Checks that
 * involve several keys (or what the node reads elsewhere, passed as the table's context) run
 * after the keys, in the table's `finish` step.
 */
import { resolve } from 'node:path';
import { ConfigSection, isObject } from './section.js';
import { describeValue, fail, type IntRange } from './values.js';

/** A value as a rendered HOCON document holds it (JSON, with integers beyond 2^53 as bigints). */
export type HoconValue = null | boolean | number | bigint | string | HoconValue[] | { [key: string]: HoconValue };
export type HoconObject = { [key: string]: HoconValue };

/** One key of a table: where it sits in the table's section, how it is read and how it is written back. */
export interface Key<T, C = unknown> {
  /** Path from the table's section, dotted for nested objects (`execution-limits.timeout`). */
  readonly path: string;
  /** The leaf paths under the table's section this key reads and renders (`path` itself, or a nested table's keys). */
  readonly paths: readonly string[];
  /** An absent value leaves the field out of the settings object (rather than setting it to undefined). */
  readonly optional: boolean;
  readonly read: (section: ConfigSection, context: C) => T;
  /** The value as HOCON; undefined: nothing is written. Not called for an undefined value. */
  readonly render: (value: Exclude<T, undefined>) => HoconValue | undefined;
}

/** The keys of a settings object `S`, one per field. */
export type Keys<S, C> = { readonly [F in keyof S]-?: Key<S[F], C> | Key<Exclude<S[F], undefined>, C> };

export interface KeyTable<S, C = unknown> {
  /** Every leaf path the table reads and renders, relative to its section. */
  readonly paths: readonly string[];
  read(section: ConfigSection, context: C): S;
  render(settings: S): HoconObject;
}

const isHoconObject = (v: HoconValue | undefined): v is HoconObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Puts `value` at the dotted `path` of `target`, merging objects already there. */
export function placeAt(target: HoconObject, path: string, value: HoconValue): void {
  const parts = path.split('.');
  let at = target;
  for (const part of parts.slice(0, -1)) {
    const next = at[part];
    if (isHoconObject(next)) at = next;
    else at = at[part] = {};
  }
  mergeInto(at, parts[parts.length - 1]!, value);
}

/** Sets `target[key]`, merging into an object already there key by key (keys taken literally: an `env` name may hold dots). */
function mergeInto(target: HoconObject, key: string, value: HoconValue): void {
  const existing = target[key];
  if (isHoconObject(existing) && isHoconObject(value)) for (const [k, v] of Object.entries(value)) mergeInto(existing, k, v);
  else target[key] = value;
}

/** How a table reads beyond its keys. */
export interface TableOptions<S, C> {
  /** Fields read before the others (in this order), where WE's reader checks them first; the rest, and rendering, follow the keys' order. */
  readonly readFirst?: ReadonlyArray<keyof S & string>;
  /** Runs after every key is read: cross-key checks (throwing a ConfigError) and fields that follow from other keys. */
  readonly finish?: (settings: S, section: ConfigSection, context: C) => S;
}

/** A table from its keys, in the order they are rendered. */
export function keyTable<S, C = unknown>(keys: Keys<S, C>, options: TableOptions<S, C> = {}): KeyTable<S, C> {
  const entries = Object.entries(keys) as Array<[keyof S & string, Key<unknown, C>]>;
  const first = options.readFirst ?? [];
  const readOrder = [
    ...entries.filter(([field]) => first.includes(field)).sort(([a], [b]) => first.indexOf(a) - first.indexOf(b)),
    ...entries.filter(([field]) => !first.includes(field)),
  ];
  return {
    paths: entries.flatMap(([, key]) => key.paths),
    read(section, context) {
      const values = new Map<string, unknown>();
      for (const [field, key] of readOrder) values.set(field, key.read(section, context));
      const out: Record<string, unknown> = {};
      for (const [field, key] of entries) {
        const value = values.get(field);
        if (value !== undefined || !key.optional) out[field] = value;
      }
      return options.finish === undefined ? (out as S) : options.finish(out as S, section, context);
    },
    render(settings) {
      const out: HoconObject = {};
      for (const [field, key] of entries) {
        const value = settings[field];
        if (value === undefined) continue;
        const rendered = key.render(value);
        if (rendered !== undefined) placeAt(out, key.path, rendered);
      }
      return out;
    },
  };
}

/** A key of a custom syntax: its own read and render. */
export function customKey<T, C = unknown>(
  path: string,
  read: (section: ConfigSection, context: C) => T,
  render: (value: Exclude<T, undefined>) => HoconValue | undefined,
): Key<T, C> {
  return { path, paths: [path], optional: false, read, render };
}

/** A field taken from what the table is read with (a key of another table): neither read from this section nor written back. */
export function contextKey<T, C>(value: (context: C) => T): Key<T, C> {
  return { path: '', paths: [], optional: false, read: (_section, context) => value(context), render: () => undefined };
}

/** A key read only when the config names it (a nested table: one of its keys); absent, the field is left out. */
export function optionalKey<T, C>(key: Key<T, C>): Key<T | undefined, C> {
  return { ...key, optional: true, read: (section, context) => (key.paths.some((path) => section.has(path)) ? key.read(section, context) : undefined) };
}

/** A key whose value must also pass `check` (which throws a ConfigError naming the key's full path). */
export function checkedKey<T, C>(key: Key<T, C>, check: (value: T, path: string) => void): Key<T, C> {
  return {
    ...key,
    read: (section, context) => {
      const value = key.read(section, context);
      check(value, section.at(key.path));
      return value;
    },
  };
}

/** A table of its own object at `path` (e.g. `replier { … }`). */
export function nestedKey<S, C>(path: string, table: KeyTable<S, C>): Key<S, C> {
  return {
    path,
    paths: table.paths.map((p) => `${path}.${p}`),
    optional: false,
    read: (section, context) => table.read(section.section(path), context),
    render: (value) => table.render(value),
  };
}

// ---------------------------------------------------------------------------
// Keys of the common syntaxes (values.ts); `fallback` is the default, absent: required.

const UNITS: ReadonlyArray<[string, number]> = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
];

/** A duration in HOCON form: the largest unit that divides it (`"4s"`, `"5m"`), else milliseconds. */
export function durationText(ms: number): string {
  if (ms === 0) return '0ms';
  for (const [unit, size] of UNITS) if (ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}

/** A duration in milliseconds, rendered in its largest whole unit. */
export function durationKey(path: string, fallback?: number): Key<number> {
  return customKey(path, (s) => s.duration(path, fallback), durationText);
}

/** A duration that must be above zero; `reason` is the error's wording. */
export function positiveDurationKey(path: string, fallback?: number, reason = 'must be positive'): Key<number> {
  return checkedKey(durationKey(path, fallback), (ms, at) => {
    if (ms <= 0) fail(at, reason);
  });
}

/** A memory size in bytes, rendered as bytes. */
export function sizeKey(path: string, fallback?: number): Key<number> {
  return customKey(
    path,
    (s) => s.size(path, fallback),
    (v) => v,
  );
}

export function intKey(path: string, fallback?: number, range?: IntRange): Key<number> {
  return customKey(
    path,
    (s) => s.int(path, fallback, range),
    (v) => v,
  );
}

export function longKey(path: string, fallback?: bigint): Key<bigint> {
  return customKey(
    path,
    (s) => s.long(path, fallback),
    (v) => v,
  );
}

export function boolKey(path: string, fallback?: boolean): Key<boolean> {
  return customKey(
    path,
    (s) => s.bool(path, fallback),
    (v) => v,
  );
}

export function stringKey(path: string, fallback?: string, options: { allowEmpty?: boolean } = {}): Key<string> {
  return customKey(
    path,
    (s) => s.string(path, fallback, options),
    (v) => v,
  );
}

/** A string that may be absent (the field is then undefined). */
export function optionalStringKey(path: string): Key<string | undefined> {
  return customKey(
    path,
    (s) => s.optionalString(path),
    (v) => v,
  );
}

/** One of `choices` (any case in the config; the choice's own spelling in the settings). */
export function choiceKey<T extends string>(path: string, choices: readonly T[], fallback?: T): Key<T> {
  return customKey(
    path,
    (s) => s.choice(path, choices, fallback),
    (v) => v,
  );
}

/** A list of `item`s, each read with its path `<list>(<i>)`. */
export function listKey<T>(
  path: string,
  item: (v: unknown, path: string) => T,
  render: (value: T) => HoconValue,
  fallback: readonly unknown[] = [],
): Key<readonly T[]> {
  return customKey<readonly T[]>(
    path,
    (s) => s.list(path, fallback).map((v, i) => item(v, `${s.at(path)}(${i})`)),
    (values) => values.map(render),
  );
}

/**
 * A section whose keys depend on one of them (`vendor`, `type`): the choice at `path` picks
 * the table that reads and renders the rest (each renders the choice itself). A choice mapped
 * to a text is refused with that text.
 */
export function variantTable<S, V extends string, C = unknown>(
  path: string,
  choices: { readonly [choice in V]: KeyTable<S, C> | string },
  choiceOf: (settings: S) => V,
  fallback?: V,
): KeyTable<S, C> {
  const tableOf = (choice: V, section: ConfigSection): KeyTable<S, C> => {
    const table = choices[choice];
    return typeof table === 'string' ? fail(section.at(path), table) : table;
  };
  const tables = Object.values<KeyTable<S, C> | string>(choices).filter((t): t is KeyTable<S, C> => typeof t !== 'string');
  return {
    paths: [...new Set(tables.flatMap((t) => t.paths))],
    read: (section, context) => tableOf(section.choice(path, Object.keys(choices) as V[], fallback), section).read(section, context),
    render: (settings) => (choices[choiceOf(settings)] as KeyTable<S, C>).render(settings),
  };
}

/** A file or directory path, resolved from the current directory (as WE does); `fallback` as given. */
export function fileKey(path: string, fallback?: string): Key<string> {
  return customKey(
    path,
    (s) => resolve(s.string(path, fallback)),
    (v) => v,
  );
}

/** A file or directory path that may be absent (the field is then undefined). */
export function optionalFileKey(path: string): Key<string | undefined> {
  return customKey(
    path,
    (s) => {
      const file = s.optionalString(path);
      return file === undefined ? undefined : resolve(file);
    },
    (v) => v,
  );
}

/** A list of objects, each read and rendered by `table`; `shape` describes an item in the error for one that is not an object. */
export function tableListKey<S, C>(path: string, table: KeyTable<S, C>, shape: string): Key<readonly S[], C> {
  return {
    path,
    paths: [path],
    optional: false,
    read: (section, context) =>
      section.list(path, []).map((item, i) => {
        const itemPath = `${section.at(path)}(${i})`;
        if (!isObject(item)) return fail(itemPath, `expected an object ${shape}, got ${describeValue(item)}`);
        return table.read(new ConfigSection(item, itemPath), context);
      }),
    render: (items) => items.map((item) => table.render(item)),
  };
}
