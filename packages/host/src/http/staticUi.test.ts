import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { appForTest } from './testing/appTestSupport.ts';

test('without a built UI, every page says how to build it; the API still answers JSON', async () => {
  const { call } = appForTest({ webDist: join(tmpdir(), 'outrigger-no-such-dist') });
  for (const path of ['/', '/sessions/1']) {
    const page = await call(path, { headers: { authorization: '' } });
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await page.text(), /web UI is not built yet[\s\S]*npm run build -w packages\/web/);
  }
  assert.equal((await call('/api/nothing')).headers.get('content-type'), 'application/json; charset=utf-8');
});

test('a built UI is served with its content types, index.html for the UI’s own routes, nothing outside it', async () => {
  const root = await mkdtemp(join(tmpdir(), 'outrigger-web-'));
  try {
    const dist = join(root, 'dist');
    await mkdir(join(dist, 'assets'), { recursive: true });
    await writeFile(join(dist, 'index.html'), '<!doctype html><title>UI</title>');
    await writeFile(join(dist, 'assets', 'app-1.js'), 'console.log(1)');
    await writeFile(join(dist, 'assets', 'app-1.css'), 'body{}');
    await writeFile(join(root, 'secret.txt'), 'SECRET-OUTSIDE-DIST');
    const { call } = appForTest({ webDist: dist });
    const get = (path: string) => call(path, { headers: { authorization: '' } });

    const index = await get('/');
    assert.equal(await index.text(), '<!doctype html><title>UI</title>');
    assert.match(index.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(index.headers.get('x-frame-options'), 'DENY');
    assert.match((await get('/assets/app-1.js')).headers.get('content-type') ?? '', /^text\/javascript/);
    assert.match((await get('/assets/app-1.css')).headers.get('content-type') ?? '', /^text\/css/);
    assert.equal(await (await get('/sessions/abc')).text(), '<!doctype html><title>UI</title>');
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
