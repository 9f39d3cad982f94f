#!/usr/bin/env node
import { runOpsctl } from './main.ts';

runOpsctl(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  drained: () => new Promise<void>((resolve) => process.stdout.once('drain', resolve)),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`opsctl: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 70;
  },
);
