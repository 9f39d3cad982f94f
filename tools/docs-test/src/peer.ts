import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configDir, spawnApp, type RunningApp } from '@fabric-ops/test-kit';

export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
export const PEER_BIN = fileURLToPath(new URL('../../../apps/peer/dist/bin.js', import.meta.url));
export const ORDERER_BIN = fileURLToPath(new URL('../../../apps/orderer/dist/bin.js', import.meta.url));
export const OPSCTL_BIN = fileURLToPath(new URL('../../../apps/opsctl/dist/bin.js', import.meta.url));

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
  /** Extra core.yaml text appended at the end. */
  readonly extraYaml?: string;
}

/** A core.yaml for a test peer on a random loopback port, with no docker checker. */
export function peerCoreYaml(setup: PeerSetup = {}): string {
  const tls = setup.tls;
  return [
    'vm:',
    '  endpoint: ""',
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
    setup.extraYaml ?? '',
    '',
  ].join('\n');
}

/** Starts peers and kills them (and removes their config dirs) in `stopAll`. */
export function peerLauncher() {
  const running: RunningApp[] = [];
  const dirs: string[] = [];
  return {
    async start(setup: PeerSetup = {}, env: NodeJS.ProcessEnv = {}): Promise<RunningApp> {
      const dir = configDir('core.yaml', peerCoreYaml(setup));
      dirs.push(dir);
      const app = await spawnApp(PEER_BIN, { env: { FABRIC_CFG_PATH: dir, FABRIC_LOGGING_SPEC: 'info', ...env } });
      running.push(app);
      return app;
    },
    stopAll(): void {
      for (const app of running.splice(0)) app.kill();
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}
