// The built peer bin (apps/peer/dist/bin.cjs) as a bench target: a core.yaml in its own folder
// (TLS with the given client-CA files, prometheus, the docker checker only when a runtime endpoint
// is given) and the process, resolved once it logs "listening on <address>".
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PEER_BIN = fileURLToPath(new URL('../../apps/peer/dist/bin.cjs', import.meta.url));
const START_TIMEOUT_MS = 60_000;

/** Writes `<dir>/core.yaml` for the peer; `tls` holds certFile, keyFile and caFiles (or caFile), or is null. */
export function writePeerConfig(dir, { tls, clientAuthRequired = false, runtimeEndpoint = '' }) {
  mkdirSync(dir, { recursive: true });
  const caFiles = tls === null ? [] : (tls.caFiles ?? [tls.caFile]);
  writeFileSync(
    join(dir, 'core.yaml'),
    [
      'vm:',
      `  endpoint: ${JSON.stringify(runtimeEndpoint)}`,
      'operations:',
      '  listenAddress: 127.0.0.1:0',
      '  tls:',
      `    enabled: ${tls !== null}`,
      `    cert:\n      file: ${JSON.stringify(tls?.certFile ?? '')}`,
      `    key:\n      file: ${JSON.stringify(tls?.keyFile ?? '')}`,
      `    clientAuthRequired: ${clientAuthRequired}`,
      `    clientRootCAs:\n      files: ${JSON.stringify(caFiles)}`,
      'metrics:',
      '  provider: prometheus',
      '',
    ].join('\n'),
  );
  return dir;
}

/**
 * Starts the peer bin with FABRIC_CFG_PATH=configDir; resolves `{ child, address, port, output() }`.
 * Its log is kept (the last 8 KB) so a failure can say what the peer said.
 */
export function startPeer(configDir, { env = {}, logSpec = 'peer.operations=info:warn' } = {}) {
  return startListening('the peer bin', process.execPath, [PEER_BIN], { FABRIC_CFG_PATH: configDir, FABRIC_LOGGING_SPEC: logSpec, ...env });
}

/**
 * Spawns a bench server (the peer, raw-target.mjs, go-hello, …) and resolves
 * `{ child, address, port, output() }` once it prints "listening on <[host:]port>".
 */
export function startListening(name, command, args, env = {}) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk) => (output = (output + chunk).slice(-8_000));
  child.stderr.setEncoding('utf8').on('data', keep);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not print "listening on" within ${START_TIMEOUT_MS / 1000} s:\n${output}`));
    }, START_TIMEOUT_MS);
    let resolved = false;
    child.once('error', (error) => reject(new Error(`${name} (${command}) did not start: ${error.message}`)));
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      keep(chunk);
      const match = resolved ? null : /listening on "?(?:([\d.]+):)?(\d+)/.exec(output);
      if (match) {
        resolved = true;
        clearTimeout(timer);
        resolve({ child, address: `${match[1] ?? '127.0.0.1'}:${match[2]}`, port: Number(match[2]), output: () => output });
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (!resolved) reject(new Error(`${name} exited (${code ?? signal}) before listening:\n${output}`));
    });
  });
}

/** SIGTERM, then SIGKILL after 5 s; resolves when the process is gone. */
export function stopProcess(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
  });
}
