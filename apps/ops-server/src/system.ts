import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createRouter, DEFAULT_SERVER_LIMITS, serverOptionsFor, type Route, type Router, type ServerLimits } from '@fabric-ops/ops-http';
import { answerClientErrorAsGo, formatHostPort } from '@fabric-ops/ops-http/go';
import { OpsServerError } from './errors.ts';
import { checkSystemOptions } from './options.ts';
import { listenError, parseListenAddress, type ListenTarget } from './listen-address.ts';
import type { SystemPart } from './part.ts';
import type { Checker, HealthOptions, Readiness, RegisterOptions } from '@fabric-ops/ops-health';
import { createHealthPart } from './health.ts';
import { createShutdownHooks, lifecycleMs, sleep, type ShutdownHook } from './shutdown.ts';
import { createOperationsTls, type OperationsTls, type TlsAuthApi } from './tls.ts';
import type { AnyMetricsProvider } from '@fabric-ops/ops-metrics';
import type { MetricsOptions, StatsdInterval } from '@fabric-ops/ops-metrics';
import type { PrometheusAggregate } from './metrics.ts';
import { createMetricsPart } from './metrics.ts';
import type { Logging, LoggingRegistry } from '@fabric-ops/ops-logspec';
import { createLogspecPart, DEFAULT_OPERATIONS_LOGGER_NAME, resolveLogging } from './logspec.ts';
import type { RouteAllowList, TlsCredentials, TlsFileLabels, TlsSettings } from '@fabric-ops/ops-tls-auth';
import { versionHandler, type VersionInfo } from './version.ts';

/** The subset of a pino logger the system writes to. */
export interface OperationsLogger {
  info(obj: object, msg?: string): void;
  info(msg: string): void;
  warn(obj: object, msg?: string): void;
  warn(msg: string): void;
  error(obj: object, msg?: string): void;
  error(msg: string): void;
}

/** `L`: the logger registry's type; pino's `Logging` unless the caller hands in another engine's (e.g. `createLeanLogging`). */
export interface OperationsSystemOptions<L extends LoggingRegistry = Logging> {
  /** `host:port` (or ops-config's parsed `{ host, port }`); the host may be omitted to listen on every interface, port 0 picks a free port. */
  readonly listenAddress: string | ListenTarget;
  /** What /version reports. */
  readonly version: VersionInfo;
  readonly logger?: OperationsLogger;
  /** The logger registry /logspec controls. Default: one built from FABRIC_LOGGING_SPEC and FABRIC_LOGGING_FORMAT. */
  readonly logging?: L;
  /** The name of the system's own logger in `logging` (used when `logger` is not given). Default `operations.runner`. */
  readonly loggerName?: string;
  /** Server timeouts and size limits; Fabric's values by default. */
  readonly limits?: Partial<ServerLimits>;
  /** How long stop() lets in-flight requests run before closing their connections. Default 5 s. */
  readonly shutdownTimeoutMs?: number;
  /**
   * How long stop() keeps the listener open after /readyz turns 503, so load balancers see
   * "not ready" and stop sending traffic before connections are refused. Default 0 (Fabric's timing).
   */
  readonly shutdownDelayMs?: number;
  /** How long each shutdown hook may run before stop() moves on to the next. Default 5 s. */
  readonly shutdownHookTimeoutMs?: number;
  /** /readyz answers 503 until `readiness.signalReady()` is called. Default false: ready once the checks pass. */
  readonly requireReadySignal?: boolean;
  /** Health check timeouts, overall deadline, result cache and background interval (see @fabric-ops/ops-health). */
  readonly health?: HealthOptions;
  /** Operations TLS (ops-config's `operations.tls`); when enabled, HTTPS with Fabric's client-certificate rules. */
  readonly tls?: TlsSettings;
  /** How TLS error lines name the files: ops-config's `tlsLabels` (the key or environment variable the value came from). Default: the peer's core.yaml keys. */
  readonly tlsLabels?: TlsFileLabels;
  /** The credentials already loaded from `tls`'s files (the apps' start-up checks load them): start() then reads no file. Default: start() loads them. */
  readonly tlsCredentials?: TlsCredentials;
  /** Hand OpenSSL stand-ins for the client CAs, so it checks no chain whose verdict is never used (ops-tls-auth's `clientCaStandIns`). Default true. */
  readonly tlsClientCaStandIns?: boolean;
  /** Opt-in: per secure route, the client certificate subjects/SANs admitted (ops-tls-auth RouteAllowList). */
  readonly tlsAllowList?: RouteAllowList;
  /** Which metrics provider and its settings (ops-metrics' typed options): `prometheus` serves /metrics, `statsd` pushes; disabled when omitted. */
  readonly metrics?: MetricsOptions;
}

