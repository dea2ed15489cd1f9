import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bundledBinaryCandidates, findBundledClaudeBinary, resolveClaudeExecutable } from './executablePath.ts';

const bundled = () => '/sdk/node_modules/@anthropic-ai/claude-agent-sdk-linux-x64/claude';
const missing = () => undefined;
const onlyFile = (existing: string) => (path: string) => path === existing;

describe('resolveClaudeExecutable', () => {
  test('CLAUDE_CODE_EXECUTABLE wins when it is not blank', () => {
    assert.equal(
      resolveClaudeExecutable(
        { CLAUDE_CODE_EXECUTABLE: ' /opt/claude ', TUTTI_CLAUDE_CODE_FALLBACK_EXECUTABLE: '/f' },
        { bundledBinary: bundled },
      ),
      '/opt/claude',
    );
    assert.equal(resolveClaudeExecutable({ CLAUDE_CODE_EXECUTABLE: '  ' }, { bundledBinary: bundled }), undefined);
  });

  test('the bundled platform binary means no override, even with a fallback configured', () => {
    assert.equal(
      resolveClaudeExecutable(
        { TUTTI_CLAUDE_CODE_FALLBACK_EXECUTABLE: '/f' },
        { bundledBinary: bundled, isFile: onlyFile('/f') },
      ),
      undefined,
    );
  });

  test('without the bundled binary, the fallback is used only if that file exists', () => {
    const env = { TUTTI_CLAUDE_CODE_FALLBACK_EXECUTABLE: '/opt/fallback/claude' };
    assert.equal(
      resolveClaudeExecutable(env, { bundledBinary: missing, isFile: onlyFile('/opt/fallback/claude') }),
      '/opt/fallback/claude',
    );
    assert.equal(resolveClaudeExecutable(env, { bundledBinary: missing, isFile: () => false }), undefined);
    assert.equal(resolveClaudeExecutable({}, { bundledBinary: missing, isFile: () => true }), undefined);
  });
});

describe('bundled binary lookup', () => {
  test('candidates follow the SDK order: libc first, musl first on musl hosts, .exe on Windows', () => {
    const sdk = '@anthropic-ai/claude-agent-sdk';
    assert.deepEqual(bundledBinaryCandidates({ platform: 'linux', arch: 'x64', musl: false }), [
      `${sdk}-linux-x64/claude`,
      `${sdk}-linux-x64-musl/claude`,
    ]);
    assert.deepEqual(bundledBinaryCandidates({ platform: 'linux', arch: 'arm64', musl: true }), [
      `${sdk}-linux-arm64-musl/claude`,
      `${sdk}-linux-arm64/claude`,
    ]);
    assert.deepEqual(bundledBinaryCandidates({ platform: 'win32', arch: 'x64', musl: false }), [
      `${sdk}-win32-x64/claude.exe`,
    ]);
    assert.deepEqual(bundledBinaryCandidates({ platform: 'darwin', arch: 'arm64', musl: false }), [
      `${sdk}-darwin-arm64/claude`,
    ]);
  });

  test('resolves the installed platform package next to the SDK, and nothing for an absent platform', () => {
    assert.match(findBundledClaudeBinary() ?? '', /@anthropic-ai\/claude-agent-sdk-[a-z0-9-]+\/claude(\.exe)?$/);
    assert.equal(findBundledClaudeBinary({ platform: 'linux', arch: 'mips', musl: false }), undefined);
    assert.equal(
      findBundledClaudeBinary(undefined, () => false),
      undefined,
    );
  });
});
