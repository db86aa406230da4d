/**
 * The node's named loggers and their levels, changeable at runtime (WE's `/node/logging`).
 *
 * Every part of the node logs through a named child of one pino logger — `api`, `chain`,
 * `miner`, `node`, `pool`, … — and each name has a level as logback gives it: a level set on
 * the name itself, else the level of its nearest dotted ancestor that has one (`api` for
 * `api.http`), else the root's (`ROOT`, the configured `node.logging-level`). Changing a
 * level re-levels every logger it governs; children a logger hands out later (Fastify's
 * per-request loggers) start at its level.
 *
 * Levels are WE's (logback) names; `ALL` logs everything (pino's `trace`).
 */
import type { Logger } from 'pino';
import type { LogLevelName } from '../api/services.js';

export type { LogLevelName } from '../api/services.js';

/** The node's modules, each logging through its own named logger. */
export const NODE_LOGGERS: readonly string[] = ['api', 'chain', 'health', 'miner', 'node', 'pool'];

/** Logback's name of the root logger (matched case-insensitively, as logback does). */
export const ROOT_LOGGER = 'ROOT';

/** The levels `/node/logging` accepts, in WE's spelling. */
export const LOG_LEVEL_NAMES: readonly LogLevelName[] = ['ALL', 'TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];

/** A level as GET /node/logging shows it: one of the settable ones, or OFF (a silent logger). */
export type ShownLevel = LogLevelName | 'OFF';

const PINO_LEVEL: Record<ShownLevel, string> = { ALL: 'trace', TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error', OFF: 'silent' };

/** The logback name of a pino level (a logger handed in from outside keeps its own level). */
export function levelOfPino(level: string): ShownLevel {
  switch (level) {
    case 'trace':
      return 'TRACE';
    case 'debug':
      return 'DEBUG';
    case 'info':
      return 'INFO';
    case 'warn':
      return 'WARN';
    case 'error':
    case 'fatal':
      return 'ERROR';
    default:
      return 'OFF';
  }
}

export function isLogLevelName(s: string): s is LogLevelName {
  return (LOG_LEVEL_NAMES as readonly string[]).includes(s);
}

interface Named {
  readonly logger: Logger;
  /** The level set on this name itself, if any. */
  own: LogLevelName | undefined;
}

export class NodeLoggers {
  private rootLevel: ShownLevel;
  private readonly named = new Map<string, Named>();

  /** `root` is where every line goes; `level` is the root level (the config's `logging-level`); `names` are created at once (listed from the start). */
  constructor(
    private readonly root: Logger,
    level: ShownLevel,
    names: readonly string[] = [],
  ) {
    this.rootLevel = level;
    root.level = PINO_LEVEL[level];
    for (const name of names) this.get(name);
  }

  /** The logger of a name (created on first use, `{"module": name}` on each line). */
  get(name: string): Logger {
    if (isRoot(name)) return this.root;
    let entry = this.named.get(name);
    if (entry === undefined) {
      entry = { logger: this.root.child({ module: name }), own: undefined };
      this.named.set(name, entry);
      entry.logger.level = PINO_LEVEL[this.effective(name)];
    }
    return entry.logger;
  }

  /** Every logger with its effective level: `ROOT` first, then the names in order. */
  levels(): Array<{ name: string; level: ShownLevel }> {
    const names = [...this.named.keys()].sort();
    return [{ name: ROOT_LOGGER, level: this.rootLevel }, ...names.map((name) => ({ name, level: this.effective(name) }))];
  }

  /** Sets the level of a logger (creating the name if it is new, as logback does) and of everything it governs. */
  setLevel(name: string, level: LogLevelName): void {
    if (isRoot(name)) {
      this.rootLevel = level;
      this.root.level = PINO_LEVEL[level];
    } else {
      this.get(name);
      this.named.get(name)!.own = level;
    }
    for (const [n, entry] of this.named) entry.logger.level = PINO_LEVEL[this.effective(n)];
  }

  /** The level in force for a name: its own, else its nearest dotted ancestor's, else the root's. */
  effective(name: string): ShownLevel {
    if (isRoot(name)) return this.rootLevel;
    for (let n: string | undefined = name; n !== undefined; n = parentName(n)) {
      const own = this.named.get(n)?.own;
      if (own !== undefined) return own;
    }
    return this.rootLevel;
  }
}

function isRoot(name: string): boolean {
  return name.toUpperCase() === ROOT_LOGGER;
}

function parentName(name: string): string | undefined {
  const i = name.lastIndexOf('.');
  return i > 0 ? name.slice(0, i) : undefined;
}
