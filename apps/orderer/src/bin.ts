#!/usr/bin/env node
import { runOrderer } from './main.ts';

// Node's own V8 settings: the bin changes none at run time (see "Memory" in the README for the
// options an operator may give on the command line or in NODE_OPTIONS, measured per Node line).
runOrderer().then(
  (code) => {
    process.exitCode = code;
    // Anything still holding the loop open after a graceful stop must not keep the process alive.
    setTimeout(() => process.exit(code), 1_000).unref();
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
