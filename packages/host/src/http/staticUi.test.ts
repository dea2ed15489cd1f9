import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { appForTest } from './testing/appTestSupport.ts';

test('without a built UI, the page says how to build it; the API still answers JSON', async () => {
  const { call } = appForTest({ webDist: join(tmpdir(), 'outrigger-no-such-dist') });
  for (const path of ['/', '/index.html']) {
    const page = await call(path, { headers: { authorization: '' } });
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const html = await page.text();
    assert.match(html, /web UI is not built yet[\s\S]*npm run build -w packages\/web/);
    // Its <style> element renders under the policy only while style-src allows inline style; no script needs it.
    assert.match(html, /<style>/);
    assert.doesNotMatch(html, /<script/i);
    assert.match(page.headers.get('content-security-policy') ?? '', /style-src [^;]*'unsafe-inline'/);
  }
  // Not a page path: the UI routes with the hash, so nothing else is the page, and it is guarded.
  assert.equal((await call('/sessions/1', { headers: { authorization: '' } })).status, 401);
  assert.equal((await call('/api/nothing')).headers.get('content-type'), 'application/json; charset=utf-8');
});

test('a built UI is served with its content types, index.html at its page paths, nothing outside it', async () => {
  const root = await mkdtemp(join(tmpdir(), 'outrigger-web-'));
  try {
    const dist = join(root, 'dist');
    await mkdir(join(dist, 'assets'), { recursive: true });
    await writeFile(join(dist, 'index.html'), '<!doctype html><title>UI</title>');
    await writeFile(join(dist, 'assets', 'app-1.js'), 'console.log(1)');
    await writeFile(join(dist, 'assets', 'app-1.css'), 'body{}');
    await writeFile(join(dist, 'theme-init.js'), 'void 0');
    await writeFile(join(root, 'secret.txt'), 'SECRET-OUTSIDE-DIST');
    const { call } = appForTest({ webDist: dist });
    const get = (path: string) => call(path, { headers: { authorization: '' } });

    const index = await get('/');
    assert.equal(await index.text(), '<!doctype html><title>UI</title>');
    assert.match(index.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(index.headers.get('x-frame-options'), 'DENY');
    assert.match((await get('/assets/app-1.js')).headers.get('content-type') ?? '', /^text\/javascript/);
    assert.match((await get('/assets/app-1.css')).headers.get('content-type') ?? '', /^text\/css/);
    assert.match((await get('/theme-init.js')).headers.get('content-type') ?? '', /^text\/javascript/);
    assert.equal(await (await get('/index.html')).text(), '<!doctype html><title>UI</title>');
    // Any other path is not the UI: without a token it is refused, with one it is no page but a 404.
    assert.equal((await get('/sessions/abc')).status, 401);
    assert.equal((await call('/sessions/abc')).status, 404);
    assert.equal((await get('/assets/missing-2.js')).status, 404);
    for (const path of [
      '/../secret.txt',
      '/%2e%2e/secret.txt',
      '/assets/..%2f..%2fsecret.txt',
      '/assets%5c..%5c..%5csecret.txt',
    ]) {
      const response = await get(path);
      assert.ok(!(await response.text()).includes('SECRET-OUTSIDE-DIST'), path);
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
