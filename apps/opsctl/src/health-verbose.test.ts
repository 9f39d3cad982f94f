import { describe, expect, it } from 'vitest';
import type { OpsClient, OpsResponse } from './client.ts';
import { runCommand } from './commands.ts';

function clientAnswering(reply: OpsResponse, asked: string[]): OpsClient {
  return {
    origin: 'http://127.0.0.1:9443',
    request: async (_method, path) => {
      asked.push(path);
      return reply;
    },
  };
}

describe('opsctl health --verbose', () => {
  it("renders /healthz's JSON as per-check lines, since /healthz (ours and Fabric's) ignores ?verbose", async () => {
    const asked: string[] = [];
    const body = '{"status":"Service Unavailable","time":"2026-11-23T17:00:00Z","failed_checks":[{"component":"docker","reason":"daemon down"}]}';
    const client = clientAnswering({ status: 503, headers: { 'content-type': 'application/json' }, body }, asked);
    const result = await runCommand(client, { kind: 'health', endpoint: 'healthz', verbose: true }, false);
    expect(result).toEqual({ exitCode: 1, stdout: '[-]docker failed: daemon down\nhealthz check failed\n' });
    const passing = clientAnswering({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"status":"OK","time":"t"}' }, asked);
    expect(await runCommand(passing, { kind: 'health', endpoint: 'healthz', verbose: true }, false)).toEqual({ exitCode: 0, stdout: 'healthz check passed\n' });
  });

  it("prints the server's text as is where ?verbose is served", async () => {
    const asked: string[] = [];
    const text = '[+]docker ok (1ms)\nreadyz check passed\n';
    const client = clientAnswering({ status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: text }, asked);
    expect(await runCommand(client, { kind: 'health', endpoint: 'readyz', verbose: true }, false)).toEqual({ exitCode: 0, stdout: text });
    expect(asked).toEqual(['/readyz?verbose']);
  });
});
