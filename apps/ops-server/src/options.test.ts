import { describe, expect, it } from 'vitest';
import { createOperationsSystem } from './operations-system.ts';
import type { OperationsSystemOptions } from './system.ts';

const base = { listenAddress: '127.0.0.1:0', version: { version: '1', commitSHA: '' } };

/** What createOperationsSystem throws for options a JavaScript caller may hand it. */
function refusal(options: unknown): unknown {
  try {
    createOperationsSystem(options as OperationsSystemOptions);
  } catch (error) {
    return error;
  }
  return undefined;
}

function refused(options: unknown, message: string): void {
  expect(refusal(options)).toEqual(expect.objectContaining({ name: 'OpsServerError', code: 'INVALID_OPTIONS', status: 500, message }));
}

describe('createOperationsSystem options from JavaScript callers', () => {
  it('refuses no options or empty ones with one typed error naming what is missing', () => {
    refused(undefined, 'createOperationsSystem: expected options { listenAddress, version, … }, got undefined');
    refused({}, "invalid operations option listenAddress: expected 'host:port' or { host, port }, got undefined");
    refused({ listenAddress: ':0' }, "invalid operations option version: expected { version, commitSHA } (what /version reports; '' leaves a field out), got undefined");
  });

  it('refuses unknown keys, naming the one meant when only the case differs', () => {
    refused({ ...base, listenAdress: ':1' }, expect.stringMatching(/^unknown operations option listenAdress \(known: listenAddress, version, /) as unknown as string);
    refused({ ...base, version: { version: '1', commitSha: 'abc' } }, 'unknown operations option version.commitSha (did you mean version.commitSHA?)');
    refused({ ...base, limits: { bodyLimit: 10 } }, expect.stringMatching(/^unknown operations option limits\.bodyLimit \(known: .*bodyLimitBytes/) as unknown as string);
    refused({ ...base, tls: { enabled: false, cert: 'x' } }, expect.stringMatching(/^unknown operations option tls\.cert \(known: enabled, certFile, /) as unknown as string);
  });

  it('refuses TLS turned on without its files at creation, not with a TypeError at start()', () => {
    refused({ ...base, tls: { enabled: true } }, 'invalid operations option tls.certFile: TLS is enabled, expected the path of a PEM file, got undefined');
    refused(
      { ...base, tls: { enabled: true, certFile: 'c.pem', keyFile: 'k.pem', clientRootCAs: 'ca.pem' } },
      'invalid operations option tls.clientRootCAs: expected an array of PEM file paths, got "ca.pem"',
    );
    refused({ ...base, tls: { enabled: 'yes' } }, 'invalid operations option tls.enabled: expected a boolean, got "yes"');
  });

  it('refuses values of the wrong kind, named', () => {
    refused({ ...base, logger: console.log }, 'invalid operations option logger: expected an object with info, warn, error methods (a pino logger), got function');
    refused({ ...base, logging: {} }, 'invalid operations option logging: expected a logger registry (createLogging or createLeanLogging from @fabric-ops/ops-logspec), got object');
    refused({ ...base, shutdownTimeoutMs: '5s' }, 'invalid operations option shutdownTimeoutMs: expected milliseconds from 0 to 2147483647, got "5s"');
    refused({ ...base, limits: { bodyLimitBytes: -1 } }, 'invalid operations option limits.bodyLimitBytes: expected a number of 0 or more, got -1');
    refused({ ...base, requireReadySignal: 'true' }, 'invalid operations option requireReadySignal: expected a boolean, got "true"');
    refused({ ...base, metrics: 'prometheus' }, 'invalid operations option metrics: expected an object, got "prometheus"');
  });

  it('refuses a route without a path or handler, named, before and after start', () => {
    const system = createOperationsSystem({ ...base, logger: { info() {}, warn() {}, error() {} } });
    expect(() => system.addRoute({ handler: () => undefined } as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_ROUTE', message: "route path must be a string such as '/status', got undefined" }),
    );
    expect(() => system.addRoute({ path: '/x', secure: false } as never)).toThrow('route /x: handler must be a function (req, res), got undefined');
    expect(() => system.addRoute(undefined as never)).toThrow('a route must be an object { path, secure, handler }, got undefined');
  });
});
