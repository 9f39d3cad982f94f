import type { IncomingMessage, RequestListener, Server, ServerOptions, ServerResponse } from 'node:http';
import type { Authorize } from '@fabric-ops/ops-http';
import type * as TlsAuth from '@fabric-ops/ops-tls-auth';
import type { CredentialReloader, RouteAllowList, TlsCredentials, TlsFileLabels, TlsServer, TlsSettings } from '@fabric-ops/ops-tls-auth';
import type { SystemPart } from './part.ts';

/**
 * What the TLS concern uses of ops-tls-auth, handed in by the caller: the main entry imports it,
 * the apps' start-up sequence loads it only when TLS is on, so a process with TLS off never loads
 * ops-tls-auth, go-x509, node:tls or node:https.
 */
export type TlsAuthApi = Pick<typeof TlsAuth, 'clientSubjectOf' | 'createAuthorizer' | 'createCredentialReloader' | 'createTlsServer' | 'loadTlsCredentials' | 'validateAllowList'>;

/** The subset of the system logger TLS writes to. */
interface TlsLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/** createTlsServer's options (ops-tls-auth names the type only as that function's parameter). */
type TlsServerOptions = Parameters<TlsAuthApi['createTlsServer']>[0];

/** `handshakeTimeoutMs` and `clientCaStandIns` are createTlsServer's own, handed straight through. */
export interface OperationsTlsOptions extends Pick<TlsServerOptions, 'handshakeTimeoutMs' | 'clientCaStandIns'> {
  readonly settings: TlsSettings;
  /** How error lines name the files (ops-config's `tlsLabels`); ops-tls-auth's default, the peer's config keys, otherwise. */
  readonly labels?: TlsFileLabels | undefined;
  /** Credentials already loaded from `settings`' files; `part.start()` then reads nothing. Default: loaded by `part.start()`. */
  readonly credentials?: TlsCredentials | undefined;
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
  /** Loads the credentials (start-up fails on bad files); ends unfinished handshakes when stopping; on stop, ends watching. */
  readonly part: SystemPart;
  readonly authorize: Authorize;
  /** An https server serving `onRequest`; only after `part.start()` has loaded the credentials. */
  createServer(options: ServerOptions, onRequest: RequestListener<typeof IncomingMessage, typeof ServerResponse>): Server;
  /** Re-reads the files now; throws TlsAuthError and keeps the old credentials when they are bad. */
  reloadCredentials(): void;
}

export function createOperationsTls(options: OperationsTlsOptions, tlsAuth: TlsAuthApi): OperationsTls {
  const { createAuthorizer, createCredentialReloader, createTlsServer, loadTlsCredentials, validateAllowList } = tlsAuth;
  const loadOptions = options.labels === undefined ? {} : { labels: options.labels };
  const allowList = options.allowList === undefined ? undefined : validateAllowList(options.allowList, 'tls.allowList');
  const { logger } = options;
  let credentials: TlsCredentials | undefined;
  let secure: TlsServer | undefined;
  let reloader: CredentialReloader | undefined;

  const warnAbout = (loaded: TlsCredentials): void => {
    // Go serves such a certificate without a word; clients will refuse it, so say so.
    for (const warning of loaded.warnings ?? []) logger.warn({ certFile: options.settings.certFile }, `operations TLS: ${warning}`);
  };

  const apply = (next: TlsCredentials): void => {
    warnAbout(next);
    // New handshakes use the new context; established connections keep theirs.
    secure?.setCredentials(next);
    credentials = next;
  };

  const authorize = createAuthorizer({ logger: options.authLogger ?? logger, ...(allowList === undefined ? {} : { allowList }) });

  return {
    authorize: (req, route) => authorize(req, route),
    part: {
      start() {
        // Loaded once at start-up: what the caller's checks already loaded is not read again.
        credentials = options.credentials ?? loadTlsCredentials(options.settings, loadOptions);
        warnAbout(credentials);
      },
      beginShutdown() {
        // Connections still in the handshake would otherwise hold the listener open until their deadline.
        secure?.endPendingHandshakes();
      },
      stop() {
        reloader?.close();
      },
    },
    createServer(serverOptions, onRequest) {
      if (credentials === undefined) throw new Error('TLS credentials are not loaded yet');
      secure = createTlsServer(
        {
          credentials,
          clientAuthRequired: options.settings.clientAuthRequired,
          handshakeTimeoutMs: options.handshakeTimeoutMs,
          clientCaStandIns: options.clientCaStandIns,
          serverOptions,
          logger,
        },
        onRequest,
      );
      reloader = createCredentialReloader({
        settings: options.settings,
        labels: loadOptions.labels,
        apply,
        watchFiles: options.watchFiles ?? true,
        reloadOnSighup: options.reloadOnSighup ?? true,
        onReloaded: (trigger) => logger.info({ trigger }, 'operations TLS credentials reloaded'),
        onReloadFailed: (error, trigger) => logger.warn({ trigger, reason: error.message }, 'operations TLS credentials not reloaded; the previous ones stay in use'),
      });
      return secure.server;
    },
    reloadCredentials() {
      if (reloader === undefined) {
        // Not serving yet: a check that the files load, so the caller hears about bad ones now.
        credentials = loadTlsCredentials(options.settings, loadOptions);
        return;
      }
      reloader.reload();
    },
  };
}
