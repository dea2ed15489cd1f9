import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { hostErrorCodes, hostEventTypes, hostRoutes, sessionEventTypes } from '@outrigger/host-api';

const doc = readFileSync(fileURLToPath(new URL('../../../docs/host-api.md', import.meta.url)), 'utf8');

test('docs/host-api.md lists every route of the contract', () => {
  for (const [name, route] of Object.entries(hostRoutes)) {
    assert.ok(doc.includes(`\`${route.method} ${route.path}\``), `${name}: ${route.method} ${route.path}`);
  }
});

test('docs/host-api.md describes every session and host event and every error code', () => {
  const section = (title: string) =>
    doc.slice(doc.indexOf(`## ${title}`), doc.indexOf('\n## ', doc.indexOf(`## ${title}`) + 3));
  const sessionEvents = section('Session stream events');
  for (const type of sessionEventTypes) assert.match(sessionEvents, new RegExp(`^\\| \`${type}\` \\|`, 'm'), type);
  const hostEvents = section('Host stream events');
  for (const type of hostEventTypes) assert.match(hostEvents, new RegExp(`^\\| \`${type}\` \\|`, 'm'), type);
  for (const code of hostErrorCodes) assert.match(doc, new RegExp(`\\| \`${code}\` \\|`), code);
});
