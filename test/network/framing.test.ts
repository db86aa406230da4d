import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  encodeFrame,
  FRAME_MAGIC,
  FrameDecoder,
  FrameError,
  MAX_FRAME_LENGTH,
  MAX_PAYLOAD,
  OutgoingFrames,
  type FramedMessage,
} from '../../src/network/framing.js';
import { MessageCode } from '../../src/network/types.js';

const CODES = Object.values(MessageCode);

function split(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let at = 0;
  for (const p of points) {
    out.push(bytes.subarray(at, p));
    at = p;
  }
  out.push(bytes.subarray(at));
  return out;
}

function decodeAll(chunks: Uint8Array[], decoder = new FrameDecoder()): FramedMessage[] {
  return chunks.flatMap((c) => decoder.feed(c));
}

function frameError(f: () => unknown, kind: FrameError['kind']): void {
  assert.throws(f, (e: unknown) => e instanceof FrameError && e.kind === kind);
}

const messageArb = fc
  .constantFrom(...CODES)
  .chain((code) => fc.uint8Array({ maxLength: Math.min(MAX_PAYLOAD.get(code)!, 3000) }).map((payload) => ({ code, payload })));

describe('framing', () => {
  it('writes WE’s layout: length prefix, magic, code, length, SHA-256 checksum, payload', () => {
    const payload = Uint8Array.of(1, 2, 3);
    const frame = encodeFrame(MessageCode.Score, payload);
    const sha = createHash('sha256').update(payload).digest();
    const expected = Buffer.concat([
      Buffer.from([0, 0, 0, 16]),
      Buffer.from([0x12, 0x34, 0x56, 0x78]),
      Buffer.from([24]),
      Buffer.from([0, 0, 0, 3]),
      sha.subarray(0, 4),
      Buffer.from(payload),
    ]);
    assert.deepEqual(frame, expected);
    // Empty payload: no checksum, no payload.
    assert.deepEqual(encodeFrame(MessageCode.GetPeers, new Uint8Array(0)), Buffer.from([0, 0, 0, 9, 0x12, 0x34, 0x56, 0x78, 3, 0, 0, 0, 0]));
  });

  it('encodes a message going to many peers once, with encodeFrame’s bytes; the same payload under another code gets its own frame', () => {
    const frames = new OutgoingFrames();
    const payload = Uint8Array.of(9, 8, 7);
    const first = frames.frame(MessageCode.Transaction, payload);
    assert.deepEqual(first, encodeFrame(MessageCode.Transaction, payload));
    assert.equal(frames.frame(MessageCode.Transaction, payload), first, 'the second peer gets the same frame');
    assert.deepEqual(frames.frame(MessageCode.Score, payload), encodeFrame(MessageCode.Score, payload));
    // Another payload object with the same bytes is framed on its own, with the same bytes.
    assert.deepEqual(frames.frame(MessageCode.Transaction, Uint8Array.of(9, 8, 7)), first);
  });

  it('decodes any sequence of messages however the bytes are split (property)', () => {
    fc.assert(
      fc.property(fc.array(messageArb, { maxLength: 6 }), fc.array(fc.nat(), { maxLength: 12 }), (messages, cuts) => {
        const bytes = Buffer.concat(messages.map((m) => encodeFrame(m.code, m.payload)));
        const decoder = new FrameDecoder();
        const got = decodeAll(split(bytes, cuts), decoder);
        assert.equal(got.length, messages.length);
        got.forEach((g, i) => {
          assert.equal(g.code, messages[i]!.code);
          assert.deepEqual(Buffer.from(g.payload), Buffer.from(messages[i]!.payload));
        });
        assert.equal(decoder.buffered, 0);
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a frame whose payload or checksum was altered (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(MessageCode.Transaction, MessageCode.Block, MessageCode.Signatures),
        fc.uint8Array({ minLength: 1, maxLength: 500 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (code, payload, at, flip) => {
          const frame = Buffer.from(encodeFrame(code, payload));
          const i = 13 + (at % (frame.length - 13));
          frame[i] = frame[i]! ^ flip;
          frameError(() => new FrameDecoder().feed(frame), 'checksum');
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses a bad magic, an unknown code, a length mismatch, a negative length', () => {
    const good = encodeFrame(MessageCode.Transaction, Uint8Array.of(9, 9, 9));
    const badMagic = Buffer.from(good);
    badMagic.writeInt32BE(0x12345679, 4);
    frameError(() => new FrameDecoder().feed(badMagic), 'magic');

    const unknown = Buffer.from(good);
    unknown[8] = 99;
    frameError(() => new FrameDecoder().feed(unknown), 'unknown-code');

    const mismatch = Buffer.from(good);
    mismatch.writeInt32BE(2, 9);
    frameError(() => new FrameDecoder().feed(mismatch), 'payload-length');

    const negative = Buffer.from(good);
    negative.writeInt32BE(-1, 9);
    frameError(() => new FrameDecoder().feed(negative), 'payload-length');

    const tinyFrame = Buffer.from(good);
    tinyFrame.writeInt32BE(3, 0);
    frameError(() => new FrameDecoder().feed(tinyFrame), 'frame-length');
  });

  it('refuses an oversize frame from its header alone, before buffering the body', () => {
    const header = Buffer.alloc(13);
    header.writeInt32BE(9 + 4 + 10_000_000, 0);
    header.writeInt32BE(FRAME_MAGIC, 4);
    header[8] = MessageCode.Transaction;
    header.writeInt32BE(10_000_000, 9);
    frameError(() => new FrameDecoder().feed(header), 'too-large');

    const huge = Buffer.from(header);
    huge.writeInt32BE(MAX_FRAME_LENGTH + 1, 0);
    frameError(() => new FrameDecoder().feed(huge), 'frame-length');

    // Score above its cap, GetPeers with a payload
    frameError(() => new FrameDecoder().feed(encodeFrame(MessageCode.Score, new Uint8Array(257))), 'too-large');
    frameError(() => new FrameDecoder().feed(encodeFrame(MessageCode.GetPeers, new Uint8Array(1))), 'too-large');
  });

  it('stays failed after an error and honours a custom cap table', () => {
    const d = new FrameDecoder({ maxPayload: new Map([[MessageCode.Score, 4]]) });
    assert.deepEqual(d.feed(encodeFrame(MessageCode.Score, Uint8Array.of(1, 2, 3, 4))).length, 1);
    frameError(() => d.feed(encodeFrame(MessageCode.Transaction, Uint8Array.of(1))), 'unknown-code');
    frameError(() => d.feed(encodeFrame(MessageCode.Score, Uint8Array.of(1))), 'unknown-code');
  });

  it('caps follow WE: 150 KiB transactions, 4-byte count + ids for signatures, 64-byte MissingBlock', () => {
    assert.equal(MAX_PAYLOAD.get(MessageCode.Transaction), 150 * 1024);
    assert.ok(MAX_PAYLOAD.get(MessageCode.GetSignatures)! >= 4 + 101 * 64);
    assert.equal(MAX_PAYLOAD.get(MessageCode.MissingBlock), 64);
    assert.ok(MAX_PAYLOAD.get(MessageCode.Block)! >= 1024 * 1024);
    assert.ok(MAX_PAYLOAD.get(MessageCode.Block)! <= MAX_FRAME_LENGTH);
  });
});
