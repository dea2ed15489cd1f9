/**
 * The paths the web UI is served at: the one list that both the security guard (which lets them through
 * without a token) and the static server (which serves nothing else) consult. Every decision here is made on
 * Hono's `c.req.path`, the decoded path the router matches, never on the raw URL: a spelling such as
 * `/%61pi/sessions` must not look like a page to the guard while the router hands it to an API route.
 *
 * The UI routes with the URL's hash (`#/s/<id>`), so its only page paths are `/` and `/index.html`; its other
 * files are the build's top-level files (`theme-init.js`) and `assets/*`.
 */

const UI_PAGE_PATHS: ReadonlySet<string> = new Set(['/', '/index.html']);

/**
 * A single file name of the build: no `%` (so nothing is decoded a second time), no slash or backslash, and
 * it starts with a letter, digit, `_` or `-`, so `.`, `..` and dotfiles are never names.
 */
const BUILD_FILE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/** Case-insensitive on purpose: whatever the router's case rules, no spelling of `/api…` is ever a UI path. */
function namesTheApi(path: string): boolean {
  return path.toLowerCase().startsWith('/api');
}

/** The page itself: where the token link lands and where index.html is answered. */
export function isUiPagePath(path: string): boolean {
  return UI_PAGE_PATHS.has(path);
}

/** A file of the build: `/<name>.<ext>` at the top level or `/assets/<name>`. */
export function isUiFilePath(path: string): boolean {
  if (namesTheApi(path)) return false;
  const segments = path.split('/');
  if (segments.length === 2) {
    const name = segments[1] as string;
    return BUILD_FILE_NAME.test(name) && name.includes('.');
  }
  return segments.length === 3 && segments[1] === 'assets' && BUILD_FILE_NAME.test(segments[2] as string);
}

/**
 * Read without a token: the UI holds nothing secret, and the page has to load before its cookie can be used.
 * Only reads: any other method on these paths is guarded like everything else.
 */
export function isPublicUiRequest(method: string, path: string): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  return isUiPagePath(path) || isUiFilePath(path);
}
