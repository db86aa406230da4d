import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ByteReader } from '../../src/protocol/bytes.js';

describe('ByteReader byte fields', () => {
  it('are copies by default, also of a Buffer and through a reader within', () => {
    const buf = Buffer.from([1, 2, 3, 4, 5, 6]);
    const r = new ByteReader(buf);
    const a = r.bytes(2);
    const b = r.within(2, 6).bytes(3);
    buf.fill(0);
    assert.deepEqual([...a, ...b], [1, 2, 3, 4, 5]);
  });

  it('are plain Uint8Array views into the buffer for a sharing reader, also through a reader within', () => {
    const buf = Buffer.from([1, 2, 3, 4, 5, 6]).subarray(1);
    const r = ByteReader.sharing(buf);
    const a = r.bytes(2);
    const inner = r.within(2, 5);
    assert.equal(inner.shares, true);
    assert.equal(inner.i8(), 4);
    const b = inner.bytes(2);
    assert.deepEqual([a, b], [new Uint8Array([2, 3]), new Uint8Array([5, 6])]);
    assert.equal(Object.getPrototypeOf(b), Uint8Array.prototype);
    buf[0] = 9;
    assert.equal(a[0], 9, 'a view sees the buffer');
    assert.deepEqual(r.viewOf(3, 5), new Uint8Array([5, 6]));
  });
});
