// What the fleet test needs beyond @fabric-ops/test-kit: orderers, a listener that never
// answers, and a real Prometheus discovering its targets from a file_sd file.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeTcpPort, spawnApp, type RunningApp } from '@fabric-ops/test-kit';

export interface OperationsTls {
  readonly certFile: string;
  readonly keyFile: string;
  readonly clientAuthRequired: boolean;
  readonly clientRootCAs: readonly string[];
}

/** An orderer.yaml with operations TLS on a random loopback port. */
export function ordererYaml(tls: OperationsTls): string {
  return [
    'Operations:',
    '  ListenAddress: "127.0.0.1:0"',
    '  TLS:',
    '    Enabled: true',
    `    Certificate: ${JSON.stringify(tls.certFile)}`,
    `    PrivateKey: ${JSON.stringify(tls.keyFile)}`,
    `    ClientAuthRequired: ${tls.clientAuthRequired}`,
    `    ClientRootCAs: ${JSON.stringify(tls.clientRootCAs)}`,
    'Metrics:',
    '  Provider: prometheus',
    '',
  ].join('\n');
}

export interface NodeLauncher {
  /** Spawns a peer or orderer bin with `configText` as its config file; waits until it listens. */
  start(bin: string, configFileName: string, configText: string, env?: NodeJS.ProcessEnv): Promise<RunningApp>;
  /** Kills every node started and removes their config directories. */
  stopAll(): void;
}

/** Starts peers and orderers for one test file, with a start-up allowance for many at once. */
export function nodeLauncher(): NodeLauncher {
  const running: RunningApp[] = [];
  const dirs: string[] = [];
  return {
    async start(bin, configFileName, configText, env = {}) {
      const dir = mkdtempSync(join(tmpdir(), 'fabric-ops-node-'));
      dirs.push(dir);
      writeFileSync(join(dir, configFileName), configText);
      const app = await spawnApp(bin, { env: { FABRIC_CFG_PATH: dir, FABRIC_LOGGING_SPEC: 'info', ...env }, readyTimeoutMs: 90_000 });
      running.push(app);
      return app;
    },
    stopAll() {
      for (const app of running.splice(0)) app.kill();
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A loopback listener that accepts connections and never sends a byte (a hung node). */
export async function startSilentListener(): Promise<{ address: string; close(): Promise<void> }> {
  const held = new Set<Socket>();
  const server: Server = createServer((socket) => {
    held.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => held.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    address: `127.0.0.1:${port}`,
    close: () => {
      for (const socket of held) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export interface FileSdPrometheus {
  readonly url: string;
  /** `/api/v1/query` instant query. */
  query(expression: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  stop(): Promise<void>;
}

/**
 * Debian's `prometheus` with one job that discovers its targets from `fileSd` and scrapes them
 * over mutual TLS with the given client credentials.
 */
export async function startFileSdPrometheus(options: {
  readonly job: string;
  readonly fileSd: string;
  readonly tls: { readonly caFile: string; readonly certFile: string; readonly keyFile: string };
  readonly scrapeIntervalSeconds: number;
}): Promise<FileSdPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'fabric-ops-prometheus-sd-'));
  const configFile = join(dir, 'prometheus.yml');
  writeFileSync(
    configFile,
    [
      'global:',
      `  scrape_interval: ${options.scrapeIntervalSeconds}s`,
      `  scrape_timeout: ${options.scrapeIntervalSeconds}s`,
      'scrape_configs:',
      `  - job_name: ${JSON.stringify(options.job)}`,
      '    scheme: https',
      '    tls_config:',
      `      ca_file: ${JSON.stringify(options.tls.caFile)}`,
      `      cert_file: ${JSON.stringify(options.tls.certFile)}`,
      `      key_file: ${JSON.stringify(options.tls.keyFile)}`,
      '    file_sd_configs:',
      `      - files: [${JSON.stringify(options.fileSd)}]`,
      '',
    ].join('\n'),
  );
  const port = await freeTcpPort();
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const child: ChildProcess = spawn('prometheus', [`--config.file=${configFile}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (output += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (output += c));
  let exited = false;
  child.once('exit', () => (exited = true));
  child.once('error', (error) => {
    exited = true;
    output += String(error);
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await gone;
      clearTimeout(force);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exited || Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus did not become ready: ${output}`);
    }
    if (
      await fetch(`${url}/-/ready`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    async query(expression) {
      const body = (await (await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expression)}`)).json()) as { data: { result: [] } };
      return body.data.result;
    },
    stop,
  };
}