export interface OperationsSystem<L extends LoggingRegistry = Logging> {
  /** Opens the listener. Rejects with an OpsServerError whose message is one readable line. */
  start(): Promise<void>;
  /**
   * Turns /readyz to 503, waits `shutdownDelayMs` with the listener still open, runs the shutdown
   * hooks in registration order, then stops accepting, lets in-flight requests finish (up to the
   * shutdown timeout) and resolves. Calls made while stopping share the same promise.
   */
  stop(): Promise<void>;
  /** The bound `host:port` once started (the real port when 0 was asked for); '' before. */
  address(): string;
  /** Serves an extra route; allowed before and after start(). */
  addRoute(route: Route): void;
  /** True from the moment stop() is called. */
  isShuttingDown(): boolean;
  /** Adds a /healthz checker; a name already in use throws ('<name>' is already registered). */
  registerChecker(component: string, checker: Checker, options?: RegisterOptions): void;
  /** Removes a /healthz checker; an unknown name is ignored. */
  deregisterChecker(component: string): void;
  /** Readiness the embedding program controls: signalReady/signalNotReady and blocking start-up tasks (/readyz only). */
  readonly readiness: Readiness;
  /**
   * Work stop() runs after the not-ready delay and before the operations listener closes (so /livez
   * and /metrics still answer meanwhile): one hook at a time, in registration order. A hook that
   * throws is logged and the next one runs; one past `shutdownHookTimeoutMs` has its signal aborted
   * and is left behind.
   */
  addShutdownHook(name: string, hook: ShutdownHook): void;
  /**
   * Re-reads the TLS certificate, key and client CA files (as SIGHUP and file changes do).
   * Throws a TlsAuthError, keeping the old credentials, when they are bad; no-op with TLS off.
   */
  reloadCredentials(): void;
  /** The logger registry behind /logspec, for the embedding program's own loggers. */
  readonly logging: L;
  /** The metrics provider (`kind` tells which), so the embedding program can instrument itself. */
  readonly metrics: AnyMetricsProvider;
}

type State = 'new' | 'starting' | 'running' | 'stopping' | 'stopped';

/** How long stop() lets a connection whose request is still arriving finish sending it. */
const HEADERS_GRACE_MS = 1_000;

/** Hooks the multi-process primary (cluster/primary.ts) uses to extend one system; not public. */
export interface SystemExtensions {
  /** Turns the primary's own series into the cluster's. */
  readonly aggregateMetrics?: PrometheusAggregate;
  /** Turns the primary's own StatsD interval into the cluster's, before each push. */
  readonly aggregateStatsd?: (own: StatsdInterval) => Promise<StatsdInterval>;
  /** Runs after a PUT /logspec body is validated and before the spec is activated and 204 sent. */
  readonly beforeSpecChange?: (spec: string) => Promise<void>;
  /** ops-tls-auth, needed only with TLS on (the main entry imports it; the apps load it only then). */
  readonly tlsAuth?: TlsAuthApi;
}

export interface ExtendedSystem<L extends LoggingRegistry = Logging> extends OperationsSystem<L> {
  /** Registered /healthz component names, sorted. */
  healthComponents(): string[];
}

