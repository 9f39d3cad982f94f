import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { isOpsHttpError } from './errors.ts';
import { createVersionHandler, type VersionHandlerOptions } from './version-handler.ts';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(options: VersionHandlerOptions): Promise<number> {
  const server = createServer(createVersionHandler(options));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function call(port: number, method: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/version', method }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('createVersionHandler through node:http', () => {
  it("answers GET with Fabric's document: CommitSHA then Version, json.Marshal's bytes, application/json", async () => {
    const port = await serve({ version: '2.5.16', commitSHA: '4072367' });
    const answer = await call(port, 'GET');
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('{"CommitSHA":"4072367","Version":"2.5.16"}');
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['content-length']).toBe(String(answer.body.length));
  });

  it('leaves an empty field out (omitempty) and escapes as Go does', async () => {
    expect((await call(await serve({ version: 'latest', commitSHA: '' }), 'GET')).body).toBe('{"Version":"latest"}');
    expect((await call(await serve({ version: '', commitSHA: '' }), 'GET')).body).toBe('{}');
    expect((await call(await serve({ version: '<1&2>', commitSHA: 'x' }), 'GET')).body).toBe('{"CommitSHA":"x","Version":"\\u003c1\\u00262\\u003e"}');
  });

  it.each(['PUT', 'POST', 'DELETE', 'HEAD'])('answers %s with 400 and the capital-E Error key', async (method) => {
    const answer = await call(await serve({ version: '1', commitSHA: 'a' }), method);
    expect(answer.status).toBe(400);
    expect(answer.headers['content-type']).toBe('application/json');
    if (method !== 'HEAD') expect(answer.body).toBe(`{"Error":"invalid request method: ${method}"}`);
  });

  it('refuses options that are not strings, naming the key', () => {
    const failure = (options: unknown): string => {
      try {
        createVersionHandler(options as VersionHandlerOptions);
      } catch (error) {
        return isOpsHttpError(error) ? error.message : `not an OpsHttpError: ${String(error)}`;
      }
      return 'no error';
    };
    expect(failure({ version: '1' })).toBe('createVersionHandler: commitSHA must be a string (empty to leave it out), got undefined');
    expect(failure({ version: 1, commitSHA: 'a' })).toBe('createVersionHandler: version must be a string (empty to leave it out), got number');
    expect(failure(undefined)).toBe('createVersionHandler: options { version, commitSHA } are required');
  });
});
