import { goJson } from '@fabric-ops/ops-http';
import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../registry.ts';
import { fabricHealthResponse, healthyBody, verboseText } from './report.ts';

const ok = (component: string, durationMs = 1.5): CheckResult => ({ component, healthy: true, durationMs, cached: false });
const bad = (component: string, reason: string, durationMs = 2): CheckResult => ({ component, healthy: false, reason, durationMs, cached: false });

describe('fabricHealthResponse', () => {
  it('is 200 with status and time only when nothing failed', () => {
    const { status, body } = fabricHealthResponse({ time: '2026-11-21T05:25:34.43299052Z', failed: [] });
    expect(status).toBe(200);
    expect(goJson(body)).toBe('{"status":"OK","time":"2026-11-21T05:25:34.43299052Z"}');
  });

  it('is 503 with failed_checks in Fabric key order and Go escaping', () => {
    const { status, body } = fabricHealthResponse({ time: 'T', failed: [bad('couchdb', 'a <b> & c'), bad('docker', 'down')] });
    expect(status).toBe(503);
    expect(goJson(body)).toBe('{"status":"Service Unavailable","time":"T","failed_checks":[{"component":"couchdb","reason":"a \\u003cb\\u003e \\u0026 c"},{"component":"docker","reason":"down"}]}');
  });
});

describe('verboseText', () => {
  it('lists every check with state and time, then the verdict', () => {
    expect(verboseText('healthz', [bad('a', 'line1\nline2', 5_000), ok('b'), { ...ok('c', 250), cached: true }])).toBe(
      '[-]a failed: line1 line2 (5s)\n[+]b ok (1.5ms)\n[+]c ok (250ms, cached)\nhealthz check failed\n',
    );
    expect(verboseText('readyz', [ok('b')])).toBe('[+]b ok (1.5ms)\nreadyz check passed\n');
  });

  it('puts extra failures first and fails the verdict', () => {
    expect(verboseText('readyz', [], ['shutdown failed: bye'])).toBe('[-]shutdown failed: bye\nreadyz check failed\n');
  });
});

describe('healthyBody', () => {
  it('is the text goJson gives for the same document', () => {
    for (const time of ['2026-11-21T05:25:34.43299Z', '2026-11-21T10:30:00+05:30', '2026-11-21T00:00:00.1-05:00']) {
      expect(healthyBody(time)).toBe(goJson({ status: 'OK', time }));
    }
  });
});
