#!/usr/bin/env node
import { runOutrigger } from './cli.ts';

process.exitCode = await runOutrigger(process.argv.slice(2));
