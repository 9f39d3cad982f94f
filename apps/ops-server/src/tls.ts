import type { IncomingMessage, RequestListener, Server, ServerOptions, ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { Authorize } from '@fabric-ops/ops-http';
import {
  createAuthorizer,
  createCredentialReloader,
  guardClientCertificates,
  loadTlsCredentials,
  PEER_TLS_KEY_NAMES,
  secureContextOptions,
  tlsServerOptions,
  validateAllowList,
  type CredentialReloader,
  type RouteAllowList,
  type TlsCredentials,
  type TlsKeyNames,
  type TlsSettings,
} from '@fabric-ops/ops-tls-auth';
import type { SystemPart } from './part.ts';

/** The subset of the system logger TLS writes to. */
interface TlsLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface OperationsTlsOptions {
  readonly settings: TlsSettings;
  /** Config key names for error lines; the peer's by default. */
  readonly keyNames?: TlsKeyNames | undefined;
  /** Opt-in per-route subject rules (see ops-tls-auth's RouteAllowList). */
  readonly allowList?: RouteAllowList | undefined;
  /** Reload credentials when their files change on disk. Default true. */
  readonly watchFiles?: boolean | undefined;
  /** Reload credentials on SIGHUP. Default true. */
  readonly reloadOnSighup?: boolean | undefined;
  readonly logger: TlsLogger;
  /** Where refused requests are logged; Fabric uses a logger named `middleware`. Default `logger`. */
  readonly authLogger?: Pick<TlsLogger, 'warn'> | undefined;
}

/** The TLS concern of the operations system: credentials, the https server, the secure-route check. */
export interface OperationsTls {
  /** Loads the credentials (start-up fails on bad files) and, on stop, ends watching. */
  readonly part: SystemPart;
  readonly authorize: Authorize;
  /** An https server serving `onRequest`; only after `part.start()` has loaded the credentials. */
  createServer(options: ServerOptions, onRequest: RequestListener<typeof IncomingMessage, typeof ServerResponse>): Server;
  /** Re-reads the files now; throws TlsAuthError and keeps the old credentials when they are bad. */
  reloadCredentials(): void;
}

export function createOperationsTls(options: OperationsTlsOptions): OperationsTls {
  const keyNames = options.keyNames ?? PEER_TLS_KEY_NAMES;
  const allowList = options.allowList === undefined ? undefined : validateAllowList(options.allowList, 'tls.allowList');
  const { logger } = options;
  let credentials: TlsCredentials | undefined;
  let server: HttpsServer | undefined;
  let reloader: CredentialReloader | undefined;
  let stopGuard: (() => void) | undefined;

  const apply = (next: TlsCredentials): void => {
    // New handshakes use the new context; established connections keep theirs.
    server?.setSecureContext(secureContextOptions(next));
    credentials = next;
  };

  const authorize = createAuthorizer({ logger: options.authLogger ?? logger, ...(allowList === undefined ? {} : { allowList }) });

  return {
    authorize: (req, route) => authorize(req, route),
    part: {
      start() {
        credentials = loadTlsCredentials(options.settings, keyNames);
      },
      stop() {
        reloader?.close();
        stopGuard?.();
      },
    },
    createServer(serverOptions, onRequest) {
      if (credentials === undefined) throw new Error('TLS credentials are not loaded yet');
      const httpsServer = createHttpsServer({ ...serverOptions, ...tlsServerOptions(credentials, options.settings.clientAuthRequired) }, onRequest);
      stopGuard = guardClientCertificates(httpsServer, ({ remoteAddress, reason }) =>
        logger.warn({ RemoteAddr: remoteAddress, reason }, 'TLS connection refused: the client certificate failed verification'),
      );
      server = httpsServer;
      reloader = createCredentialReloader({
        settings: options.settings,
        keyNames,
        apply,
        watchFiles: options.watchFiles ?? true,
        reloadOnSighup: options.reloadOnSighup ?? true,
        onReloaded: (trigger) => logger.info({ trigger }, 'operations TLS credentials reloaded'),
        onReloadFailed: (error, trigger) =>
          logger.warn({ trigger, reason: error.message }, 'operations TLS credentials not reloaded; the previous ones stay in use'),
      });
      return httpsServer;
    },
    reloadCredentials() {
      if (reloader === undefined) {
        // Not serving yet: a check that the files load, so the caller hears about bad ones now.
        credentials = loadTlsCredentials(options.settings, keyNames);
        return;
      }
      reloader.reload();
    },
  };
}
