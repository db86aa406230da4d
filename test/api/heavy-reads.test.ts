/**
 * The writer of heavy answers (src/api/heavy-reads.ts JsonPieces, heavy-answers.ts
 * writeJsonArray): the bytes it gives are the UTF-8 of the text written, whatever the pieces'
 * sizes and characters; the byte budget refuses exactly what passes it; and an array's writer
 * gives the event loop a turn as soon as a slice has used its time.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DEFAULT_HEAVY_READ_LIMITS, HeavyReads, JsonPieces, TurnGate } from '../../src/api/heavy-reads.js';
import { writeJsonArray } from '../../src/api/heavy-answers.js';
import { stringifyJson } from '../../src/protocol/json.js';
import { WeError } from '../../src/errors/catalogue.js';

/** A deterministic generator (xorshift32), so a failure replays. */
function randomness(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** Text of `n` characters mixing ASCII, 2- and 3-byte characters and surrogate pairs (4 bytes). */
function mixedText(random: () => number, n: number): string {
  const kinds = ['a', 'z', '"', 'é', 'Ж', '€', '中', '😀', '\u{10348}'];
  let out = '';
  while (out.length < n) out += random() < 0.7 ? String.fromCharCode(0x20 + Math.floor(random() * 95)) : kinds[Math.floor(random() * kinds.length)]!;
  return out;
}

const concat = (out: JsonPieces): Buffer => Buffer.concat(out.chunks);

/** Counts the turns of the event loop (a setImmediate chain) until stopped: `now()` is the current turn's number. */
function turnCounter(): { now: () => number; stop: () => void } {
  let turn = 0;
  let counting = true;
  const count = (): void => {
    turn++;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  return { now: () => turn, stop: () => void (counting = false) };
}

describe('heavy answers: JsonPieces', () => {
  it('gives the UTF-8 of everything written, in order, for pieces of every size and character (chunk boundaries included)', () => {
    const random = randomness(11);
    for (let round = 0; round < 20; round++) {
      const out = new JsonPieces(Infinity, 5);
      const pieces: string[] = [];
      for (let i = 0; i < 300; i++) {
        // Mostly short pieces, some longer than a whole chunk (over 1 MiB).
        const size = random() < 0.02 ? 300_000 + Math.floor(random() * 400_000) : Math.floor(random() * 2000);
        const piece = mixedText(random, size);
        pieces.push(piece);
        out.write(piece);
      }
      const expected = Buffer.from(pieces.join(''), 'utf8');
      assert.equal(out.bytes, expected.length);
      assert.ok(concat(out).equals(expected), `round ${round}`);
    }
  });

  it('writes any value as stringifyJson does, byte for byte, in both int64 renderings (escapes, non-ASCII, lone surrogates, bigint, toJSON, undefined and function members)', () => {
    const special = fc.constantFrom<unknown>(
      'plain',
      'quo"te',
      'back\\slash',
      'ctl\u0001\n\t',
      'del\u007f',
      'é中😀',
      '\ud800 lone',
      '',
      NaN,
      Infinity,
      -0,
      1e21,
      0.1,
      -(2n ** 63n),
      2n ** 64n,
      undefined,
      () => 1,
      Symbol('s'),
      new Date(0),
      { toJSON: () => ({ inner: 5n }) },
      { a: undefined, b: () => 1, 'k"ey': 1, ключ: [undefined, () => 2, null] },
    );
    const values = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.string({ unit: 'binary' }),
        fc.double(),
        fc.bigInt(),
        fc.boolean(),
        fc.constant(null),
        special,
        tie('array'),
        tie('object'),
      ),
      array: fc.array(tie('value'), { maxLength: 5 }),
      object: fc.dictionary(fc.string({ unit: 'binary', maxLength: 6 }), tie('value'), { maxKeys: 5 }),
    })).value;
    fc.assert(
      fc.property(values, fc.boolean(), (value, int64AsString) => {
        const out = new JsonPieces(Infinity, 5);
        out.json(value, int64AsString);
        assert.equal(concat(out).toString('utf8'), stringifyJson(value, { int64AsString }));
        assert.equal(out.bytes, Buffer.byteLength(stringifyJson(value, { int64AsString })));
      }),
      { numRuns: 2000 },
    );
  });

  it('a value written whole is held to the byte budget like a piece: exactly up to it, refused past it', () => {
    const value = { id: 'abc', amount: 10n, list: ['é', 1, true] };
    const size = Buffer.byteLength(stringifyJson(value));
    const fits = new JsonPieces(size, 5);
    fits.json(value, false);
    assert.equal(fits.bytes, size);
    assert.throws(
      () => new JsonPieces(size - 1, 5).json(value, false),
      (e: unknown) => e instanceof WeError && e.code === 10,
    );
  });

  it('an empty answer has no bytes; a lone empty piece changes nothing', () => {
    const out = new JsonPieces(Infinity, 5);
    out.write('');
    assert.equal(out.bytes, 0);
    assert.deepEqual(out.chunks, []);
  });

  it('refuses with WE’s error 10 the piece that would pass the byte budget, counting bytes (not characters); up to the budget is fine', () => {
    // 'é' is 2 bytes: 5 of them are 10 bytes.
    const exact = new JsonPieces(10, 5);
    exact.write('éé');
    exact.write('ééé');
    assert.equal(exact.bytes, 10);
    assert.throws(
      () => exact.write('a'),
      (e: unknown) => e instanceof WeError && e.code === 10 && /^Too big sequences requested: the answer would exceed 10 bytes; ask for fewer/.test(e.message),
    );
    // A piece whose characters fit the budget but whose bytes do not.
    const multibyte = new JsonPieces(7, 5);
    assert.throws(
      () => multibyte.write('中中中'),
      (e: unknown) => e instanceof WeError && e.code === 10,
    );
    // Infinity: never refused.
    const unbounded = new JsonPieces(Infinity, 5);
    unbounded.write('x'.repeat(3_000_000));
    assert.equal(unbounded.bytes, 3_000_000);
  });
});

