/**
 * Key patterns (`matches`) run in linear time: Java's syntax where RE2 can run it, with the same
 * verdicts as a backtracking engine on the patterns both take (JavaScript's RegExp as the oracle
 * on a generated common subset), WE's 629 naming each feature that cannot run here, and long key
 * lists filtered in slices that give the event loop its turns.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { WeError } from '../../src/errors/catalogue.js';
import { KeyPattern, keysMatching, MAX_INSTRUCTIONS, MAX_SOURCE_LENGTH, TimeSlices, type LoopPacer } from '../../src/state/key-pattern.js';

const refused = (source: string, reason?: RegExp): void => {
  assert.throws(
    () => KeyPattern.compile(source),
    (e: unknown) => {
      assert.ok(e instanceof WeError, String(e));
      assert.equal(e.code, 629);
      assert.equal(e.status, 400);
      assert.ok(e.message.startsWith(`Keys filter parameter has invalid regex pattern '${source}'`), e.message);
      if (reason !== undefined) assert.match(e.message, reason);
      else assert.equal(e.message, `Keys filter parameter has invalid regex pattern '${source}'`, 'a syntax error gets WE’s message alone');
      return true;
    },
    source,
  );
};

describe('key patterns', () => {
  it('match the whole key, as Java’s Pattern.matches does', () => {
    const cases: Array<[string, string, boolean]> = [
      ['key-.*', 'key-1', true],
      ['key-.*', 'a-key-1', false],
      ['b', 'abc', false],
      ['a|ab', 'ab', true],
      ['(?i)zeta', 'Zeta', true],
      ['[^a-z-0-9]+', 'ключ', true],
      ['[^a-z-0-9]+', 'key-1', false],
      ['user_\\d{3}', 'user_042', true],
      ['user_\\d{3}', 'user_0425', false],
      ['[\\w.]+@\\w+\\.ru', 'ivan.petrov@mail.ru', true],
      ['\\Qa.b\\E', 'a.b', true],
      ['\\Qa.b\\E', 'axb', false],
      ['(?<name>ab)+', 'abab', true],
      ['\\u0041\\u0062', 'Ab', true],
      ['\\p{Alpha}+', 'abcXYZ', true],
      ['\\p{Alpha}+', 'ab1', false],
      ['[\\p{Digit}_]+', '12_3', true],
      ['\\P{Digit}+', 'abc', true],
      ['\\p{IsL}+', 'ключ', true],
      ['\\p{L}+', 'ключ', true],
      ['[]a]+', ']a]', true],
      ['(?s).+', 'a\nb', true],
      ['.+', 'a\nb', false],
    ];
    for (const [source, key, expected] of cases) assert.equal(KeyPattern.compile(source).test(key), expected, `${source} on ${JSON.stringify(key)}`);
  });

  it('run in time linear in the key where a backtracking engine takes time exponential in it', () => {
    // JavaScript's RegExp (and Java's) would try 14^60 ways here; this answers at once, every time.
    const pattern = KeyPattern.compile(`(${Array(14).fill('.').join('|')})*!`);
    for (let n = 10; n <= 100; n += 10) assert.equal(pattern.test('a'.repeat(n)), false);
    assert.equal(KeyPattern.compile('(a*)*b').test('a'.repeat(100)), false);
    assert.equal(KeyPattern.compile('(x+x+)+y').test('x'.repeat(100)), false);
  });

  it('agree with a backtracking engine on the syntax both read (generated patterns and keys)', () => {
    const atom = fc.oneof(fc.constantFrom('a', 'b', 'c', '.', '[ab]', '[^a]', '[a-c]', '\\d', '\\w', '1'), fc.constantFrom('(?:a|b)', '(ab|c)', '(a|ab)'));
    const piece = fc.tuple(atom, fc.constantFrom('', '*', '+', '?', '{2}', '{1,3}', '*?', '+?')).map(([a, q]) => a + q);
    const branch = fc.array(piece, { minLength: 1, maxLength: 4 }).map((p) => p.join(''));
    const pattern = fc.array(branch, { minLength: 1, maxLength: 3 }).map((b) => b.join('|'));
    const key = fc.stringMatching(/^[abc1 ]{0,8}$/);
    fc.assert(
      fc.property(pattern, fc.array(key, { minLength: 1, maxLength: 8 }), (source, keys) => {
        const ours = KeyPattern.compile(source);
        const oracle = new RegExp(`^(?:${source})$`);
        for (const k of keys) assert.equal(ours.test(k), oracle.test(k), `${source} on ${JSON.stringify(k)}`);
      }),
      { numRuns: 300 },
    );
  });

  it('refuse what needs backtracking or reads otherwise here, with WE’s 629 naming the pattern and the feature', () => {
    refused('(?=a)a', /lookahead \(\?=/);
    refused('a(?!b)', /lookahead \(\?!/);
    refused('(?<=a)b', /lookbehind \(\?<=/);
    refused('(?<!a)b', /lookbehind \(\?<!/);
    refused('(?>a+)b', /atomic group/);
    refused('(a)\\1', /back-reference \\1/);
    refused('(?<n>a)\\k<n>', /named back-reference/);
    refused('a*+b', /possessive/);
    refused('a++', /possessive/);
    refused('a?+', /possessive/);
    refused('a{2,3}+', /possessive/);
    refused('[a-z&&[^b]]+', /class/);
    refused('[a-c[x-z]]', /class inside a class/);
    refused('[\\Qa]\\E]', /quoted run/);
    refused('\\Gabc', /\\G/);
    refused('abc\\Z', /\\Z/);
    refused('\\h+', /horizontal whitespace/);
    refused('\\v', /vertical whitespace/);
    refused('\\R', /linebreak/);
    refused('\\0101', /octal/);
    refused('(?x) a b', /inline flag x/);
    refused('(?U)\\w+', /inline flag U/);
    refused('(?iu:a)', /inline flag u/);
  });

  it('refuse malformed patterns with WE’s message alone', () => {
    refused('key-[');
    refused('a)(b');
    refused('(');
    refused('*a');
    refused('\\p{NoSuchClass}');
  });

  it('refuse patterns too long or too complex to run in bounded time', () => {
    refused('a'.repeat(MAX_SOURCE_LENGTH + 1), /longer than 1000 characters/);
    assert.equal(KeyPattern.compile('k'.repeat(100)).test('k'.repeat(100)), true);
    refused('(.?){500}.{500}', new RegExp(`too complex \\(more than ${MAX_INSTRUCTIONS} steps`));
    refused('((a{100}){100}){100}', /too complex/);
    assert.equal(KeyPattern.compile('[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}').test('123e4567-e89b-12d3-a456-426614174000'), true);
  });

  it('filter a long list in slices, giving the event loop a turn after each', async () => {
    let clock = 0;
    const pauses: number[] = [];
    const pacer: LoopPacer = {
      get sliceOver() {
        return clock >= 5;
      },
      pause() {
        pauses.push(clock);
        clock = 0;
        return Promise.resolve();
      },
    };
    const keys = Array.from({ length: 100 }, (_, i) => `key-${i}`);
    const pattern = KeyPattern.compile('key-\\d*7');
    const kept = await keysMatching(
      keys,
      (k) => {
        clock++;
        return k;
      },
      pattern,
      pacer,
    );
    assert.deepEqual(kept, ['key-7', 'key-17', 'key-27', 'key-37', 'key-47', 'key-57', 'key-67', 'key-77', 'key-87', 'key-97']);
    assert.equal(pauses.length, 20, 'a turn after every fifth key');
  });

  it('TimeSlices pauses once its slice is used, not before', async () => {
    let now = 0;
    const slices = new TimeSlices(5, () => now);
    assert.equal(slices.sliceOver, false);
    now = 4;
    assert.equal(slices.sliceOver, false);
    now = 5;
    assert.equal(slices.sliceOver, true);
    await slices.pause();
    assert.equal(slices.sliceOver, false, 'a new slice starts after the turn');
  });
});
