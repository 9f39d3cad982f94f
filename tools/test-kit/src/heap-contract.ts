import { writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { useAppHarness } from './app-harness.ts';
import { send } from './http-client.ts';
import { signalledReport, type RunningApp } from './spawn-app.ts';
import { describe, expect, it } from 'vitest';

// Loaded with --import ahead of the bin: reports V8's young-generation size on SIGUSR2.
const PROBE = `import { getHeapSpaceStatistics } from 'node:v8';
process.on('SIGUSR2', () => {
  const space = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  process.stderr.write('young-generation-bytes ' + space.space_size + '\\n');
});
`;

const youngGenerationBytes = async (app: RunningApp): Promise<number> => Number(await signalledReport(app, 'young-generation-bytes '));

const MiB = 1024 * 1024;

/**
 * The bins' heap is V8's, sized by node's defaults or by the operator's own options, never by
 * the bin at run time: checked on a built bin under keep-alive load. With no option the young
 * generation grows past 4 MiB as V8 sizes it (a bin that froze it, as earlier versions did with
 * `v8.setFlagsFromString`, fails this); `--max-semi-space-size=1` in NODE_OPTIONS holds it.
 * `configYaml` must listen on 127.0.0.1:0 with metrics on.
 */
export function heapLimitsContract(name: string, bin: string, configFileName: string, configYaml: string): void {
  const { configDir, emptyDir, start } = useAppHarness(bin, configFileName);
  /**
   * Starts the bin with the probe (and `nodeOptions`) and sends keep-alive requests in rounds of
   * 2,400, `rounds` at most, stopping early once the young generation is above `stopAbove`;
   * returns its size. How many requests V8 needs before it grows the young generation depends on
   * what each request leaves behind, which changes with the bins' code, so the load is not a
   * fixed count.
   */
  async function youngGenerationAfterLoad(nodeOptions: string, rounds: number, stopAbove = Number.POSITIVE_INFINITY): Promise<number> {
    const probe = join(emptyDir(), 'probe.mjs');
    writeFileSync(probe, PROBE);
    const dir = configDir(configYaml);
    const app = await start({ FABRIC_CFG_PATH: dir, NODE_OPTIONS: `--import ${probe} ${nodeOptions}` });
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    let bytes = 0;
    try {
      const paths = ['/metrics', '/version', '/logspec', '/healthz'];
      const worker = async (offset: number): Promise<void> => {
        for (let i = 0; i < 600; i++) {
          const reply = await send(app.address, paths[(i + offset) % paths.length]!, { agent });
          expect(reply.status).toBe(200);
        }
      };
      for (let round = 0; round < rounds && bytes <= stopAbove; round++) {
        await Promise.all([0, 1, 2, 3].map(worker));
        bytes = await youngGenerationBytes(app);
      }
    } finally {
      agent.destroy();
    }
    return bytes;
  }

  describe(`${name} bin heap`, () => {
    it("leaves the young generation to V8's defaults: it grows under load", async () => {
      expect(await youngGenerationAfterLoad('', 12, 4 * MiB)).toBeGreaterThan(4 * MiB);
    }, 180_000);

    it("takes the operator's --max-semi-space-size from NODE_OPTIONS", async () => {
      const bytes = await youngGenerationAfterLoad('--max-semi-space-size=1', 3);
      expect(bytes).toBeGreaterThan(0);
      expect(bytes).toBeLessThanOrEqual(2 * MiB);
    }, 120_000);
  });
}
