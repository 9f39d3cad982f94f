import { goDuration } from './go-format.ts';
import type { CheckResult, HealthReport } from '../registry.ts';

/** One entry of Fabric's `failed_checks`. */
export interface FailedCheck {
  readonly component: string;
  readonly reason: string;
}

/** Fabric's /healthz body, keys in Fabric's order; `failed_checks` only when something failed. */
export interface HealthStatusBody {
  readonly status: 'OK' | 'Service Unavailable';
  readonly time: string;
  readonly failed_checks?: readonly FailedCheck[];
}

/** The status code and JSON body Fabric's /healthz answers for a finished report. */
export function fabricHealthResponse(report: Pick<HealthReport, 'time' | 'failed'>): { status: 200 | 503; body: HealthStatusBody } {
  if (report.failed.length === 0) return { status: 200, body: { status: 'OK', time: report.time } };
  return {
    status: 503,
    body: {
      status: 'Service Unavailable',
      time: report.time,
      failed_checks: report.failed.map((r) => ({ component: r.component, reason: r.reason ?? '' })),
    },
  };
}

const HEALTHY_PREFIX = '{"status":"OK","time":"';
const HEALTHY_SUFFIX = '"}';

/**
 * `{"status":"OK","time":"…"}` as goJson writes it, without serialising an object per probe: an
 * RFC 3339 time holds only digits, `-`, `:`, `.`, `T`, `Z` and `+`, none of which JSON escapes.
 */
export function healthyBody(time: string): string {
  return HEALTHY_PREFIX + time + HEALTHY_SUFFIX;
}

function line(result: CheckResult): string {
  const took = result.cached ? `${goDuration(result.durationMs)}, cached` : goDuration(result.durationMs);
  // A reason may hold newlines; keep one check per line so the list stays readable.
  const reason = (result.reason ?? '').replace(/[\r\n]+/g, ' ');
  return result.healthy ? `[+]${result.component} ok (${took})` : `[-]${result.component} failed: ${reason} (${took})`;
}

/**
 * The human-readable list `?verbose` answers, in the Kubernetes style: one `[+]`/`[-]`
 * line per check with the time it took, extra lines (such as shutdown) first, and a
 * closing verdict naming the endpoint.
 */
export function verboseText(endpoint: string, results: readonly CheckResult[], extraFailures: readonly string[] = []): string {
  const lines = [...extraFailures.map((text) => `[-]${text}`), ...results.map(line)];
  const healthy = extraFailures.length === 0 && results.every((r) => r.healthy);
  lines.push(`${endpoint} check ${healthy ? 'passed' : 'failed'}`);
  return lines.join('\n') + '\n';
}
