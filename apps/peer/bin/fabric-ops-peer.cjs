#!/usr/bin/env node
// Package managers link bins before a workspace install has built dist/; this file always
// exists, so the link is made on the first install and runs the built bin. CommonJS, like the
// bin it loads: an ES module here would start node's ES module loader for nothing.
require('../dist/bin.cjs');
