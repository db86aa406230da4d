/**
 * The code blocks of README.md and docs/*.md as the docs test (snippets.test.ts) runs them.
 *
 * Every ```sh and ```js block is run, unless an HTML comment right before it says why not:
 *
 *   <!-- snippet: not run: <the reason> -->     for the few that only make sense on an operator's machine
 *   <!-- snippet: file <path> -->               the block is a file the later blocks use, written at <path>
 *                                               (relative to the folder the commands run in)
 *   <!-- snippet: contract-package <dir> -->    (on a line of its own) the contract package in <dir> is built
 *                                               from the files written so far, as its `npm install` and
 *                                               `npm run build` would: compiled with this repository's
 *                                               TypeScript, with the SDK's runtime packages in its node_modules
 *
 * A block whose one command is `npm start …` or `npm run devnet …` starts a node (or a devnet)
 * that the doc's later blocks run against; blocks before any such block run against the
 * plain `npm start` dev chain. Each block runs in a shell (or Node.js process) of its own, in
 * a folder laid out as a checkout after `npm start` (`dist/`, `node_modules/`, `data/dev/`).
 *
 * What a command prints is stated at the end of its line: `# → <output>` (sh) or
 * `// → <output>` (js), `…` standing for any text (or `/<regular expression>/`). The output
 * the block printed up to that line (since the previous such line) must end with it.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The docs a newcomer reads, as paths from the repository root: README.md, then docs/*.md by name. */
export function docFiles(repo: string): string[] {
  return [
    'README.md',
    ...readdirSync(join(repo, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => `docs/${f}`),
  ];
}

/** The languages whose blocks are run. */
export type SnippetLanguage = 'sh' | 'js';

/** Fence languages refused: the test would not see them as commands. */
const SPELLED_OTHERWISE: Readonly<Record<string, SnippetLanguage>> = {
  bash: 'sh',
  shell: 'sh',
  console: 'sh',
  zsh: 'sh',
  javascript: 'js',
  mjs: 'js',
  node: 'js',
};

export interface CodeBlock {
  readonly kind: 'block';
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly language: string;
  readonly body: string;
  /** Why the block is not run (`not run:` directive). */
  readonly notRun?: string;
  /** Where the block is written as a file (`file` directive). */
  readonly writeTo?: string;
}

export interface ContractPackageStep {
  readonly kind: 'contract-package';
  readonly file: string;
  readonly line: number;
  readonly dir: string;
}

export type DocItem = CodeBlock | ContractPackageStep;

export class DocSyntaxError extends Error {}

const DIRECTIVE = /^\s*<!--\s*snippet:\s*(.*?)\s*-->\s*$/;
const OPENING_FENCE = /^(\s*)(`{3,})\s*([^\s`]*)(.*)$/;

type FenceDirective = { readonly notRun: string } | { readonly writeTo: string };

/** The code blocks and build steps of one Markdown file, in order. */
export function parseDoc(file: string, text: string): DocItem[] {
  const lines = text.split('\n');
  const items: DocItem[] = [];
  let pending: { directive: FenceDirective; line: number } | undefined;
  const fail = (line: number, message: string): never => {
    throw new DocSyntaxError(`${file}:${line}: ${message}`);
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const directive = DIRECTIVE.exec(line);
    if (directive !== null) {
      const words = directive[1]!;
      const notRun = /^not run:\s*(.*)$/.exec(words);
      const writeTo = /^file\s+(\S+)$/.exec(words);
      const contractPackage = /^contract-package\s+(\S+)$/.exec(words);
      if (pending !== undefined) fail(pending.line, 'a snippet directive must come right before its code block');
      if (notRun !== null) {
        if (notRun[1]!.trim() === '') fail(i + 1, '`not run:` needs its reason');
        pending = { directive: { notRun: notRun[1]!.trim() }, line: i + 1 };
      } else if (writeTo !== null) pending = { directive: { writeTo: writeTo[1]! }, line: i + 1 };
      else if (contractPackage !== null) items.push({ kind: 'contract-package', file, line: i + 1, dir: contractPackage[1]! });
      else fail(i + 1, `unknown snippet directive '${words}'`);
      continue;
    }
    const fence = OPENING_FENCE.exec(line);
    if (fence === null) {
      if (pending !== undefined && line.trim() !== '') fail(pending.line, 'a snippet directive must come right before its code block');
      continue;
    }
    const indent = fence[1]!.length;
    const ticks = fence[2]!.length;
    const language = fence[3]!.toLowerCase();
    const body: string[] = [];
    let closed = false;
    for (i++; i < lines.length; i++) {
      const inner = lines[i]!;
      if (new RegExp(`^\\s*\`{${ticks},}\\s*$`).test(inner)) {
        closed = true;
        break;
      }
      body.push(inner.slice(Math.min(indent, inner.length - inner.trimStart().length)));
    }
    const opening = i - body.length;
    if (!closed) fail(opening, 'a code block is not closed');
    const spelled = SPELLED_OTHERWISE[language];
    if (spelled !== undefined) fail(opening, `write \`\`\`${spelled} instead of \`\`\`${language}: the docs test runs \`\`\`sh and \`\`\`js blocks`);
    items.push({
      kind: 'block',
      file,
      line: opening,
      language,
      body: body.join('\n'),
      ...(pending === undefined ? {} : pending.directive),
    });
    pending = undefined;
  }
  if (pending !== undefined) fail(pending.line, 'a snippet directive must come right before its code block');
  return items;
}

