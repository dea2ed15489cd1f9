// `npm run pack:release [DIR]`: packs every public package into DIR (default .tmp/release) and prints what it
// made as JSON: name, tarball, packed and unpacked bytes, and any reason not to publish it.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { packRelease } from './packRelease.ts';
import { tarballProblems } from './tarballAudit.ts';
import { REPOSITORY_DIR, versionMismatches } from './workspace.ts';

const outDir = resolve(process.argv[2] ?? join(REPOSITORY_DIR, '.tmp', 'release'));
const mismatches = versionMismatches();
const tarballs = await packRelease(outDir);
const report = tarballs.map((tarball) => ({
  name: tarball.name,
  version: tarball.version,
  file: tarball.file,
  bytes: tarball.bytes,
  unpackedBytes: tarball.unpackedBytes,
  files: tarball.files.length,
  problems: tarballProblems(tarball, (path) => readFileSync(join(tarball.stagedDir, path), 'utf8')),
}));
process.stdout.write(`${JSON.stringify({ versionMismatches: mismatches, tarballs: report }, null, 2)}\n`);
if (mismatches.length > 0 || report.some((entry) => entry.problems.length > 0)) process.exitCode = 1;
