/**
 * One check tells an internal failure from a WE error: what the layers throw for bad bytes,
 * encodings, JSON, config values and handshakes is an InternalError (its own class, name and
 * message kept); the catalogue's WE errors are not, and an InternalError is no WeError.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeBase58, EncodingError } from '../../src/crypto/encoding.js';
import { DerError, readDer } from '../../src/crypto/pki/der.js';
import { invalidAddress, WeError } from '../../src/errors/catalogue.js';
import { InternalError } from '../../src/errors/internal.js';
import { decodeHandshake, HandshakeError } from '../../src/network/handshake.js';
import { ConfigError, parseDuration } from '../../src/config/values.js';
import { JsonSyntaxError, parseJson } from '../../src/protocol/json.js';

/** What `fn` throws. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  assert.fail('nothing was thrown');
}

describe('internal errors', () => {
  it('are InternalErrors, not WE errors, in every layer, with their own class and message', () => {
    const cases: [unknown, new (...args: never[]) => Error][] = [
      [thrown(() => decodeBase58('0OIl')), EncodingError],
      [thrown(() => readDer(Uint8Array.of(0x30, 0x05, 0x01))), DerError],
      [thrown(() => parseJson('{"a": ')), JsonSyntaxError],
      [thrown(() => decodeHandshake(Uint8Array.of(1, 2, 3))), HandshakeError],
      [thrown(() => parseDuration('soon', 'node.waves-crypto.timeout')), ConfigError],
    ];
    for (const [e, cls] of cases) {
      assert.ok(e instanceof cls, String(e));
      assert.ok(e instanceof InternalError, `${cls.name} is an InternalError`);
      assert.ok(!(e instanceof WeError), `${cls.name} is no WeError`);
      assert.equal(e.name, cls.name);
      assert.notEqual(e.message, '');
    }
  });

  it('leave the WE errors of the catalogue apart', () => {
    const e = invalidAddress('wrong length');
    assert.ok(e instanceof WeError);
    assert.ok(!(e instanceof InternalError));
  });
});
