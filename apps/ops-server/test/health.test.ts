import { describe, expect, it } from 'vitest';
import type { OperationsSystem } from '../src/index.ts';
import { send } from '@fabric-ops/test-kit';
import { useSystems } from './systems.ts';

const systems = useSystems();
const started = (health?: { checkTimeoutMs?: number; deadlineMs?: number }): Promise<OperationsSystem> => systems.start(health ? { health } : {});

describe('health in the operations system', () => {
  it('serves /healthz with no checkers as 200 OK, and checkers registered at run time', async () => {
    const s = await started();
    const empty = await send(s.address(), '/healthz');
    expect(empty.status).toBe(200);
    expect(empty.body).toMatch(/^\{"status":"OK","time":"[^"]+"\}$/);
    s.registerChecker('db', async () => Promise.reject(new Error('db is down')));
    const failing = await send(s.address(), '/healthz');
    expect(failing.status).toBe(503);
    expect(JSON.parse(failing.body).failed_checks).toEqual([{ component: 'db', reason: 'db is down' }]);
    expect(() => s.registerChecker('db', async () => {})).toThrow("'db' is already registered");
    s.deregisterChecker('db');
    s.deregisterChecker('never-registered');
    expect((await send(s.address(), '/healthz')).status).toBe(200);
    for (const path of ['/livez', '/readyz']) expect((await send(s.address(), path)).status).toBe(200);
    expect((await send(s.address(), '/healthz/', { method: 'GET' })).status).toBe(404);
    expect((await send(s.address(), '/healthz', { method: 'HEAD' })).status).toBe(405);
  });

  it('passes the health options through', async () => {
    const s = await started({ checkTimeoutMs: 50 });
    s.registerChecker('hung', () => new Promise(() => {}));
    const reply = await send(s.address(), '/healthz');
    expect(reply.status).toBe(503);
    expect(JSON.parse(reply.body).failed_checks[0].reason).toBe('health check timed out after 50ms');
  });

  it('turns /readyz to 503 once stop() begins, even for a readiness check already running', async () => {
    const s = await started();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let checking!: () => void;
    const checkStarted = new Promise<void>((r) => (checking = r));
    s.registerChecker('slow', async () => {
      checking();
      await held;
    });
    const inFlight = send(s.address(), '/readyz');
    await checkStarted;
    const stopping = s.stop();
    release();
    const reply = await inFlight;
    await stopping;
    expect(reply.status).toBe(503);
    expect(JSON.parse(reply.body)).toMatchObject({ status: 'Service Unavailable', failed_checks: [{ component: 'shutdown', reason: 'the process is shutting down' }] });
  });
});
