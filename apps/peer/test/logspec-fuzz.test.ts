import { Agent } from 'node:http';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configDir, send, spawnApp, type RunningApp } from '@fabric-ops/test-kit';

// 10,000 generated bodies against PUT /logspec on the real peer: only 204 or 400, never a
// 5xx, and the active spec is always the last accepted one.

const bin = fileURLToPath(new URL('../dist/bin.cjs', import.meta.url));
let app: RunningApp;

beforeAll(async () => {
  const dir = configDir('core.yaml', 'vm:\n  endpoint: ""\noperations:\n  listenAddress: 127.0.0.1:0\n');
  app = await spawnApp(bin, { env: { FABRIC_CFG_PATH: dir, FABRIC_LOGGING_SPEC: 'peer.operations=info:warn' } });
});
afterAll(() => app?.kill());

const level = fc.constantFrom('debug', 'DEBUG', 'info', 'warn', 'WARNING', 'error', 'fatal', 'panic', 'dpanic', 'payload', 'notice', 'critical', 'Debug', 'bogus', '');
const loggerName = fc.stringMatching(/^[a-z][a-z0-9_#-]{0,6}(\.[a-z0-9]{1,4}){0,2}\.?$/);
const segment = fc.oneof(
  level,
  fc.tuple(fc.array(loggerName, { minLength: 1, maxLength: 3 }), level).map(([names, lvl]) => `${names.join(',')}=${lvl}`),
);
const spec = fc.oneof({ weight: 4, arbitrary: fc.array(segment, { maxLength: 5 }).map((s) => s.join(':')) }, { weight: 1, arbitrary: fc.string({ maxLength: 40 }) });
const body = fc.oneof(
  { weight: 6, arbitrary: spec.map((s) => JSON.stringify({ spec: s })) },
  { weight: 1, arbitrary: spec.map((s) => JSON.stringify({ SPEC: s, extra: 1 })) },
  { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
  { weight: 1, arbitrary: fc.constantFrom('', '{}', 'null', '{"spec":5}', '{"spec":"debug"', '\uFEFF{"spec":"info"}', '{"spec":"info"} junk') },
);

describe('PUT /logspec with generated input', () => {
  it('answers only 204 or 400 and always keeps the last accepted spec', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const bodies = fc.sample(body, { numRuns: 10_000, seed: 20261121 });
    let active = JSON.parse((await send(app.address, '/logspec', { agent })).body).spec as string;
    const statuses = new Map<number, number>();
    for (const [i, text] of bodies.entries()) {
      const reply = await send(app.address, '/logspec', { agent, method: 'PUT', body: text });
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
      expect([204, 400], `body ${JSON.stringify(text)}`).toContain(reply.status);
      if (reply.status === 400) expect(JSON.parse(reply.body)).toHaveProperty('error');
      // Check the active spec after every accepted change, and after every 50th request in any case.
      if (reply.status === 204 || i % 50 === 0) {
        const now = JSON.parse((await send(app.address, '/logspec', { agent })).body).spec as string;
        if (reply.status === 400) expect(now).toBe(active);
        else {
          // What is read back must itself be accepted and read back unchanged.
          const again = await send(app.address, '/logspec', { agent, method: 'PUT', body: JSON.stringify({ spec: now }) });
          expect(again.status).toBe(204);
          expect(JSON.parse((await send(app.address, '/logspec', { agent })).body).spec).toBe(now);
        }
        active = now;
      }
    }
    agent.destroy();
    expect(statuses.get(204) ?? 0).toBeGreaterThan(1_000);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(1_000);
  }, 180_000);
});
