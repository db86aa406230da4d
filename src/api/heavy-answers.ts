/**
 * Heavy answers of the REST routes (block ranges and full blocks, long lists) built through
 * the server's HeavyReads (heavy-reads.ts: a few at a time, in slices, within a byte budget)
 * and streamed as JSON.
 */
import type { JsonPieces } from './heavy-reads.js';
import { JSON_CONTENT_TYPE, wantsInt64AsString } from './json-io.js';
import { StreamReply, type ApiContext } from './routing.js';

/** What a heavy answer writes: the pieces and whether int64 values go as strings (the request's Accept). */
export type HeavyJsonBuilder = (out: JsonPieces, int64AsString: boolean) => Promise<void>;

/** A heavy JSON answer for a request with this Accept; `budget` false for one block, which WE answers whatever its size. */
export async function heavyJsonAnswer(
  ctx: ApiContext,
  accept: string | undefined,
  build: HeavyJsonBuilder,
  options: { budget?: boolean } = {},
): Promise<StreamReply> {
  const int64AsString = wantsInt64AsString(accept);
  const built = await ctx.heavyReads.answer((out) => build(out, int64AsString), options);
  return new StreamReply(JSON_CONTENT_TYPE, built.length, built.body);
}

/**
 * Writes a JSON array of `items` (taken one by one as it goes), each made by `json`, giving
 * the event loop a turn after any item that ends the slice's time (checked after every item:
 * an item can be a large transaction).
 */
export async function writeJsonArray<T>(out: JsonPieces, items: Iterable<T>, json: (item: T) => unknown, int64AsString: boolean): Promise<void> {
  out.write('[');
  let first = true;
  for (const item of items) {
    if (!first) out.write(',');
    first = false;
    out.json(json(item), int64AsString);
    if (out.sliceOver) await out.pause();
  }
  out.write(']');
}
