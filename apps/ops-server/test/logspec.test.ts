import { createLogging, type Logging } from '@fabric-ops/ops-logspec';
import type { TlsSettings } from '@fabric-ops/ops-tls-auth';
import { createTestPki, send, type TestPki } from '@fabric-ops/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationsSystem, OperationsSystemOptions } from '../src/index.ts';
import { useSystems } from './systems.ts';

let pki: TestPki;
beforeAll(async () => {
  pki = await createTestPki();
});
afterAll(() => pki.cleanup());

const systems = useSystems();

function jsonLogging(): { logging: Logging; records: () => Record<string, unknown>[] } {
  const lines: string[] = [];
  const logging = createLogging({ format: 'json', destination: { write: (line: string) => void lines.push(line) } });
  return { logging, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

const start = (options: Partial<OperationsSystemOptions>): Promise<OperationsSystem> => systems.start(options);

const tlsOn = (): TlsSettings => ({ enabled: true, clientAuthRequired: false, ...pki.serverTls });

describe('/logspec in the operations system', () => {
  it('serves the given registry and exposes it as system.logging', async () => {
    const { logging, records } = jsonLogging();
    const system = await start({ logging, loggerName: 'test.operations' });
    expect(system.logging).toBe(logging);
    const early = logging.getLogger('gossip');
    expect((await send(system.address(), '/logspec', { method: 'PUT', body: '{"spec":"gossip=debug:warn"}' })).status).toBe(204);
    expect(logging.spec()).toBe('gossip=debug:warn');
    expect(early.isLevelEnabled('debug')).toBe(true);
    const reply = await send(system.address(), '/logspec');
    expect(reply.body).toBe('{"spec":"gossip=debug:warn"}\n');
    expect(records().filter((r) => r['msg'] === 'logging spec changed')).toEqual([expect.objectContaining({ name: 'operations', oldSpec: 'info', newSpec: 'gossip=debug:warn' })]);
  });

  it('writes its own lines through logging.getLogger(loggerName)', async () => {
    const { logging, records } = jsonLogging();
    const system = await start({ logging, loggerName: 'test.operations' });
    system.addRoute({
      path: '/broken',
      secure: false,
      handler: () => {
        throw new Error('boom');
      },
    });
    expect((await send(system.address(), '/broken')).status).toBe(500);
    expect(records()).toContainEqual(expect.objectContaining({ name: 'test.operations', level: 50, msg: 'operations handler failed' }));
  });

  it('names the verified client certificate in the audit line when TLS is on, and needs one', async () => {
    const { logging, records } = jsonLogging();
    const system = await start({ logging, tls: tlsOn() });
    const noCert = await send(system.address(), '/logspec', { method: 'PUT', body: '{"spec":"debug"}', tls: { ca: pki.ca.cert } });
    expect(noCert.status).toBe(401);
    expect(logging.spec()).toBe('info');
    const withCert = await send(system.address(), '/logspec', {
      method: 'PUT',
      body: '{"spec":"debug"}',
      tls: { ca: pki.ca.cert, cert: pki.clients.good.cert, key: pki.clients.good.key },
    });
    expect(withCert.status).toBe(204);
    const audit = records().filter((r) => r['msg'] === 'logging spec changed');
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ oldSpec: 'info', newSpec: 'debug' });
    expect(audit[0]!['client']).toMatch(/CN=operator/);
    expect(audit[0]!['remoteAddress']).toMatch(/^127\.0\.0\.1:\d+$/);
  });
});