/** The TLS concern when TLS is on: with the ops-tls-auth the caller handed in. */
function systemTls(
  options: OperationsSystemOptions<LoggingRegistry>,
  extensions: SystemExtensions,
  limits: ServerLimits,
  logger: OperationsLogger,
  logging: LoggingRegistry,
): OperationsTls | undefined {
  if (options.tls?.enabled !== true) return undefined;
  // Only a caller that bypassed the main entry and the apps' start-up sequence could get here.
  if (extensions.tlsAuth === undefined) throw new Error('operations TLS is enabled but ops-tls-auth was not loaded');
  return createOperationsTls(
    {
      settings: options.tls,
      labels: options.tlsLabels,
      credentials: options.tlsCredentials,
      allowList: options.tlsAllowList,
      clientCaStandIns: options.tlsClientCaStandIns,
      handshakeTimeoutMs: limits.requestTimeoutMs,
      logger,
      authLogger: options.logger ?? logging.getLogger('middleware'),
    },
    extensions.tlsAuth,
  );
}

/** The sockets of the responses `router` is still writing. */
function answeringSockets(router: Router): Set<unknown> {
  const sockets = new Set<unknown>();
  for (const res of router.inFlight()) sockets.add(res.socket);
  return sockets;
}

/**
 * At stop: a connection with no request being answered, its request line or headers still
 * arriving, counts as active for Node, so closeIdleConnections leaves it. One that finishes its
 * request within `graceMs` is answered (with Connection: close); what is still unfinished then
 * (a slowloris client's never finishes) is closed, not kept to shutdownTimeoutMs.
 */
function closeUnfinishedLater(open: ReadonlySet<Socket>, router: Router, graceMs: number): NodeJS.Timeout {
  const answering = answeringSockets(router);
  const unfinished = [...open].filter((socket) => !answering.has(socket));
  const timer = setTimeout(() => {
    const busy = answeringSockets(router);
    for (const socket of unfinished) if (!busy.has(socket)) socket.destroy();
  }, graceMs);
  timer.unref();
  return timer;
}

/** Opens the listener; rejects with the listen error as Go words it. */
function listenOn(httpServer: Server, target: ListenTarget, listenAddress: string | ListenTarget): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => reject(listenError(listenAddress, error));
    httpServer.once('error', onError);
    const listening = () => {
      httpServer.off('error', onError);
      resolve();
    };
    if (target.host === '') httpServer.listen(target.port, listening);
    else httpServer.listen(target.port, target.host, listening);
  });
}

