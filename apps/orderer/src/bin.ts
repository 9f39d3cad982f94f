#!/usr/bin/env node
import { runBin } from '@fabric-ops/ops-server/app';
import { runOrderer } from './main.ts';

// Node's own V8 settings: the bin changes none at run time (see "Memory" in the README for the
// options an operator may give on the command line or in NODE_OPTIONS, measured per Node line).
runBin(runOrderer);
