/**
 * The explorer: a web page at `/explorer/` on the REST port that reads only this node's own
 * public REST API (it never sees an API key). This module serves its files and nothing else:
 *
 * - `/explorer/` (index.html) and `/explorer/explorer.css` from `src/explorer/static/`;
 * - `/explorer/app/…` the page's modules, compiled by `npm run build` (tsc -p src/explorer)
 *   into `dist/src/explorer/`;
 * - `/explorer/vendor/…` the libraries the page imports (Preact, uPlot), straight from
 *   their npm packages, named in index.html's import map.
 *
 * Only files of those three places answer, by extension (.html, .css, .js, .mjs, .map) and
 * with names of plain characters; anything else is the catch-all 404. Answers carry an
 * ETag and `no-cache`, so a browser revalidates and a rebuilt explorer shows at once.
 */
import { readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NOT_FOUND_TEXT } from './errors.js';
import { TEXT_CONTENT_TYPE } from './json-io.js';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** A path segment the explorer may serve: no dot-segments, no separators, no oddities. */
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

export interface ExplorerFiles {
  /** index.html and the style sheet. */
  readonly staticDir: string;
  /** The compiled page modules. */
  readonly appDir: string;
  /** URL name under `/explorer/vendor/` → file. */
  readonly vendor: ReadonlyMap<string, string>;
}

/** Where the files are, seen from this module (dist/src/api/ at run time). */
export function explorerFiles(): ExplorerFiles {
  const here = dirname(fileURLToPath(import.meta.url));
  const require = createRequire(import.meta.url);
  const packageDir = (name: string): string => dirname(require.resolve(`${name}/package.json`));
  const preact = packageDir('preact');
  const uplot = packageDir('uplot');
  return {
    staticDir: join(here, '..', '..', '..', 'src', 'explorer', 'static'),
    appDir: join(here, '..', 'explorer'),
    vendor: new Map([
      ['preact.mjs', join(preact, 'dist', 'preact.mjs')],
      ['preact-hooks.mjs', join(preact, 'hooks', 'dist', 'hooks.mjs')],
      ['preact-jsx-runtime.mjs', join(preact, 'jsx-runtime', 'dist', 'jsxRuntime.mjs')],
      ['uplot.mjs', join(uplot, 'dist', 'uPlot.esm.js')],
      ['uplot.css', join(uplot, 'dist', 'uPlot.min.css')],
    ]),
  };
}

/** The file a path below `/explorer/` names, or undefined when it names none. */
export function explorerFile(files: ExplorerFiles, path: string): string | undefined {
  if (path === '') return join(files.staticDir, 'index.html');
  const segments = path.split('/');
  if (!segments.every((s) => SEGMENT.test(s))) return undefined;
  const [first, ...rest] = segments;
  if (first === 'vendor') return rest.length === 1 ? files.vendor.get(rest[0]!) : undefined;
  if (first === 'app' && rest.length > 0) {
    const file = join(files.appDir, ...rest);
    return file.startsWith(files.appDir + sep) && /\.(js|map)$/.test(file) ? file : undefined;
  }
  if (segments.length === 1 && /\.css$/.test(path)) return join(files.staticDir, path);
  return undefined;
}

const extensionOf = (file: string): string => file.slice(file.lastIndexOf('.'));

async function sendFile(request: FastifyRequest, reply: FastifyReply, file: string | undefined): Promise<FastifyReply> {
  const type = file === undefined ? undefined : CONTENT_TYPES[extensionOf(file)];
  const info = file === undefined || type === undefined ? undefined : await stat(file).catch(() => undefined);
  if (file === undefined || type === undefined || info === undefined || !info.isFile()) {
    return reply.code(404).type(TEXT_CONTENT_TYPE).send(NOT_FOUND_TEXT);
  }
  const etag = `W/"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
  reply.header('etag', etag).header('cache-control', 'no-cache').header('x-content-type-options', 'nosniff');
  if (request.headers['if-none-match'] === etag) return reply.code(304).send();
  return reply
    .code(200)
    .type(type)
    .send(await readFile(file));
}

/** Serves the explorer under `/explorer/` (`/explorer` redirects there). */
export function registerExplorer(app: FastifyInstance, files: ExplorerFiles = explorerFiles()): void {
  // Relative, so that a reverse proxy's path prefix in front of the node is kept.
  app.get('/explorer', (_request, reply) => reply.redirect('explorer/', 308));
  app.get('/explorer/*', (request, reply) => sendFile(request, reply, explorerFile(files, (request.params as { '*': string })['*'])));
}
