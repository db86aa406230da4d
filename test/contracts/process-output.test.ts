/**
 * A contract process's output reaches the node log as records of whole lines, one per read
 * (forwardLines): nothing is lost or split mid-line, and a line without its end is held.
 */
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { forwardLines } from '../../src/contracts/output-lines.js';

async function recordsOf(chunks: readonly string[]): Promise<string[]> {
  const stream = new PassThrough();
  const records: string[] = [];
  forwardLines(stream, (text) => records.push(text));
  for (const c of chunks) {
    stream.write(c);
    await nextTurn();
  }
  stream.end();
  await new Promise((r) => stream.once('end', r));
  return records;
}

describe('contract process output in the node log', () => {
  it('logs the whole lines of a read as one record, without their breaks', async () => {
    assert.deepEqual(await recordsOf(['a\nb\r\nc\n']), ['a\nb\nc']);
  });

  it('holds a line split across reads until its end, and logs a last line without a break at the end', async () => {
    assert.deepEqual(await recordsOf(['first par', 't\nsecond', ' line\nno end']), ['first part', 'second line', 'no end']);
  });

  it('logs a line longer than 64 KiB without waiting for its end', async () => {
    const long = 'x'.repeat(70 * 1024);
    const records = await recordsOf([long, 'y\n']);
    assert.deepEqual(records, [long, 'y']);
  });

  it('keeps multi-byte characters split between reads whole', async () => {
    const stream = new PassThrough();
    const records: string[] = [];
    forwardLines(stream, (text) => records.push(text));
    const bytes = Buffer.from('привет\n');
    stream.write(bytes.subarray(0, 3));
    await nextTurn();
    stream.end(bytes.subarray(3));
    await new Promise((r) => stream.once('end', r));
    assert.deepEqual(records, ['привет']);
  });
});