describe('heavy answers: writeJsonArray', () => {
  it('writes the same text as stringifyJson of the whole array, in both int64 renderings', async () => {
    const random = randomness(5);
    const items = Array.from({ length: 500 }, (_, i) => ({
      i,
      amount: BigInt(Math.floor(random() * 2 ** 53)) * 1000n,
      text: mixedText(random, Math.floor(random() * 50)),
      list: [1n, null, 'x'],
    }));
    for (const int64AsString of [false, true]) {
      const out = new JsonPieces(Infinity, 5);
      await writeJsonArray(out, items, (item) => item, int64AsString);
      assert.equal(concat(out).toString('utf8'), stringifyJson(items, { int64AsString }));
    }
    const empty = new JsonPieces(Infinity, 5);
    await writeJsonArray(empty, [], (item) => item, false);
    assert.equal(concat(empty).toString('utf8'), '[]');
  });

  it('gives the event loop a turn once a slice has used its time: no turn holds more items than fit in the slice', async () => {
    // A clock that each item advances by 2 ms; slices of 5 ms hold 3 items (2, 4, 6 ms: the third ends it).
    let clock = 0;
    const out = new JsonPieces(Infinity, 5, () => clock);
    const turns = turnCounter();
    const turnOfItem: number[] = [];
    await writeJsonArray(
      out,
      Array.from({ length: 30 }, (_, i) => i),
      (i) => {
        clock += 2;
        turnOfItem.push(turns.now());
        return i;
      },
      false,
    );
    turns.stop();
    const itemsPerTurn = new Map<number, number>();
    for (const t of turnOfItem) itemsPerTurn.set(t, (itemsPerTurn.get(t) ?? 0) + 1);
    assert.ok(Math.max(...itemsPerTurn.values()) <= 3, `items per turn: ${[...itemsPerTurn.values()].join(',')}`);
    assert.ok(itemsPerTurn.size >= 10, `30 items of 2 ms in slices of 5 ms take at least 10 turns, took ${itemsPerTurn.size}`);
    assert.equal(concat(out).toString('utf8'), JSON.stringify(Array.from({ length: 30 }, (_, i) => i)));
  });

  it('while the clock stays within the slice, the items are written without giving up the turn', async () => {
    const out = new JsonPieces(Infinity, 5, () => 0);
    let turns = 0;
    setImmediate(() => turns++);
    await writeJsonArray(
      out,
      Array.from({ length: 1000 }, (_, i) => i),
      (i) => i,
      false,
    );
    assert.equal(turns, 0);
  });
});

