#!/usr/bin/env node
// Package managers link bins before a workspace install has built dist/; this file always
// exists, so the link is made on the first install and runs the built bin.
import '../dist/bin.js';
