/**
 * A contract's output (a process's stdout/stderr, a container's demultiplexed logs) into the
 * node log: one record per read of whole lines. SDK 1.0.14 prints ~57 lines per call it runs;
 * a record per line cost the node ~1 ms of CPU per call, a read carries them in a few records.
 */
import type { Readable } from 'node:stream';

/** A partial line longer than this is logged as it is rather than held for its end. */
const MAX_HELD_LINE = 64 * 1024;

/**
 * Calls `record` with the whole lines of each read of `stream` (joined by `\n`, without the
 * last line break and without `\r` before a break); a partial last line waits for the next
 * read (or the end, or MAX_HELD_LINE characters).
 */
export function forwardLines(stream: Readable, record: (text: string) => void): void {
  let held = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const text = held + chunk;
    const end = text.lastIndexOf('\n');
    if (end === -1) {
      held = text;
      if (held.length > MAX_HELD_LINE) {
        record(held);
        held = '';
      }
      return;
    }
    held = text.slice(end + 1);
    const lines = text.slice(0, end).replace(/\r(?=\n|$)/g, '');
    if (lines !== '') record(lines);
  });
  stream.on('end', () => {
    if (held !== '') record(held.replace(/\r$/, ''));
    held = '';
  });
}
