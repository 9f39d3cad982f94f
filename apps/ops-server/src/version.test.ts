import { describe, expect, it } from 'vitest';
import { resolveCommitSha, versionHandler } from './version.ts';

function call(handler: ReturnType<typeof versionHandler>, method: string) {
  const result = { status: 0, headers: {} as Record<string, unknown>, body: '' };
  const res = {
    writeHead(status: number, headers: Record<string, unknown>) {
      result.status = status;
      result.headers = headers;
    },
    end(body: string) {
      result.body = body;
    },
  };
  handler({ method } as never, res as never);
  return result;
}

describe('/version', () => {
  it('answers GET with CommitSHA then Version, no trailing newline', () => {
    const reply = call(versionHandler({ version: '1.2.3', commitSha: 'abc1234' }), 'GET');
    expect(reply.status).toBe(200);
    expect(reply.body).toBe('{"CommitSHA":"abc1234","Version":"1.2.3"}');
    expect(reply.headers['Content-Type']).toBe('application/json');
  });

  it('omits empty fields as Go omitempty does', () => {
    expect(call(versionHandler({ version: 'latest', commitSha: '' }), 'GET').body).toBe('{"Version":"latest"}');
    expect(call(versionHandler({ version: '', commitSha: '' }), 'GET').body).toBe('{}');
  });

  it('answers other methods 400 with a capital-E Error', () => {
    const reply = call(versionHandler({ version: '1', commitSha: 'x' }), 'PUT');
    expect(reply.status).toBe(400);
    expect(reply.body).toBe('{"Error":"invalid request method: PUT"}');
  });
});

describe('resolveCommitSha', () => {
  it('prefers the environment override', () => {
    expect(resolveCommitSha({ FABRIC_OPS_COMMIT_SHA: 'feedbee' })).toBe('feedbee');
  });
  it('falls back to the SHA baked in at build time, never empty', () => {
    const sha = resolveCommitSha({});
    expect(sha).not.toBe('');
    expect(sha === 'development build' || /^[0-9a-f]{7,}$/.test(sha)).toBe(true);
  });
});