export function createSystem<L extends LoggingRegistry = Logging>(options: OperationsSystemOptions<L>, extensions: SystemExtensions): ExtendedSystem<L> {
  checkSystemOptions(options);
  const logging: L = resolveLogging(options.logging);
  const logger: OperationsLogger = options.logger ?? logging.getLogger(options.loggerName ?? DEFAULT_OPERATIONS_LOGGER_NAME);
  const limits: ServerLimits = { ...DEFAULT_SERVER_LIMITS, ...options.limits };
  const shutdownTimeoutMs = lifecycleMs('shutdownTimeoutMs', options.shutdownTimeoutMs, 5_000);
  const shutdownDelayMs = lifecycleMs('shutdownDelayMs', options.shutdownDelayMs, 0);
  const shutdownHookTimeoutMs = lifecycleMs('shutdownHookTimeoutMs', options.shutdownHookTimeoutMs, 5_000);
  const shutdownHooks = createShutdownHooks();
  // Parse now so that a bad address fails before anything else happens.
  const target = parseListenAddress(options.listenAddress);

  const health = createHealthPart({ health: options.health, requireReadySignal: options.requireReadySignal });
  const metrics = createMetricsPart({
    settings: options.metrics,
    version: options.version.version,
    logger,
    logging,
    health: health.registry,
    aggregate: extensions.aggregateMetrics,
    aggregateStatsd: extensions.aggregateStatsd,
  });
  const tls = systemTls(options, extensions, limits, logger, logging);
  const parts: SystemPart[] = [
    health,
    createLogspecPart(logging, { identify: tls === undefined ? undefined : extensions.tlsAuth?.clientSubjectOf, beforeSpecChange: extensions.beforeSpecChange }),
    metrics,
    { routes: [{ path: '/version', secure: false, handler: versionHandler(options.version) }] },
  ];
  if (tls !== undefined) parts.push(tls.part);

  const router = createRouter({
    ...(tls === undefined ? {} : { authorize: tls.authorize }),
    writeTimeoutMs: limits.writeTimeoutMs,
    bodyLimitBytes: limits.bodyLimitBytes,
    onHandlerError: (error, req) => logger.error({ err: error, url: req.url, method: req.method }, 'operations handler failed'),
  });
  for (const part of parts) for (const route of part.routes ?? []) router.add(route);

  let state: State = 'new';
  let server: Server | undefined;
  let bound = '';
  // Every connection the HTTP layer holds, so stop() can close at once those with nothing to answer.
  const open = new Set<Socket>();
  const track = (socket: Socket): void => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  };

  const closeIdleSoon = () => setImmediate(() => server?.closeIdleConnections());
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    if (state === 'stopping') {
      // Tell keep-alive clients to go away, and drop the socket once this answer is out.
      res.setHeader('Connection', 'close');
      res.once('finish', closeIdleSoon);
    }
    router.handle(req, res);
  };

  const start = async (): Promise<void> => {
    if (state !== 'new') throw new OpsServerError('ALREADY_STARTED', 'operations system was already started');
    state = 'starting';
    try {
      for (const part of parts) await part.start?.();
      const httpServer = tls === undefined ? createServer(serverOptionsFor(limits), onRequest) : tls.createServer(serverOptionsFor(limits), onRequest);
      // Requests Node's parser refuses get Go's bytes (text/plain reason), not Node's bare 400.
      httpServer.on('clientError', answerClientErrorAsGo);
      // With TLS, the sockets the HTTP layer gets are the admitted ones (ops-tls-auth ends the rest).
      httpServer.on(tls === undefined ? 'connection' : 'secureConnection', track);
      // No socket inactivity timer (`httpServer.timeout`): re-armed on every request it cost ~1 µs
      // each, and every phase already has its deadline: the handshake (ops-tls-auth), headers and
      // body (requestTimeout), idle keep-alive (keepAliveTimeout), the response (the router's
      // per-connection write deadline).
      await listenOn(httpServer, target, options.listenAddress);
      httpServer.on('error', (error) => logger.error({ err: error }, 'operations server error'));
      const info = httpServer.address() as AddressInfo;
      bound = formatHostPort(info.address, info.port);
      server = httpServer;
      state = 'running';
    } catch (error) {
      state = 'stopped';
      for (const part of parts) await part.stop?.();
      throw error;
    }
  };

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    if (stopping !== undefined) return stopping;
    if (state !== 'running' || server === undefined) return Promise.resolve();
    stopping = stopRunning(server);
    return stopping;
  };

  const stopRunning = async (httpServer: Server): Promise<void> => {
    state = 'stopping';
    for (const part of parts) part.beginShutdown?.();
    // Skipped entirely when unused, so the bins close the listener in the same tick as today.
    if (shutdownDelayMs > 0) await sleep(shutdownDelayMs);
    if (shutdownHooks.size > 0) await shutdownHooks.run(shutdownHookTimeoutMs, logger);
    const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
    httpServer.closeIdleConnections();
    // Requests that arrived before stop() must not leave their connection open once answered.
    for (const res of router.inFlight()) {
      if (!res.headersSent) res.setHeader('Connection', 'close');
      res.once('finish', closeIdleSoon);
    }
    const headersGrace = closeUnfinishedLater(open, router, Math.min(HEADERS_GRACE_MS, shutdownTimeoutMs));
    const force = setTimeout(() => httpServer.closeAllConnections(), shutdownTimeoutMs);
    force.unref();
    await closed;
    clearTimeout(force);
    clearTimeout(headersGrace);
    for (const part of parts) await part.stop?.();
    state = 'stopped';
  };

  return {
    start,
    stop,
    address: () => bound,
    addRoute: (route) => router.add(route),
    isShuttingDown: () => state === 'stopping' || state === 'stopped',
    registerChecker: (component, checker, checkerOptions) => health.registry.register(component, checker, checkerOptions),
    deregisterChecker: (component) => health.registry.deregister(component),
    healthComponents: () => health.registry.components(),
    readiness: health.readiness,
    addShutdownHook: (name, hook) => shutdownHooks.add(name, hook),
    reloadCredentials: () => tls?.reloadCredentials(),
    logging,
    metrics: metrics.provider,
  };
}
