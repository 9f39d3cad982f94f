// What the fleet test needs beyond @fabric-ops/test-kit: a launcher for peers and orderers
// alike, and a listener that never answers. (The Prometheus that discovers targets from a
// file_sd file is test-kit's startPrometheus; the orderer.yaml is test-kit's ordererYaml.)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnApp, type RunningApp } from '@fabric-ops/test-kit';

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
