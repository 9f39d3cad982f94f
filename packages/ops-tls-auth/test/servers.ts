// Test support (outside src, not published): the real server started on a free port for one test, and closed
// after it, shared by the server test files.
import { once } from 'node:events';
import { request } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SecureVersion } from 'node:tls';
import { afterEach } from 'vitest';
import type { WarnLogger } from '../src/internal/authorize.ts';
import type { TlsCredentials } from '../src/internal/credentials.ts';
import { clientSubjectOf } from '../src/internal/identity.ts';
import { createTlsServerWith, type TlsServer, type TlsServerInternals, type TlsServerOptions } from '../src/internal/server.ts';

export interface StartedServer {
  readonly tls: TlsServer;
  readonly port: number;
  readonly host: string;
  /** Every line the server logged (when the test gave no logger of its own). */
  readonly lines: { fields: Record<string, unknown>; message: string }[];
}

export interface StartOptions extends Omit<TlsServerOptions, 'credentials'> {
  readonly credentials: TlsCredentials;
  readonly host?: string;
  readonly internals?: TlsServerInternals;
}

/**
 * Registers the clean-up (every server started in a test is closed after it, pending handshakes
 * included) and returns `start`. The server answers each request with the client's subject
 * ("anonymous" without a certificate).
 */
export function useTestServers(): (options: StartOptions) => Promise<StartedServer> {
  const servers: TlsServer[] = [];
  afterEach(async () => {
    for (const { server, endPendingHandshakes } of servers.splice(0)) {
      endPendingHandshakes();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
  return async ({ host = '127.0.0.1', internals = {}, ...options }) => {
    const lines: StartedServer['lines'] = [];
    const logger: WarnLogger = options.logger ?? { warn: (fields, message) => lines.push({ fields: fields as Record<string, unknown>, message: message ?? '' }) };
    const tls = createTlsServerWith({ ...options, logger }, (req, res) => res.end(clientSubjectOf(req) ?? 'anonymous'), internals);
    servers.push(tls);
    tls.server.listen(0, host);
    await once(tls.server, 'listening');
    return { tls, port: (tls.server.address() as AddressInfo).port, host, lines };
  };
}

/** `GET /` on a new connection, trusting `ca` and presenting `cert`/`key` when given: the body (the client's subject, or "anonymous"); rejects on a connection error. */
export function getBody(port: number, options: { readonly ca: string; readonly cert?: string; readonly key?: string; readonly maxVersion?: SecureVersion; readonly host?: string }): Promise<string> {
  const { host = '127.0.0.1', ...tls } = options;
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path: '/', agent: false, ...tls }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
}
