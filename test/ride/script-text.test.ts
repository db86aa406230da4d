/**
 * WE's `scriptText`: the Scala case-class rendering of a script expression. The hash of
 * long byte vectors was checked against Scala's own scala.util.hashing.MurmurHash3
 * (finalizeHash(mix(stringHash("ByteVector"), bytesHash(bytes)), size), as scodec computes
 * ByteVector.hashCode) run on a JVM.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { E } from '../../src/ride/expr.js';
import { byteVectorHashCode, byteVectorText, scriptText } from '../../src/ride/script-text.js';

describe('script text', () => {
  it('prints constants, references, getters and calls as Scala case classes', () => {
    assert.equal(scriptText(E.TRUE), 'TRUE');
    assert.equal(scriptText(E.FALSE), 'FALSE');
    assert.equal(scriptText(E.native(0, E.getter(E.ref('tx'), 'fee'), E.long(100))), 'FUNCTION_CALL(Native(0),List(GETTER(REF(tx),fee), CONST_LONG(100)))');
    assert.equal(scriptText(E.user('throw')), 'FUNCTION_CALL(User(throw),List())');
    assert.equal(
      scriptText(E.block('x', E.long(-5), E.if(E.ref('x'), E.str('a b'), E.bytes([1, 2, 0xff])))),
      'BLOCK(LET(x,CONST_LONG(-5)),IF(REF(x),CONST_STRING(a b),CONST_BYTEVECTOR(ByteVector(3 bytes, 0x0102ff))))',
    );
    assert.equal(scriptText(E.bytes([])), 'CONST_BYTEVECTOR(ByteVector(empty))');
  });

  it('prints byte vectors of 512 bytes and more by their hash, as scodec does', () => {
    const b600 = Uint8Array.from({ length: 600 }, (_, i) => (i * 7 + 3) & 0xff);
    const b1023 = Uint8Array.from({ length: 1023 }, (_, i) => (i * 13 + 1) & 0xff);
    assert.equal(byteVectorHashCode(b600), -1314288261);
    assert.equal(byteVectorHashCode(b1023), -147782296);
    assert.equal(byteVectorText(b600), 'ByteVector(600 bytes, #-1314288261)');
    assert.match(byteVectorText(new Uint8Array(511)), /^ByteVector\(511 bytes, 0x(00){511}\)$/);
  });

  it('prints deep expressions without exhausting the stack', () => {
    let expr = E.TRUE;
    for (let i = 0; i < 50_000; i++) expr = E.native(1, expr);
    const text = scriptText(expr);
    assert.ok(text.startsWith('FUNCTION_CALL(Native(1),List(FUNCTION_CALL('));
    assert.ok(text.endsWith('TRUE' + '))'.repeat(50_000)));
  });
});
