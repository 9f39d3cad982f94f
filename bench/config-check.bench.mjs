#!/usr/bin/env node
// How long `fabric-ops-peer --check-config` takes for a core.yaml with many keys under one map
// (checked in time linear in its size), next to yaml's own duplicate-key check (`uniqueKeys: true`, quadratic)
// on the same text in this process, for the sizes where that finishes in reasonable time.
//
//   node bench/config-check.bench.mjs            16k, 32k, 100k keys and a 4 MiB file
//   BENCH_BASELINE_MAX_KEYS=32000                largest key count yaml's own check is run for
import './lib/fail.mjs';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'apps/peer/dist/bin.cjs');
// yaml as ops-config resolves it
const { parseDocument } = createRequire(join(root, 'packages/ops-config/package.json'))('yaml');
const baselineMax = Number(process.env.BENCH_BASELINE_MAX_KEYS ?? 32_000);

function coreYaml(keys) {
  const lines = ['vm:\n  endpoint: ""\noperations:\n  listenAddress: 127.0.0.1:0\nledger:\n'];
  for (let index = 0; index < keys; index += 1) lines.push(`  key${String(index).padStart(7, '0')}: value${index}\n`);
  return lines.join('');
}

const fourMiBKeys = Math.floor((4 * 1024 * 1024 - 80) / `  key0000000: value000000\n`.length);
const dir = mkdtempSync(join(tmpdir(), 'config-check-bench-'));
try {
  console.log('keys      bytes      --check-config (ours)   yaml uniqueKeys:true parse (baseline)');
  for (const keys of [16_000, 32_000, 100_000, fourMiBKeys]) {
    const text = coreYaml(keys);
    const file = join(dir, 'core.yaml');
    writeFileSync(file, text);
    let began = process.hrtime.bigint();
    execFileSync(process.execPath, [bin, '--check-config', '--config', file], { stdio: ['ignore', 'ignore', 'inherit'] });
    const ours = Number(process.hrtime.bigint() - began) / 1e9;
    let theirs = 'not run';
    if (keys <= baselineMax) {
      began = process.hrtime.bigint();
      parseDocument(text, { uniqueKeys: true, merge: true });
      theirs = `${(Number(process.hrtime.bigint() - began) / 1e9).toFixed(1)} s`;
    }
    console.log(`${String(keys).padEnd(9)} ${String(text.length).padEnd(10)} ${`${ours.toFixed(1)} s`.padEnd(23)} ${theirs}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
