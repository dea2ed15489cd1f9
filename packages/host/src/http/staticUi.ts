import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Env, Hono } from 'hono';
import { isUiFilePath, isUiPagePath } from './uiPaths.ts';

/** Shown at `/` until `packages/web` has been built. */
const UI_NOT_BUILT_PAGE = `<!doctype html>
<html lang="en">
<meta charset="utf-8">
<title>Outrigger</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem}code{background:#eee;padding:0 .25rem}</style>
<h1>Outrigger is running</h1>
<p>The web UI is not built yet. Build it with <code>npm run build -w packages/web</code>
(or run <code>npm start</code>, which builds it when it is missing), then reload this page.</p>
<p>The HTTP API is up: see <code>docs/host-api.md</code>. The terminal chat works too: <code>outrigger chat</code>.</p>
</html>
`;

/**
 * The web UI: the built files of `packages/web/dist` at the paths `uiPaths.ts` lists (traversal, encoded dots
 * and backslashes are refused again by `serveStatic`), `index.html` at the page paths, and a page that says how
 * to build the UI while there is none. Any other path is not the UI's: it falls through to the API routes or
 * the 404, behind the token like everything the guard does not know to be the UI.
 */
export function mountStaticUi<E extends Env>(app: Hono<E>, webDist: string | undefined): void {
  const index = webDist === undefined ? undefined : join(webDist, 'index.html');
  const built = () => index !== undefined && existsSync(index);
  const noStore = { 'cache-control': 'no-store' };
  if (webDist !== undefined) {
    app.use('*', async (c, next) => {
      if (!isUiFilePath(c.req.path) || !built()) return next();
      return serveStatic({ root: webDist })(c, next);
    });
  }
  app.get('*', async (c, next) => {
    if (!isUiPagePath(c.req.path)) return next();
    if (!built()) return c.html(UI_NOT_BUILT_PAGE, 200, noStore);
    return serveStatic({ root: webDist as string, path: 'index.html' })(c, next);
  });
}
