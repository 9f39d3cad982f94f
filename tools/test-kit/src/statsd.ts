import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeTcpPort, freeUdpPort } from './free-port.ts';

/** What the daemon has received, summed over its flushes (and restarts). */
export interface StatsdReceived {
  readonly counters: Record<string, number>;
  readonly gauges: Record<string, number>;
  readonly timers: Record<string, number[]>;
}

export interface StatsdDaemon {
  readonly udpAddress: string;
  readonly tcpAddress: string;
  /** Everything received so far (the daemon's own `statsd.*` metrics left out). */
  received(): StatsdReceived;
  /** Resolves once `check` holds for what was received; rejects with what was received on timeout. */
  waitFor(check: (received: StatsdReceived) => boolean, timeoutMs?: number): Promise<StatsdReceived>;
  /** Forgets what was received so far (later reads start empty). */
  clear(): void;
  /** SIGKILLs the daemon (abruptly, like a crash). */
  kill(): Promise<void>;
  /** Starts it again on the same ports. */
  restart(): Promise<void>;
  /** Kills it and removes its directory. */
  cleanup(): Promise<void>;
}

export interface StartStatsdOptions {
  /** How often the daemon hands what it received to its backends. Default 200 ms. */
  readonly flushIntervalMs?: number;
}

// A statsd backend (CommonJS, loaded by the daemon) that appends each flush as one JSON line.
const FILE_BACKEND = `'use strict';
const fs = require('fs');
exports.init = function (startupTime, config, events) {
  events.on('flush', function (timestamp, metrics) {
    fs.appendFileSync(config.fabricOpsOutFile, JSON.stringify({ counters: metrics.counters, gauges: metrics.gauges, timers: metrics.timers }) + '\\n');
  });
  return true;
};
`;

// Preloaded into the daemon: Etsy's statsd (0.9.0, its last release) logs through `util.log`,
// which Node 23 removed (DEP0059), so on Node 23+ it crashes at start. This puts back what
// Node 22 defined (a timestamped console.log) when it is missing; the daemon's own code is
// unchanged and runs on the same node as the tests on every line.
const UTIL_LOG_PRELOAD = `'use strict';
const util = require('util');
if (typeof util.log !== 'function') {
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const pad = (n) => String(n).padStart(2, '0');
  util.log = function log(...args) {
    const d = new Date();
    console.log('%s - %s', d.getDate() + ' ' + months[d.getMonth()] + ' ' + [d.getHours(), d.getMinutes(), d.getSeconds()].map(pad).join(':'), util.format(...args));
  };
}
`;

function statsdEntryPoint(): string {
  return createRequire(import.meta.url).resolve('statsd/stats.js');
}

function accumulate(file: string): StatsdReceived {
  const counters: Record<string, number> = {};
  const gauges: Record<string, number> = {};
  const timers: Record<string, number[]> = {};
  if (!existsSync(file)) return { counters, gauges, timers };
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line === '') continue;
    const flush = JSON.parse(line) as { counters: Record<string, number>; gauges: Record<string, number>; timers: Record<string, number[]> };
    for (const [key, value] of Object.entries(flush.counters)) if (!key.startsWith('statsd.') && value !== 0) counters[key] = (counters[key] ?? 0) + value;
    for (const [key, value] of Object.entries(flush.gauges)) if (!key.startsWith('statsd.')) gauges[key] = value;
    for (const [key, values] of Object.entries(flush.timers)) if (values.length > 0) (timers[key] ??= []).push(...values);
  }
  return { counters, gauges, timers };
}

function tcpReachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Etsy's statsd daemon (the npm `statsd` package), on the node running the tests (any line, see
 * UTIL_LOG_PRELOAD), on random loopback ports, UDP and
 * TCP at once, with a file backend recording every flush so tests can read back what
 * arrived.
 */
export async function startStatsd(options: StartStatsdOptions = {}): Promise<StatsdDaemon> {
  const dir = await mkdtemp(join(tmpdir(), 'fabric-ops-statsd-'));
  const backend = join(dir, 'file-backend.js');
  const preload = join(dir, 'util-log.cjs');
  await writeFile(preload, UTIL_LOG_PRELOAD);
  const outFile = join(dir, 'flushes.jsonl');
  await writeFile(backend, FILE_BACKEND);
  const udpPort = await freeUdpPort();
  const tcpPort = await freeTcpPort();
  const mgmtPort = await freeTcpPort();
  const config = {
    servers: [
      { server: './servers/udp', address: '127.0.0.1', port: udpPort },
      { server: './servers/tcp', address: '127.0.0.1', port: tcpPort },
    ],
    mgmt_address: '127.0.0.1',
    mgmt_port: mgmtPort,
    flushInterval: options.flushIntervalMs ?? 200,
    backends: [backend],
    fabricOpsOutFile: outFile,
    title: false,
  };
  const configFile = join(dir, 'config.js');
  await writeFile(configFile, `(${JSON.stringify(config)})\n`);

  let child: ChildProcess | undefined;
  let output = '';
  const launch = async (): Promise<void> => {
    const process_ = spawn(process.execPath, ['--require', preload, statsdEntryPoint(), configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = process_;
    process_.stdout!.setEncoding('utf8').on('data', (c: string) => (output += c));
    process_.stderr!.setEncoding('utf8').on('data', (c: string) => (output += c));
    let exited = false;
    process_.once('exit', () => (exited = true));
    const deadline = Date.now() + 20_000;
    while (!(await tcpReachable(tcpPort))) {
      if (exited) throw new Error(`statsd exited before listening: ${output}`);
      if (Date.now() > deadline) {
        process_.kill('SIGKILL');
        throw new Error(`statsd did not listen on ${tcpPort} within 20 s: ${output}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const kill = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGKILL');
    await exited;
  };
  await launch();

  const received = () => accumulate(outFile);
  return {
    udpAddress: `127.0.0.1:${udpPort}`,
    tcpAddress: `127.0.0.1:${tcpPort}`,
    received,
    async waitFor(check, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const now = received();
        if (check(now)) return now;
        if (Date.now() > deadline) throw new Error(`statsd never received what was expected; it has ${JSON.stringify(now)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    clear() {
      writeFileSync(outFile, '');
    },
    kill,
    async restart() {
      await kill();
      await launch();
    },
    async cleanup() {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