describe('heavy answers: builders take turns', () => {
  it('a TurnGate lets one waiting builder go on per turn of the event loop, in the order they paused', async () => {
    const gate = new TurnGate();
    const turns = turnCounter();
    const resumed: Array<[string, number]> = [];
    await Promise.all(['a', 'b', 'c'].map((name) => gate.next().then(() => void resumed.push([name, turns.now()]))));
    turns.stop();
    assert.deepEqual(
      resumed.map(([name]) => name),
      ['a', 'b', 'c'],
    );
    const at = resumed.map(([, t]) => t);
    assert.equal(new Set(at).size, 3, `one per turn, resumed in turns ${at.join(',')}`);
  });

  it('two heavy answers built at once use one slice per turn between them, and both come out whole', async () => {
    // Each item advances the clock by 2 ms: a slice of 5 ms holds 3 items, whoever's they are.
    let clock = 0;
    const reads = new HeavyReads({ ...DEFAULT_HEAVY_READ_LIMITS, concurrent: 2 }, () => clock);
    const turns = turnCounter();
    const itemsInTurn = new Map<number, number>();
    const build = (name: string) =>
      reads.answer(async (out) => {
        await writeJsonArray(
          out,
          Array.from({ length: 30 }, (_, i) => `${name}${i}`),
          (x) => {
            clock += 2;
            itemsInTurn.set(turns.now(), (itemsInTurn.get(turns.now()) ?? 0) + 1);
            return x;
          },
          false,
        );
      });
    const answers = await Promise.all([build('a'), build('b')]);
    turns.stop();
    for (const [i, name] of ['a', 'b'].entries()) {
      const body = answers[i]!.body;
      const chunks: Buffer[] = [];
      if (Buffer.isBuffer(body)) chunks.push(body);
      else for await (const c of body) chunks.push(c as Buffer);
      assert.equal(Buffer.concat(chunks).toString('utf8'), JSON.stringify(Array.from({ length: 30 }, (_, j) => `${name}${j}`)));
    }
    // The first slice of each starts in the turn the answers were asked for; after that, one slice per turn in all.
    const later = [...itemsInTurn].filter(([t]) => t > 0).map(([, n]) => n);
    assert.ok(Math.max(...later) <= 3, `items per turn: ${later.join(',')}`);
  });
});

describe('heavy answers: what HeavyReads.answer gives', () => {
  const bytesOf = async (body: Buffer | AsyncIterable<unknown>): Promise<Buffer> => {
    if (Buffer.isBuffer(body)) return body;
    const chunks: Buffer[] = [];
    for await (const c of body) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  };

  it('an answer that fits one chunk is that buffer (no stream); a longer one streams its chunks; both are the text written, at the length given', async () => {
    const reads = new HeavyReads();
    for (const [n, whole] of [
      [10, true],
      [1_000, true],
      [100_000, false],
    ] as const) {
      const items = Array.from({ length: n }, (_, i) => `item ${i} é`);
      const built = await reads.answer((out) => writeJsonArray(out, items, (x) => x, false));
      assert.equal(Buffer.isBuffer(built.body), whole, `${n} items`);
      const text = JSON.stringify(items);
      assert.equal(built.length, Buffer.byteLength(text));
      assert.equal((await bytesOf(built.body)).toString('utf8'), text);
    }
  });
});