/** Whether the docs test runs the block (a ```sh or ```js block not marked otherwise). */
export function isRun(block: CodeBlock): block is CodeBlock & { language: SnippetLanguage } {
  return (block.language === 'sh' || block.language === 'js') && block.notRun === undefined && block.writeTo === undefined;
}

/** `npm start -- …` or `npm run devnet -- …`: a node or devnet the later blocks run against. */
export interface StartCommand {
  readonly kind: 'node' | 'devnet';
  /** What follows `--`. */
  readonly args: readonly string[];
}

/** The lines of a shell block that are commands (comments and blank lines left out, trailing comments cut). */
function commandLines(body: string): string[] {
  return body
    .split('\n')
    .map((l) => l.replace(/(^|\s)#.*$/, '').trim())
    .filter((l) => l !== '');
}

/** The node or devnet a shell block starts, or undefined for an ordinary block. A start mixed with other commands is refused. */
export function startCommandOf(block: CodeBlock): StartCommand | undefined {
  if (block.language !== 'sh') return undefined;
  const commands = commandLines(block.body);
  const starts = commands.filter((c) => /^npm (start|run devnet)\b/.test(c));
  if (starts.length === 0) return undefined;
  if (commands.length > 1) {
    throw new DocSyntaxError(`${block.file}:${block.line}: \`${starts[0]}\` runs until stopped: give it a block of its own`);
  }
  const words = starts[0]!.split(/\s+/);
  const kind = words[1] === 'start' ? 'node' : 'devnet';
  const rest = words.slice(kind === 'node' ? 2 : 3);
  if (rest.length > 0 && rest[0] !== '--') throw new DocSyntaxError(`${block.file}:${block.line}: expected \`--\` before the options of \`${starts[0]}\``);
  return { kind, args: rest.slice(1) };
}

/** What a line says its command prints. */
export interface Expectation {
  /** 1-based line within the block. */
  readonly line: number;
  readonly text: string;
}

/** Printed after each line that states its output, so the output can be cut at that line. */
export const OUTPUT_MARK = '@@weft-docs-output-mark@@';

/**
 * The block's source with a mark printed after each line that states its output, and those
 * statements in order.
 */
export function instrument(block: CodeBlock & { language: SnippetLanguage }): { source: string; expectations: Expectation[] } {
  const statement = block.language === 'sh' ? /\s#\s*→\s?(.*)$/ : /\s\/\/\s*→\s?(.*)$/;
  const mark = block.language === 'sh' ? `printf '\\n%s\\n' '${OUTPUT_MARK}'` : `process.stdout.write('\\n${OUTPUT_MARK}\\n');`;
  const expectations: Expectation[] = [];
  const out: string[] = [];
  block.body.split('\n').forEach((line, index) => {
    out.push(line);
    const m = statement.exec(line);
    if (m === null) return;
    expectations.push({ line: index + 1, text: m[1]!.trim() });
    out.push(mark);
  });
  return { source: out.join('\n'), expectations };
}

/** `…` stands for any text; the rest is literal. `/…/` is a regular expression the output's end must match. */
function outputPattern(text: string): RegExp {
  const regex = /^\/(.+)\/$/.exec(text);
  if (regex !== null) return new RegExp(`(?:${regex[1]!.replace(/\$$/, '')})\\s*$`);
  const literal = text
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*?');
  return new RegExp(`${literal}\\s*$`);
}

/**
 * What differs between the output a block printed (marked by `instrument`) and what its lines
 * say they print: one message per expectation not met, none when all are.
 */
export function outputProblems(stdout: string, expectations: readonly Expectation[]): string[] {
  const parts = stdout.split(`\n${OUTPUT_MARK}\n`);
  const problems: string[] = [];
  expectations.forEach((e, i) => {
    const printed = parts[i];
    if (printed === undefined || i >= parts.length - 1) {
      problems.push(`line ${e.line}: the block ended before this line's output`);
      return;
    }
    if (!outputPattern(e.text).test(printed.trimEnd())) {
      problems.push(
        `line ${e.line}: expected the output to end with\n    ${e.text}\n  it printed\n    ${printed.trim().slice(-2000).replaceAll('\n', '\n    ')}`,
      );
    }
  });
  return problems;
}
