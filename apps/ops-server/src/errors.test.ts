import { describe, expect, it } from 'vitest';
import { ConfigError } from '@fabric-ops/ops-config';
import { HealthError } from '@fabric-ops/ops-health';
import { OpsHttpError } from '@fabric-ops/ops-http';
import { FabricOpsError } from '@fabric-ops/ops-http/errors';
import { LogspecError } from '@fabric-ops/ops-logspec';
import { MetricsError } from '@fabric-ops/ops-metrics';
import { TlsAuthError } from '@fabric-ops/ops-tls-auth';
import { isOpsServerError, OpsServerError } from './errors.ts';

describe('error classes', () => {
  it("each package's error extends ops-http's one base and keeps its own name and code", () => {
    const errors = [
      new OpsHttpError('INVALID_ROUTE', 'm'),
      new ConfigError('CONFIG_INVALID', ['m']),
      new LogspecError('BAD_SEGMENT', 'm'),
      new HealthError('INVALID_OPTION', 'm'),
      new MetricsError('INVALID_VALUE', 'm'),
      new TlsAuthError('NOT_PEM', 'm'),
      new OpsServerError('LISTEN_FAILED', 'm'),
    ];
    for (const error of errors) expect(error).toBeInstanceOf(FabricOpsError);
    expect(errors.map((error) => `${error.name}:${error.code}`)).toEqual([
      'OpsHttpError:INVALID_ROUTE',
      'ConfigError:CONFIG_INVALID',
      'LogspecError:BAD_SEGMENT',
      'HealthError:INVALID_OPTION',
      'MetricsError:INVALID_VALUE',
      'TlsAuthError:NOT_PEM',
      'OpsServerError:LISTEN_FAILED',
    ]);
  });

  it('gives every error the HTTP status a framework answers with: 4xx for what a client caused, else 500', () => {
    const statuses = [
      new OpsHttpError('BODY_TOO_LARGE', 'm'),
      new LogspecError('INVALID_BODY', 'm'),
      new LogspecError('BAD_SEGMENT', 'm'),
      new LogspecError('PEER_MISSING', 'm'),
      new HealthError('CHECK_TIMED_OUT', 'm'),
      new MetricsError('INVALID_VALUE', 'm'),
      new TlsAuthError('NOT_PEM', 'm'),
      new OpsServerError('SPEC_CHANGES_BUSY', 'm'),
      new OpsServerError('INVALID_OPTIONS', 'm'),
    ].map((error) => [error.status, error.statusCode]);
    expect(statuses).toEqual([
      [413, 413],
      [400, 400],
      [400, 400],
      [500, 500],
      [500, 500],
      [500, 500],
      [500, 500],
      [503, 503],
      [500, 500],
    ]);
  });

  it('tells its own errors from the others', () => {
    expect(isOpsServerError(new OpsServerError('ALREADY_STARTED', 'm'))).toBe(true);
    expect(isOpsServerError(new TlsAuthError('NOT_PEM', 'm'))).toBe(false);
  });
});
