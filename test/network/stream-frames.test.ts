/**
 * Stream frames (WE's ChunkedStream for large confidential items) between the framed
 * messages of a connection: the decoder with `streamFrames` tells them apart in any split,
 * the end frame is four zero bytes, and without `streamFrames` they stay malformed frames.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeFrame, encodeStreamFrame, FrameDecoder, FrameError, STREAM_FRAME, STREAM_FRAME_MAGIC } from '../../src/network/framing.js';
import { MessageCode } from '../../src/network/types.js';

const chunk = (bytes: number[]): Uint8Array => {
  const out = Buffer.alloc(4 + bytes.length);
  out.writeUInt32BE(STREAM_FRAME_MAGIC, 0);
  out.set(bytes, 4);
  return out;
};

describe('stream frames', () => {
  const request = new Uint8Array(64).fill(7);
  const wire = Buffer.concat([
    encodeFrame(MessageCode.PrivateDataRequest, request),
    ...encodeStreamFrame(chunk([1, 2, 3])),
    ...encodeStreamFrame(chunk([])),
    ...encodeStreamFrame(new Uint8Array(0)),
    encodeFrame(MessageCode.PrivacyInventoryRequest, request),
  ]);

  it('are told apart from messages in every split of the bytes', () => {
    for (const step of [1, 3, 5, 7, 13, wire.length]) {
      const decoder = new FrameDecoder({ streamFrames: true });
      const got = [];
      for (let at = 0; at < wire.length; at += step) got.push(...decoder.feed(wire.subarray(at, at + step)));
      assert.deepEqual(
        got.map((m) => [m.code, Buffer.from(m.payload).toString('hex')]),
        [
          [MessageCode.PrivateDataRequest, Buffer.from(request).toString('hex')],
          [STREAM_FRAME, Buffer.from(chunk([1, 2, 3])).toString('hex')],
          [STREAM_FRAME, Buffer.from(chunk([])).toString('hex')],
          [STREAM_FRAME, ''],
          [MessageCode.PrivacyInventoryRequest, Buffer.from(request).toString('hex')],
        ],
        `split every ${step} bytes`,
      );
      assert.equal(decoder.buffered, 0);
    }
  });

  it('the end frame is a zero length prefix only', () => {
    assert.deepEqual(Buffer.concat(encodeStreamFrame(new Uint8Array(0))), Buffer.alloc(4));
  });

  it('are malformed frames on a decoder that does not take them', () => {
    assert.throws(
      () => new FrameDecoder().feed(Buffer.concat(encodeStreamFrame(chunk(Array.from({ length: 20 }, (_, i) => i))))),
      (e: unknown) => e instanceof FrameError && e.kind === 'magic',
    );
    assert.throws(() => new FrameDecoder().feed(Buffer.concat([Buffer.alloc(4), encodeFrame(MessageCode.Score, new Uint8Array([1]))])), FrameError);
  });

  it('refuses a stream frame longer than the frame cap', () => {
    const header = Buffer.alloc(8);
    header.writeInt32BE(64, 0);
    header.writeUInt32BE(STREAM_FRAME_MAGIC, 4);
    assert.throws(
      () => new FrameDecoder({ streamFrames: true, maxFrameLength: 32 }).feed(header),
      (e: unknown) => e instanceof FrameError && e.kind === 'frame-length',
    );
  });
});
