import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  commonRouteErrors,
  type HostErrorCode,
  hostErrorCodes,
  hostEventTypes,
  hostRoutes,
  sessionEventTypes,
} from '@outrigger/host-api';

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

test('docs/host-api.md lists, for each route, exactly the errors of its entry in the route table', () => {
  const codes: readonly string[] = hostErrorCodes;
  for (const [name, route] of Object.entries(hostRoutes)) {
    const row = doc.split('\n').find((line) => line.startsWith(`| \`${route.method} ${route.path}\` |`));
    assert.ok(row !== undefined, `${name}: a row in the routes table`);
    // The last cell; `\|` inside a cell is a literal bar, not a cell border.
    const cells = row.split(/(?<!\\)\|/);
    const listed = [...(cells.at(-2) ?? '').matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);
    for (const code of listed) assert.ok(codes.includes(code), `${name}: \`${code}\` is an error code`);
    assert.deepEqual(listed, [...route.errors], `${name}: the errors column is the route's \`errors\``);
  }
  const routes = doc.slice(doc.indexOf('## Routes'), doc.indexOf('\n| method and path |'));
  const common = commonRouteErrors.map((code: HostErrorCode) => `\`${code}\``);
  const sentence = /these common errors, (.+?), are not\s+repeated per row/s.exec(routes)?.[1] ?? '';
  assert.deepEqual(
    [...sentence.matchAll(/`[a-z_]+`/g)].map((match) => match[0]),
    common,
    'the common errors are named once, before the table',
  );
});
