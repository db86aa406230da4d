/**
 * The reads of one execution, for WE's MVCC rule (§1.5 step 6): every read a contract makes
 * of the state it executes on — keys, balances, contract info, anything the execution view
 * answers — is logged with what it answered. Before its result is applied the log is
 * replayed on the state as it is then: when any answer differs (a 105 applied meanwhile
 * changed a key or balance the execution read), the result is stale and the transaction
 * runs again.
 */
import { equalBytes } from '../crypto/encoding.js';
import type { ContractExecutionView } from './state.js';

interface Read {
  readonly method: string;
  readonly args: readonly unknown[];
  readonly answer: unknown;
}

/** Structural equality of the values state reads answer (primitives, bigint, bytes, arrays, plain records). */
export function sameAnswer(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof Uint8Array || b instanceof Uint8Array) return a instanceof Uint8Array && b instanceof Uint8Array && equalBytes(a, b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => sameAnswer(x, b[i]));
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameAnswer((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

export class ExecutionReads {
  private readonly reads: Read[] = [];
  /** The view the execution reads through: the state's, every call logged. */
  readonly view: ContractExecutionView;

  constructor(private readonly state: ContractExecutionView) {
    this.view = new Proxy(state, {
      get: (target, property) => {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function' || typeof property !== 'string') return value;
        const method = value as (...args: unknown[]) => unknown;
        return (...args: unknown[]): unknown => {
          const answer = method.apply(target, args);
          // Arrays are copied: a later write must not change what was read.
          this.reads.push({ method: property, args, answer: Array.isArray(answer) ? [...(answer as unknown[])] : answer });
          return answer;
        };
      },
    });
  }

  /** Whether every read answers the same on `on` (by default the state it was made on, as it is now). */
  unchanged(on: ContractExecutionView = this.state): boolean {
    const state = on as unknown as Record<string, (...args: unknown[]) => unknown>;
    return this.reads.every((r) => sameAnswer(state[r.method]!.apply(on, r.args as unknown[]), r.answer));
  }
}
