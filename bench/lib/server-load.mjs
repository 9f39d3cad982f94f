// Runs lib/load.mjs against a server process and samples that process's CPU time exactly around
// the measured requests: the load generator opens its connections, says "ready", and starts its
// window when told (keep-alive handshakes and start-up stay outside the figure).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cpuSeconds, rssMiB } from './proc.mjs';

const loadScript = fileURLToPath(new URL('./load.mjs', import.meta.url));

/** Resolves the load's result with `cpuUsPerRequest` of the server `pid` and its peak RSS meanwhile. */
export function runServerLoad(pid, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [loadScript, JSON.stringify({ ...options, gate: true })], { stdio: ['pipe', 'pipe', 'inherit'] });
    let peakRssMiB = 0;
    const sampler = setInterval(() => {
      try {
        peakRssMiB = Math.max(peakRssMiB, rssMiB(pid));
      } catch {
        // the server is gone; the load reports the failures
      }
    }, 200);
    let out = '';
    let cpuBefore;
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk;
      if (cpuBefore === undefined && out.startsWith('ready\n')) {
        cpuBefore = cpuSeconds(pid);
        out = out.slice('ready\n'.length);
        child.stdin.end('go\n');
      }
      if (cpuBefore !== undefined && out.endsWith('\n')) {
        const cpu = cpuSeconds(pid) - cpuBefore;
        clearInterval(sampler);
        const result = JSON.parse(out);
        resolve({ ...result, peakRssMiB, cpuSeconds: cpu, cpuUsPerRequest: result.completed > 0 ? (cpu * 1e6) / result.completed : Number.NaN });
      }
    });
    child.once('exit', (code) => {
      clearInterval(sampler);
      if (code !== 0) reject(new Error(`the load generator (lib/load.mjs) exited ${code}`));
    });
  });
}
