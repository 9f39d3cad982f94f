// podman's Docker-compatible API on a temp socket, configured to need nothing from the host
// (vfs storage, cgroupfs, file events) so it runs as root in a bare container.
// The tests' helper (tools/test-kit/src/podman.ts) runs the same service, restartable; it is
// TypeScript with no built dist/, which plain node cannot import on Node 20, so the benches (run
// on every Node line) keep this small one and share only the command line, which is plain JavaScript.
import { spawn, spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import { podmanServiceArgs } from '../../tools/test-kit/src/podman-shared.mjs';

export function pingRuntime(socketPath) {
  return new Promise((resolve) => {
    const req = request({ socketPath, path: '/_ping', agent: false, timeout: 2_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

export async function startPodmanService(dir) {
  const probe = spawnSync('podman', ['--version'], { encoding: 'utf8' });
  if (probe.error !== undefined || probe.status !== 0) throw new Error('podman is not installed: run scripts/test-deps.sh (apt-get install podman) first');
  const socketPath = join(dir, 'docker.sock');
  const child = spawn('podman', podmanServiceArgs(dir, socketPath), { stdio: 'ignore' });
  const deadline = Date.now() + 20_000;
  while ((await pingRuntime(socketPath)) !== 200) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error('podman system service did not answer /_ping within 20 s');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    endpoint: `unix://${socketPath}`,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3_000).unref();
      }),
  };
}
