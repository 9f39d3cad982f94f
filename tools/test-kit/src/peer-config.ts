import { rmSync } from 'node:fs';
import { configDir } from './app-contract.ts';
import { spawnApp, type RunningApp } from './spawn-app.ts';

/** Operations TLS files for a test peer (ops-config's shape, peer key names). */
export interface PeerTlsFiles {
  readonly certFile: string;
  readonly keyFile: string;
  readonly clientAuthRequired: boolean;
  readonly clientRootCAs: readonly string[];
}

export interface PeerSetup {
  readonly tls?: PeerTlsFiles;
  /** `prometheus` (default), `statsd` or `disabled`. */
  readonly provider?: string;
  /** `vm.endpoint`; default `""` (no docker checker). */
  readonly vmEndpoint?: string;
}

/** A core.yaml for a test peer on a random loopback port. */
export function peerCoreYaml(setup: PeerSetup = {}): string {
  const tls = setup.tls;
  return [
    'vm:',
    `  endpoint: ${JSON.stringify(setup.vmEndpoint ?? '')}`,
    'operations:',
    '  listenAddress: 127.0.0.1:0',
    '  tls:',
    `    enabled: ${tls !== undefined}`,
    '    cert:',
    `      file: ${JSON.stringify(tls?.certFile ?? '')}`,
    '    key:',
    `      file: ${JSON.stringify(tls?.keyFile ?? '')}`,
    `    clientAuthRequired: ${tls?.clientAuthRequired ?? false}`,
    '    clientRootCAs:',
    `      files: ${JSON.stringify(tls?.clientRootCAs ?? [])}`,
    'metrics:',
    `  provider: ${setup.provider ?? 'prometheus'}`,
    '',
  ].join('\n');
}

export interface OrdererSetup {
  /** `Operations.ListenAddress`; default a random loopback port. */
  readonly listenAddress?: string;
  /** Operations TLS; off without it. `enabled: false` writes the files with TLS off. */
  readonly tls?: PeerTlsFiles & { readonly enabled?: boolean };
}

/** An orderer.yaml for a test orderer (the orderer's key names), Prometheus metrics. */
export function ordererYaml(setup: OrdererSetup = {}): string {
  const tls = setup.tls;
  return [
    'Operations:',
    `  ListenAddress: ${JSON.stringify(setup.listenAddress ?? '127.0.0.1:0')}`,
    '  TLS:',
    `    Enabled: ${tls?.enabled ?? tls !== undefined}`,
    `    Certificate: ${JSON.stringify(tls?.certFile ?? '')}`,
    `    PrivateKey: ${JSON.stringify(tls?.keyFile ?? '')}`,
    `    ClientAuthRequired: ${tls?.clientAuthRequired ?? false}`,
    `    ClientRootCAs: ${JSON.stringify(tls?.clientRootCAs ?? [])}`,
    'Metrics:',
    '  Provider: prometheus',
    '',
  ].join('\n');
}

export interface PeerLauncher {
  /** Spawns the peer bin with a core.yaml from `setup` and waits for its listening line. */
  start(setup?: PeerSetup, env?: NodeJS.ProcessEnv, nodeArgs?: readonly string[]): Promise<RunningApp>;
  /** Kills every peer started and removes their config directories. */
  stopAll(): void;
}

/** Starts peers from `peerBin` (its `dist/bin.cjs`) for one test file; call stopAll in afterAll. */
export function peerLauncher(peerBin: string): PeerLauncher {
  const running: RunningApp[] = [];
  const dirs: string[] = [];
  return {
    async start(setup = {}, env = {}, nodeArgs = []) {
      const dir = configDir('core.yaml', peerCoreYaml(setup));
      dirs.push(dir);
      const app = await spawnApp(peerBin, { env: { FABRIC_CFG_PATH: dir, FABRIC_LOGGING_SPEC: 'info', ...env }, nodeArgs });
      running.push(app);
      return app;
    },
    stopAll() {
      for (const app of running.splice(0)) app.kill();
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}
