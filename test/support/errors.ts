import assert from 'node:assert/strict';
import { WeError } from '../../src/errors/catalogue.js';

/** Runs `f`, asserts it throws a WeError with WE code `code` (and message, field) and returns it. */
export function expectWeError(f: () => unknown, code: number, message?: string | RegExp, field?: string): WeError {
  let thrown: unknown;
  try {
    f();
  } catch (e) {
    thrown = e;
  }
  assert.ok(thrown !== undefined, 'expected an error, got none');
  assert.ok(thrown instanceof WeError, `expected a WeError, got ${thrown instanceof Error ? thrown.stack : JSON.stringify(thrown)}`);
  assert.equal(thrown.code, code, `code of "${thrown.message}"`);
  if (typeof message === 'string') assert.equal(thrown.message, message);
  else if (message !== undefined) assert.match(thrown.message, message);
  if (field !== undefined) assert.equal(thrown.field, field, `field of "${thrown.message}"`);
  assert.ok(thrown.status >= 400 && thrown.status < 500, `status ${thrown.status}`);
  return thrown;
}

/** Runs `f`; if it throws, the error must be a WeError (a 4xx), never a crash. */
export function onlyWeErrors(f: () => unknown): void {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof WeError, `expected a WeError, got ${e instanceof Error ? e.stack : String(e)}`);
    assert.ok(e.status >= 400 && e.status < 500);
  }
}
