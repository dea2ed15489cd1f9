#!/usr/bin/env node
// The installed `outrigger` bin. Built for old Nodes on purpose (release/bundleCli.ts): the CLI's bundle
// imports node:sqlite and friends, which an old Node fails to link with a stack trace before any of its
// code could explain. This checks first, then loads the CLI.
import { nodeProblem } from './nodeRequirement.ts';

const problem = nodeProblem(process.version, process.execPath);
if (problem === undefined) {
  // Beside this file once bundled; a computed specifier so that neither esbuild nor tsc follows it.
  await import(new URL('./cli.js', import.meta.url).href);
} else {
  process.stderr.write(`${problem}\n`);
  process.exitCode = 1;
}
