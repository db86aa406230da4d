/**
 * The README and docs/*.md point at what exists: every relative link at a file of the
 * repository (and its `#anchor` at a heading of that file), and every path of the repository
 * they name in backticks (`src/…`, `test/…`, `bench/…`, `docs/…`, `.ci/…`) at a file or
 * folder — so a file moved or renamed without its docs fails here, not in a newcomer's hands.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { docFiles } from './doc-snippets.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading === null) continue;
    const base = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** Markdown without its code blocks (a link or path inside a command is the command's business). */
const prose = (markdown: string): string => markdown.replace(/^\s*```[\s\S]*?^\s*```\s*$/gm, '');

test('GitHub anchors of headings', () => {
  assert.deepEqual(
    [...headingAnchors("# Title\n## WE's `/node/metrics`\n```sh\n# not a heading\n```\n## A contract call, to its 105\n## Title")],
    ['title', 'wes-nodemetrics', 'a-contract-call-to-its-105', 'title-1'],
  );
});

test('every relative link of the docs leads to a file, and its anchor to a heading there', () => {
  const broken: string[] = [];
  for (const file of docFiles(REPO)) {
    const text = prose(readFileSync(join(REPO, file), 'utf8'));
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z][a-z+.-]*:/i.test(target!)) continue;
      const [path, anchor] = target!.split('#') as [string, string | undefined];
      const linked = path === '' ? file : normalize(join(dirname(file), path));
      if (!existsSync(join(REPO, linked))) {
        broken.push(`${file}: ${target} — no such file`);
        continue;
      }
      if (anchor !== undefined && linked.endsWith('.md') && !headingAnchors(readFileSync(join(REPO, linked), 'utf8')).has(anchor)) {
        broken.push(`${file}: ${target} — no heading with that anchor in ${linked}`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

test('every path of the repository the docs name exists', () => {
  const missing: string[] = [];
  for (const file of docFiles(REPO)) {
    const text = prose(readFileSync(join(REPO, file), 'utf8'));
    for (const [, path] of text.matchAll(/`((?:src|test|bench|docs|\.ci)\/[^`\s]*)`/g)) {
      // Patterns and placeholders (`test/vectors/*.json`, `node-<i>/`) name no one file.
      if (/[*{}<>…]/.test(path!)) continue;
      if (!existsSync(join(REPO, path!))) missing.push(`${file}: ${path}`);
    }
  }
  assert.deepEqual(missing, []);
});
