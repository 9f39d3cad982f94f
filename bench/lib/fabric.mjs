// Fabric's own operations server as a reference, when the user gives one: FABRIC_OPS_BENCH_FABRIC
// names a binary built from Fabric's source (see bench/README.md, "The Fabric reference binary"):
//   <binary> [listen-address]       (default 127.0.0.1:0)
// prints its bound address as the first line of stdout and stops on SIGTERM or SIGINT; TLS from
// PROBE_TLS_CERT, PROBE_TLS_KEY, PROBE_TLS_CLIENT_CAS (comma-separated files) and
// PROBE_TLS_CLIENT_REQUIRED=1. Without the variable every Fabric column says "not given".
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

const START_TIMEOUT_MS = 15_000;

/** `{ binary }` when FABRIC_OPS_BENCH_FABRIC names an executable file, else `{ missing }` saying why. */
export function fabricReference() {
  const binary = process.env.FABRIC_OPS_BENCH_FABRIC;
  if (binary === undefined || binary === '') return { missing: 'not given' };
  try {
    accessSync(binary, constants.X_OK);
  } catch {
    throw new Error(`FABRIC_OPS_BENCH_FABRIC=${binary}: no such executable file (expected Fabric's reference binary, see bench/README.md)`);
  }
  return { binary };
}

/**
 * The environment that configures the reference binary's TLS: `files` holds certFile, keyFile and
 * caFile (or caFiles, an array) as the bench PKI makes them.
 */
export function fabricTlsEnv(files, clientAuthRequired) {
  const cas = files.caFiles ?? [files.caFile];
  return {
    PROBE_TLS_CERT: files.certFile,
    PROBE_TLS_KEY: files.keyFile,
    PROBE_TLS_CLIENT_CAS: cas.join(','),
    PROBE_TLS_CLIENT_REQUIRED: clientAuthRequired ? '1' : '0',
  };
}

/**
 * Starts the reference binary and resolves `{ child, address, port, stderr() }` once its first
 * stdout line (the bound address) arrives; rejects with its stderr when it exits or stays silent.
 */
export function startFabric(binary, env, listenAddress = '127.0.0.1:0') {
  const child = spawn(binary, [listenAddress], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4_000);
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`Fabric reference ${binary} printed no address within ${START_TIMEOUT_MS / 1000} s:\n${stderr}`));
    }, START_TIMEOUT_MS);
    child.once('error', (error) => reject(new Error(`Fabric reference ${binary} did not start: ${error.message}`)));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`Fabric reference ${binary} exited (${code ?? signal}) before printing its address:\n${stderr}`));
    });
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk;
      const newline = out.indexOf('\n');
      if (newline === -1) return;
      clearTimeout(timer);
      child.stdout.removeAllListeners('data');
      child.stdout.resume();
      const address = out.slice(0, newline).trim();
      const port = Number(address.slice(address.lastIndexOf(':') + 1));
      if (!Number.isInteger(port) || port <= 0) {
        child.kill('SIGKILL');
        reject(new Error(`Fabric reference ${binary}: first stdout line should be its address (host:port), got '${address}'`));
        return;
      }
      resolve({ child, address, port, stderr: () => stderr });
    });
  });
}
