import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REPOSITORY_DATA_DIR } from './installation.ts';
import { DEFAULT_PORT, isLoopbackHost, parseServeArgs } from './serveOptions.ts';

test('defaults: loopback, the default port with fallback, the repository data dir, no roots, no tool timeout', () => {
  assert.deepEqual(parseServeArgs([]), {
    kind: 'run',
    options: {
      host: '127.0.0.1',
      port: DEFAULT_PORT,
      portFallback: true,
      dataDir: REPOSITORY_DATA_DIR,
      allowRoots: [],
      toolTimeoutMs: undefined,
    },
  });
  assert.match(REPOSITORY_DATA_DIR, /\/\.data$/);
});

test('every option, relative directories resolved against the working directory', () => {
  const parsed = parseServeArgs(
    [
      '--port',
      '0',
      '--host',
      '::1',
      '--data-dir',
      'd',
      '--allow-root',
      'a',
      '--allow-root',
      '/b',
      '--tool-timeout',
      '1.5',
    ],
    '/work',
  );
  assert.deepEqual(parsed, {
    kind: 'run',
    options: {
      host: '::1',
      port: 0,
      portFallback: false,
      dataDir: '/work/d',
      allowRoots: ['/work/a', '/b'],
      toolTimeoutMs: 1500,
    },
  });
});

test('help, and clear errors for bad values and unknown options', () => {
  assert.deepEqual(parseServeArgs(['--help']), { kind: 'help' });
  assert.deepEqual(parseServeArgs(['-h', '--port', 'x']), { kind: 'help' });
  for (const [argv, pattern] of [
    [['--port', '70000'], /--port must be a port number/],
    [['--port', 'abc'], /--port must be a port number/],
    [['--tool-timeout', '0'], /--tool-timeout must be a positive number/],
    [['--verbose'], /Unknown option '--verbose'/],
    [['extra'], /Unexpected argument 'extra'/],
  ] as const) {
    const parsed = parseServeArgs(argv);
    assert.equal(parsed.kind, 'error', argv.join(' '));
    assert.match(parsed.kind === 'error' ? parsed.message : '', pattern);
  }
});

test('a non-loopback --host needs TLS or --insecure-remote; TLS needs both files', () => {
  for (const host of ['127.0.0.1', '127.5.6.7', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']) {
    assert.equal(isLoopbackHost(host), true, host);
  }
  for (const host of ['0.0.0.0', '::', '10.0.0.2', 'example.com', '128.0.0.1'])
    assert.equal(isLoopbackHost(host), false, host);
  const refused = parseServeArgs(['--host', '0.0.0.0']);
  assert.equal(refused.kind, 'error');
  assert.match(refused.kind === 'error' ? refused.message : '', /--tls-cert FILE --tls-key FILE.*--insecure-remote/s);
  const tls = parseServeArgs(['--host', '0.0.0.0', '--tls-cert', 'c.pem', '--tls-key', 'k.pem'], '/w');
  assert.deepEqual(tls.kind === 'run' ? tls.options.tls : undefined, { certFile: '/w/c.pem', keyFile: '/w/k.pem' });
  const insecure = parseServeArgs(['--host', '0.0.0.0', '--insecure-remote']);
  assert.equal(insecure.kind === 'run' ? insecure.options.insecureRemote : undefined, true);
  const half = parseServeArgs(['--tls-cert', 'c.pem']);
  assert.match(half.kind === 'error' ? half.message : '', /--tls-cert and --tls-key go together/);
});
