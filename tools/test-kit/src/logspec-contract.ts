import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configDir } from './app-contract.ts';
import { send } from './http-client.ts';
import { DECODE_CASES, ERROR_CASES, SPEC_CASES } from './logspec-gold.ts';
import { listeningFields, runAppToExit, spawnApp, type RunningApp } from './spawn-app.ts';

export interface LogspecContract {
  /** Absolute path of the built bin (`dist/bin.cjs` for the peer and orderer). */
  readonly bin: string;
  /** `core.yaml` or `orderer.yaml`. */
  readonly configFileName: string;
  /** A config file whose operations server listens on `address` over plain HTTP. */
  readonly configWithListenAddress: (address: string) => string;
}

async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * /logspec through HTTP against a running bin: Fabric's gold tables via PUT then GET, every
 * decode row, other methods, the audit line, and loggers made before a PUT following it.
 */
export function describeLogspecContract(name: string, contract: LogspecContract): void {
  const startApp = (env: NodeJS.ProcessEnv) => {
    const dir = configDir(contract.configFileName, contract.configWithListenAddress('127.0.0.1:0'));
    return spawnApp(contract.bin, { env: { FABRIC_CFG_PATH: dir, FABRIC_LOGGING_FORMAT: '', FABRIC_LOGGING_SPEC: '', ...env } });
  };

  describe(`${name} /logspec over HTTP`, () => {
    let app: RunningApp;
    beforeAll(async () => {
      app = await startApp({});
    });
    afterAll(() => app?.kill());

    const put = (body: string | Buffer) => send(app.address, '/logspec', { method: 'PUT', body });
    const specNow = async () => {
      const reply = await send(app.address, '/logspec');
      expect(reply.status).toBe(200);
      expect(reply.headers['content-type']).toBe('application/json');
      return reply.body;
    };

    it('starts at info when FABRIC_LOGGING_SPEC is empty', async () => {
      expect(await specNow()).toBe('{"spec":"info"}\n');
    });

    it.each(SPEC_CASES)('PUT %j reads back as %j', async (input, normalised) => {
      const reply = await put(JSON.stringify({ spec: input }));
      expect(reply.status).toBe(204);
      expect(reply.body).toBe('');
      expect(await specNow()).toBe(`${JSON.stringify({ spec: normalised })}\n`);
    });

    it.each(ERROR_CASES)('PUT %j is refused and the old spec stays active', async (spec, message) => {
      expect((await put('{"spec":"fatal:a=warn"}')).status).toBe(204);
      const reply = await put(JSON.stringify({ spec }));
      expect(reply.status).toBe(400);
      expect(reply.headers['content-type']).toBe('application/json');
      expect(reply.body).toBe(`${JSON.stringify({ error: message })}\n`);
      expect(await specNow()).toBe('{"spec":"a=warn:fatal"}\n');
    });

    it.each(DECODE_CASES)('decode row: $name', async (row) => {
      expect((await put('{"spec":"x=debug:fatal"}')).status).toBe(204);
      const reply = await put(row.body);
      expect(reply.status).toBe(row.status);
      if (row.status === 400) {
        expect(reply.body).toBe(`${JSON.stringify({ error: row.error })}\n`);
        expect(await specNow()).toBe('{"spec":"x=debug:fatal"}\n');
      } else {
        expect(reply.body).toBe('');
        expect(await specNow()).toBe(`{"spec":"${row.specAfter}"}\n`);
      }
    });

    it.each(['POST', 'DELETE', 'PATCH'])('%s → 400 invalid request method, spec unchanged', async (method) => {
      expect((await put('{"spec":"warn"}')).status).toBe(204);
      const reply = await send(app.address, '/logspec', { method, body: '{"spec":"debug"}' });
      expect(reply.status).toBe(400);
      expect(reply.body).toBe(`{"error":"invalid request method: ${method}"}\n`);
      expect(await specNow()).toBe('{"spec":"warn"}\n');
    });

    it('a logger made at start-up logs at the new level right after the 204, and each change is logged once', async () => {
      // stdout is ordered: once a change line is here, everything written before it is too.
      const lineIndex = (text: string) => app.stdout.findIndex((line) => line.includes(text));
      const after = (index: number, text: string) => app.stdout.slice(index + 1).filter((line) => line.includes(text));
      expect((await put('{"spec":"marker.before=info:info"}')).status).toBe(204);
      const marker = await waitFor('the first change line', () => {
        const index = lineIndex('newSpec="marker.before=info:info"');
        return index === -1 ? undefined : index;
      });
      await specNow(); // at info: this read is not logged
      expect((await put('{"spec":"operations=debug:info"}')).status).toBe(204);
      const changeIndex = await waitFor('the second change line', () => {
        const index = lineIndex('newSpec="operations=debug:info"');
        return index === -1 ? undefined : index;
      });
      expect(app.stdout[changeIndex]).toMatch(/\[operations\] INFO logging spec changed oldSpec="marker.before=info:info" newSpec="operations=debug:info" remoteAddress=127\.0\.0\.1:\d+$/);
      expect(after(marker, 'logging spec read')).toEqual([]);
      await specNow();
      const debug = await waitFor('a debug line', () => after(changeIndex, 'logging spec read')[0]);
      expect(debug).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} UTC \[operations\] DEBUG logging spec read remoteAddress=127\.0\.0\.1:\d+$/);
      // A refused PUT logs no change and leaves debug on.
      expect((await put('{"spec":"bogus"}')).status).toBe(400);
      await specNow();
      await waitFor('a second debug line', () => (after(changeIndex, 'logging spec read').length >= 2 ? true : undefined));
      expect(after(marker, 'logging spec changed')).toHaveLength(1);
    });
  });

  describe(`${name} logging from the environment`, () => {
    let app: RunningApp | undefined;
    afterAll(() => app?.kill());

    it('reads FABRIC_LOGGING_SPEC and writes JSON lines with FABRIC_LOGGING_FORMAT=json', async () => {
      app = await startApp({ FABRIC_LOGGING_SPEC: 'operations.=debug:warning:peer.operations,orderer.operations=info', FABRIC_LOGGING_FORMAT: 'json' });
      const listening = listeningFields(app.stdout);
      expect(listening).toMatchObject({ level: 30, name: `${name}.operations` });
      const reply = await send(app.address, '/logspec');
      expect(reply.body).toBe('{"spec":"operations.=debug:orderer.operations=info:peer.operations=info:warn"}\n');
      const read = await waitFor('a JSON debug line', () => app!.stdout.find((line) => line.includes('logging spec read')));
      expect(JSON.parse(read)).toMatchObject({ level: 20, name: 'operations', msg: 'logging spec read' });
    });

    it('stops start-up with one line when FABRIC_LOGGING_SPEC is invalid', async () => {
      const dir = configDir(contract.configFileName, contract.configWithListenAddress('127.0.0.1:0'));
      const result = await runAppToExit(contract.bin, { env: { FABRIC_CFG_PATH: dir, FABRIC_LOGGING_SPEC: 'a=debug:Debug' } });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe("FABRIC_LOGGING_SPEC: invalid logging specification 'a=debug:Debug': bad segment 'Debug'\n");
      expect(result.stdout).toBe('');
    });
  });
}
