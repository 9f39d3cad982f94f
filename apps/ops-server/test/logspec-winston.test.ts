// examples/logspec-winston as a real process: /logspec drives two winston loggers per name.
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { freeTcpPort, send } from '@fabric-ops/test-kit';
import { useExample } from './example-process.ts';

const ports = { ops: 0, app: 0 };
const opsAddress = () => `127.0.0.1:${ports.ops}`;
const example = useExample('logspec-winston/index.mjs', () => ({ OPS_ADDRESS: opsAddress(), APP_PORT: String(ports.app) }), { opsAddress, path: '/healthz' });
// Picked while the file loads, before any hook starts the example.
ports.ops = await freeTcpPort();
ports.app = await freeTcpPort();

/** GET /log, then the lines it printed (it ends with app.http's error line, written at every level). */
async function logOnce(): Promise<string[]> {
  const from = example.output().length;
  const reply = await send(`127.0.0.1:${ports.app}`, '/log');
  expect(reply.status).toBe(200);
  const text = await example.waitFor(() => {
    const printed = example.output().slice(from);
    return printed.includes('[app.http] ERROR an error line') ? printed : undefined;
  }, 'app.http error line');
  return text.split('\n').filter((line) => line.includes('[app.'));
}

const shape = (lines: string[]) => lines.map((line) => line.replace(/^\S+ /, ''));

describe('examples/logspec-winston', () => {
  it('logs info and above through app.db and app.http at the start', async () => {
    expect(shape(await logOnce())).toEqual([
      '[app.db] INFO an info line',
      '[app.db] WARN a warn line',
      '[app.db] ERROR an error line',
      '[app.http] INFO an info line',
      '[app.http] WARN a warn line',
      '[app.http] ERROR an error line',
    ]);
  });

  it('after PUT /logspec app.db=debug:warn, prints app.db’s debug line and no app.http info line', async () => {
    const put = await send(opsAddress(), '/logspec', { method: 'PUT', body: '{"spec":"app.db=debug:warn"}' });
    expect(put.status).toBe(204);
    expect((await send(opsAddress(), '/logspec')).body).toBe('{"spec":"app.db=debug:warn"}\n');
    const lines = shape(await logOnce());
    expect(lines).toContain('[app.db] DEBUG a debug line');
    expect(lines).not.toContain('[app.http] INFO an info line');
    expect(lines).toEqual([
      '[app.db] DEBUG a debug line',
      '[app.db] INFO an info line',
      '[app.db] WARN a warn line',
      '[app.db] ERROR an error line',
      '[app.http] WARN a warn line',
      '[app.http] ERROR an error line',
    ]);
  });

  it('counts the winston entries in Fabric’s logging_entries_* metrics', async () => {
    const metrics = (await send(opsAddress(), '/metrics')).body;
    // The debug lines were checked once the spec's lowest level was debug, and app.db's written.
    expect(Number(/^logging_entries_checked\{level="debug"\} (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(2);
    expect(Number(/^logging_entries_written\{level="debug"\} (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
  });

  it('stops on SIGTERM with exit code 0', async () => {
    const exited = once(example.process, 'exit');
    example.process.kill('SIGTERM');
    expect(await exited).toEqual([0, null]);
  });
});
