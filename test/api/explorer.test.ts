/**
 * The explorer's files on the REST port: the page, its style sheets and every module its
 * import map and its own imports name answer with the right type and no credentials (also
 * in OAuth2 mode); nothing else under /explorer/ does.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { explorerFile, explorerFiles } from '../../src/api/explorer.js';
import { createApiServer } from '../../src/api/server.js';
import { fixtureChain, fixtureServer } from './fixture.js';

const NOT_FOUND = 'The requested resource could not be found.';

describe('the explorer files', () => {
  const f = fixtureServer();
  after(() => f.app.close());
  const get = (url: string, headers: Record<string, string> = {}) => f.client.request<string>({ method: 'GET', url, headers });

  it('/explorer redirects to /explorer/ with a relative location (a proxy prefix in front is kept)', async () => {
    const r = await get('/explorer');
    assert.equal(r.status, 308);
    assert.equal(r.headers['location'], 'explorer/');
  });

  it('serves the page, its style sheets and every module it imports, without credentials', async () => {
    const page = await get('/explorer/');
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    const html = page.text;
    const map = JSON.parse(/<script type="importmap">([\s\S]*?)<\/script>/.exec(html)![1]!) as { imports: Record<string, string> };
    const files = explorerFiles();
    for (const [specifier, url] of Object.entries(map.imports)) {
      const r = await get(new URL(url, 'http://node/explorer/').pathname);
      assert.equal(r.status, 200, `${specifier} → ${url}`);
      assert.match(String(r.headers['content-type']), /^text\/javascript/);
      assert.equal(r.text, readFileSync(explorerFile(files, url.replace(/^\.\//, ''))!, 'utf8'), `${url} is the package's file`);
    }
    for (const [, href] of html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)) {
      const r = await get(`/explorer/${href}`);
      assert.equal(r.status, 200, href);
      assert.match(String(r.headers['content-type']), /^text\/css/);
    }
    // The page's modules, following their relative imports from the entry point.
    const entry = /<script type="module" src="([^"]+)"/.exec(html)![1]!;
    const seen = new Set<string>();
    const queue = [new URL(entry, 'http://node/explorer/').pathname];
    while (queue.length > 0) {
      const path = queue.pop()!;
      if (seen.has(path)) continue;
      seen.add(path);
      const r = await get(path);
      assert.equal(r.status, 200, `${path} (run npm run build: the explorer is compiled by tsc -p src/explorer)`);
      assert.match(String(r.headers['content-type']), /^text\/javascript/);
      const specifiers = [...r.text.matchAll(/^(?:import|export)\b[^;'"]*?(?:from\s*)?["']([^"']+)["'];?$/gm)].map((m) => m[1]!);
      for (const spec of specifiers) {
        if (spec.startsWith('.')) queue.push(new URL(spec, `http://node${path}`).pathname);
        else assert.ok(spec in map.imports, `${path} imports ${spec}, which the import map names`);
      }
    }
    assert.ok(seen.size >= 10, `the page's modules: ${[...seen].join(', ')}`);
  });

  it('answers 304 to a browser that has the file already', async () => {
    const first = await get('/explorer/explorer.css');
    const etag = String(first.headers['etag']);
    assert.match(etag, /^W\/"/);
    assert.equal(first.headers['cache-control'], 'no-cache');
    const again = await get('/explorer/explorer.css', { 'if-none-match': etag });
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
  });

  it('serves nothing else under /explorer/: the catch-all 404', async () => {
    for (const url of [
      '/explorer/app/%2e%2e/%2e%2e/package.json',
      '/explorer/app/..%2f..%2fpackage.json',
      '/explorer/vendor/%2e%2e%2fpreact.mjs',
      '/explorer/app/main.ts',
      '/explorer/app/main.tsx',
      '/explorer/app',
      '/explorer/static/index.html',
      '/explorer/index.html',
      '/explorer/vendor/preact.mjs.map',
      '/explorer/vendor/uplot.mjs/x',
      '/explorer/nothing.css',
      '/explorer/.hidden.css',
    ]) {
      const r = await get(url);
      assert.equal(r.status, 404, url);
      assert.equal(r.text, NOT_FOUND, url);
    }
    const files = explorerFiles();
    assert.equal(explorerFile(files, '../package.json'), undefined);
    assert.equal(explorerFile(files, 'app/../../x.js'), undefined);
    assert.equal(explorerFile(files, 'vendor/preact.mjs'), files.vendor.get('preact.mjs'));
  });

  it('needs no credentials in OAuth2 mode either, while the API routes do', async () => {
    const chain = fixtureChain();
    const publicKeyPem = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'pem', type: 'spki' }).toString();
    const app = createApiServer({ ...chain.services, settings: { ...chain.services.settings, auth: { type: 'oauth2', publicKeyPem } } }, { logger: false });
    after(() => app.close());
    assert.equal((await app.inject({ method: 'GET', url: '/explorer/' })).statusCode, 200);
    assert.equal((await app.inject({ method: 'GET', url: '/explorer/app/main.js' })).statusCode, 200);
    const api = await app.inject({ method: 'GET', url: '/blocks/height' });
    assert.equal(api.statusCode, 401, 'the page then shows that the node wants credentials it never has');
  });
});
