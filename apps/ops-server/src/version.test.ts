import { describe, expect, it } from 'vitest';
import { resolveCommitSha, versionHandler, type VersionInfo } from './version.ts';

/**
 * The headers a `writeHead` call was given, as one map by lower-cased name: HTTP header names are
 * case-insensitive, and a writer may pass an object or Node's flat `[name, value, …]` array.
 */
function headerMap(given: Record<string, unknown> | unknown[] | undefined): Map<string, string> {
  const pairs: [unknown, unknown][] = Array.isArray(given) ? Array.from({ length: given.length / 2 }, (_, i) => [given[2 * i], given[2 * i + 1]]) : Object.entries(given ?? {});
  return new Map(pairs.map(([name, value]) => [String(name).toLowerCase(), String(value)]));
}

function call(handler: ReturnType<typeof versionHandler>, method: string) {
  const result = { status: 0, headers: new Map<string, string>(), body: '' };
  const res = {
    writeHead(status: number, headers: Record<string, unknown> | unknown[]) {
      result.status = status;
      result.headers = headerMap(headers);
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
    const reply = call(versionHandler({ version: '1.2.3', commitSHA: 'abc1234' }), 'GET');
    expect(reply.status).toBe(200);
    expect(reply.body).toBe('{"CommitSHA":"abc1234","Version":"1.2.3"}');
    expect(reply.headers.get('content-type')).toBe('application/json');
    expect(reply.headers.get('content-length')).toBe(String(reply.body.length));
  });

  it('omits empty fields as Go omitempty does', () => {
    expect(call(versionHandler({ version: 'latest', commitSHA: '' }), 'GET').body).toBe('{"Version":"latest"}');
    expect(call(versionHandler({ version: '', commitSHA: '' }), 'GET').body).toBe('{}');
  });

  it('answers other methods 400 with a capital-E Error', () => {
    const reply = call(versionHandler({ version: '1', commitSHA: 'x' }), 'PUT');
    expect(reply.status).toBe(400);
    expect(reply.body).toBe('{"Error":"invalid request method: PUT"}');
    expect(reply.headers.get('content-type')).toBe('application/json');
  });

  it('refuses a field that is not a string, naming the option', () => {
    const bad = (info: unknown) => () => versionHandler(info as VersionInfo);
    expect(bad({ version: '1' })).toThrowError(
      expect.objectContaining({ code: 'INVALID_OPTIONS', message: 'invalid operations option version.commitSHA: expected a string (empty to leave it out), got undefined' }),
    );
    expect(bad({ version: 1, commitSHA: 'a' })).toThrowError('invalid operations option version.version: expected a string (empty to leave it out), got number');
    expect(bad({ version: null, commitSHA: 'a' })).toThrowError('got null');
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
