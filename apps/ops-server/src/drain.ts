import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { OpsServerError } from './errors.ts';
import { lifecycleMs, type ShutdownHook } from './shutdown.ts';

export interface ServerDrainOptions {
  /**
   * How long requests under way may take to finish once the drain starts; what is still open then
   * is destroyed. Default 4 000 ms: within the default `shutdownHookTimeoutMs` (5 000) of the
   * operations system running the drain as a shutdown hook.
   */
  readonly graceMs?: number;
}

/** What a drain found, for the embedder's log. */
export interface DrainOutcome {
  /** Requests that were being answered when the drain began. */
  readonly inFlightAtStart: number;
  /** Connections destroyed at the end of the grace period (0 when every request finished in time). */
  readonly destroyedConnections: number;
}

export interface ServerDrain {
  /**
   * Stops accepting, closes idle keep-alive connections at once, lets requests under way finish
   * (each answered with `Connection: close`), and destroys what is left after `graceMs` or when
   * `signal` aborts. Resolves once the server is closed; calls while draining share the promise.
   */
  drain(signal?: AbortSignal): Promise<DrainOutcome>;
  /** `drain` as an operations system shutdown hook: `ops.addShutdownHook('app-server', drain.hook)`. */
  readonly hook: ShutdownHook;
  /** Requests being answered now. */
  readonly inFlight: number;
}

const DEFAULT_GRACE_MS = 4_000;
/** After destroying every connection the server's `close` follows within a tick or two; never wait long for it. */
const CLOSE_AFTER_DESTROY_MS = 1_000;

function isHttpServer(value: unknown): value is HttpServer | HttpsServer {
  const server = value as Partial<HttpServer> | null;
  return (
    typeof server === 'object' &&
    server !== null &&
    typeof server.close === 'function' &&
    typeof server.closeIdleConnections === 'function' &&
    typeof server.closeAllConnections === 'function' &&
    typeof server.prependListener === 'function'
  );
}

/**
 * Graceful shutdown for an embedder's own `http.Server` or `https.Server` (Express's
 * `app.listen()` result, Fastify's `fastify.server`), as terminus, stoppable and lightship do.
 * Call it when the server is created, before it takes connections: it tracks connections and
 * requests from then on, so that at shutdown it knows which sockets are idle and which answers
 * are still being written.
 */
export function createServerDrain(server: HttpServer | HttpsServer, options: ServerDrainOptions = {}): ServerDrain {
  if (!isHttpServer(server))
    throw new OpsServerError('INVALID_OPTIONS', 'createServerDrain: expected a node:http or node:https Server (for Express, what app.listen() returns; for Fastify, fastify.server)');
  const graceMs = lifecycleMs('graceMs', options?.graceMs, DEFAULT_GRACE_MS);
  const sockets = new Set<Socket>();
  const active = new Set<ServerResponse>();
  let draining: Promise<DrainOutcome> | undefined;

  const closeIdleSoon = () => setImmediate(() => server.closeIdleConnections());
  /** The answer goes out with `Connection: close`, and its socket is closed once it is sent. */
  const endAfterAnswer = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
    // Headers already out with keep-alive: the socket is idle once the body is, and closed then.
    res.once('finish', closeIdleSoon);
  };

  // TLS servers emit `connection` for the TCP socket under each TLS one: destroying it ends both.
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    if (draining !== undefined) socket.destroy();
  });
  // First among the listeners, so the header is set before the application's handler answers.
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    active.add(res);
    res.once('close', () => active.delete(res));
    if (draining !== undefined) endAfterAnswer(res);
  });

  const run = async (signal: AbortSignal | undefined): Promise<DrainOutcome> => {
    const inFlightAtStart = active.size;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    for (const res of active) endAfterAnswer(res);
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const cutoff = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
      onAbort = () => resolve();
      if (signal?.aborted) resolve();
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    await Promise.race([closed, cutoff]);
    clearTimeout(timer);
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
    const left = [...sockets].filter((socket) => !socket.destroyed);
    const destroyedConnections = left.length;
    if (destroyedConnections > 0) {
      server.closeAllConnections();
      for (const socket of left) socket.destroy();
      let waitTimer: NodeJS.Timeout | undefined;
      await Promise.race([closed, new Promise<void>((resolve) => (waitTimer = setTimeout(resolve, CLOSE_AFTER_DESTROY_MS)))]);
      clearTimeout(waitTimer);
    }
    return { inFlightAtStart, destroyedConnections };
  };

  const drain = (signal?: AbortSignal): Promise<DrainOutcome> => (draining ??= run(signal));
  return {
    drain,
    hook: async (signal) => {
      await drain(signal);
    },
    get inFlight() {
      return active.size;
    },
  };
}
