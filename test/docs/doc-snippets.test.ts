/**
 * How the docs test reads a doc's blocks (doc-snippets.ts): which run, which start a node,
 * and how a line's stated output is checked.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DocSyntaxError,
  instrument,
  isRun,
  OUTPUT_MARK,
  outputProblems,
  parseDoc,
  startCommandOf,
  type CodeBlock,
  type SnippetLanguage,
} from './doc-snippets.js';

const blocks = (text: string): CodeBlock[] => parseDoc('doc.md', text).filter((i): i is CodeBlock => i.kind === 'block');

test('sh and js blocks run unless marked; other languages and marked blocks do not', () => {
  const found = blocks(
    [
      '```sh',
      'echo 1',
      '```',
      '<!-- snippet: not run: needs systemd -->',
      '```sh',
      'systemctl start weft',
      '```',
      '<!-- snippet: file ../counter/package.json -->',
      '',
      '```json',
      '{}',
      '```',
      '```hocon',
      'a = 1',
      '```',
      '1. In a list:',
      '',
      '   ```js',
      '   console.log(1);',
      '   ```',
    ].join('\n'),
  );
  assert.deepEqual(
    found.map((b) => [b.line, b.language, isRun(b), b.notRun ?? b.writeTo ?? '', b.body]),
    [
      [1, 'sh', true, '', 'echo 1'],
      [5, 'sh', false, 'needs systemd', 'systemctl start weft'],
      [10, 'json', false, '../counter/package.json', '{}'],
      [13, 'hocon', false, '', 'a = 1'],
      [18, 'js', true, '', 'console.log(1);'],
    ],
  );
});

test('contract-package is a step of its own, in order', () => {
  const items = parseDoc('doc.md', ['```sh', 'true', '```', '<!-- snippet: contract-package ../counter -->', '```sh', 'true', '```'].join('\n'));
  assert.deepEqual(
    items.map((i) => (i.kind === 'block' ? i.line : `${i.kind} ${i.dir}`)),
    [1, 'contract-package ../counter', 5],
  );
});

test('refused: other spellings of sh and js, a reasonless not run, a stray or unknown directive, an open block', () => {
  const refused = (text: string, message: RegExp): void =>
    assert.throws(
      () => parseDoc('doc.md', text),
      (e: unknown) => e instanceof DocSyntaxError && message.test(e.message),
    );
  refused('```bash\nls\n```', /doc\.md:1: write ```sh instead of ```bash/);
  refused('```javascript\n1\n```', /write ```js/);
  refused('<!-- snippet: not run: -->\n```sh\nls\n```', /needs its reason/);
  refused('<!-- snippet: not run: why -->\ntext\n```sh\nls\n```', /right before its code block/);
  refused('<!-- snippet: not run: why -->', /right before its code block/);
  refused('<!-- snippet: sometimes -->', /unknown snippet directive 'sometimes'/);
  refused('```sh\nls', /doc\.md:1: a code block is not closed/);
});

test('a block whose one command is npm start or npm run devnet starts it; mixed with other commands it is refused', () => {
  const [plain, node, devnet, other] = blocks(
    [
      '```sh',
      'npm start   # the dev chain',
      '```',
      '```sh',
      'npm start -- --contract my/counter:1=../counter',
      '```',
      '```sh',
      '# three nodes',
      'npm run devnet -- --nodes 3 --dir data/devnet',
      '```',
      '```sh',
      'curl -s x',
      '```',
    ].join('\n'),
  );
  assert.deepEqual(startCommandOf(plain!), { kind: 'node', args: [] });
  assert.deepEqual(startCommandOf(node!), { kind: 'node', args: ['--contract', 'my/counter:1=../counter'] });
  assert.deepEqual(startCommandOf(devnet!), { kind: 'devnet', args: ['--nodes', '3', '--dir', 'data/devnet'] });
  assert.equal(startCommandOf(other!), undefined);
  const [mixed] = blocks('```sh\nnode dist/src/cli/cli.js contract hash ../counter\nnpm start -- --contract a=b\n```');
  assert.throws(() => startCommandOf(mixed!), /doc\.md:1: `npm start -- --contract a=b` runs until stopped: give it a block of its own/);
});

test('a stated output is checked against what the block printed up to that line, … matching anything', () => {
  const [block] = blocks(
    ['```sh', 'A=1', 'echo hello   # → hello', 'echo \'{"a":1,"b":2}\'; echo done   # → done', 'curl -s x   # → {"error":646,…}', '```'].join('\n'),
  );
  const { source, expectations } = instrument(block as CodeBlock & { language: SnippetLanguage });
  assert.equal(source.split('\n').filter((l) => l.includes(OUTPUT_MARK)).length, 3);
  assert.deepEqual(
    expectations.map((e) => [e.line, e.text]),
    [
      [2, 'hello'],
      [3, 'done'],
      [4, '{"error":646,…}'],
    ],
  );
  const marked = (...parts: string[]): string => parts.join(`\n${OUTPUT_MARK}\n`);
  assert.deepEqual(outputProblems(marked('hello\n', '{"a":1}\ndone\n', '{"error":646,"message":"x"}', ''), expectations), []);
  const problems = outputProblems(marked('hello\n', 'done\nmore\n', '{"error":600}', ''), expectations);
  assert.equal(problems.length, 2);
  assert.match(problems[0]!, /^line 3: expected the output to end with\n {4}done\n/);
  assert.match(problems[1]!, /^line 4: /);
  assert.deepEqual(outputProblems(marked('hello\n'), expectations).slice(1), [
    "line 3: the block ended before this line's output",
    "line 4: the block ended before this line's output",
  ]);
});

test('js blocks state their output with // →', () => {
  const [block] = blocks(['```js', 'console.log(JSON.stringify({ a: 1 }));   // → {"a":1}', '```'].join('\n'));
  const { source, expectations } = instrument(block as CodeBlock & { language: SnippetLanguage });
  assert.deepEqual(expectations, [{ line: 1, text: '{"a":1}' }]);
  assert.match(source, new RegExp(`process\\.stdout\\.write\\('\\\\n${OUTPUT_MARK}\\\\n'\\);$`));
});

test('a stated output between slashes is a regular expression', () => {
  const [block] = blocks(['```sh', 'node hash.js   # → /^[0-9a-f]{64}$/', '```'].join('\n'));
  const { expectations } = instrument(block as CodeBlock & { language: SnippetLanguage });
  assert.deepEqual(outputProblems(`${'ab'.repeat(32)}\n\n${OUTPUT_MARK}\n`, expectations), []);
  assert.equal(outputProblems(`${'ab'.repeat(31)}\n\n${OUTPUT_MARK}\n`, expectations).length, 1);
  assert.equal(outputProblems(`noise ${'ab'.repeat(32)}\n\n${OUTPUT_MARK}\n`, expectations).length, 1);
});
