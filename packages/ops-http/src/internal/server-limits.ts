import type { ServerOptions } from 'node:http';
import { RoutedResponse } from './response.ts';

/** Timeouts and limits of the operations server, Fabric's where Fabric has one. */
export interface ServerLimits {
  /** Time allowed to receive a request's headers and body (Go's ReadTimeout). Default 10 s. */
  readonly requestTimeoutMs: number;
  /** Time a keep-alive connection may sit idle between requests. Default 10 s. */
  readonly keepAliveTimeoutMs: number;
  /** Time from routing to the end of the response (Go's WriteTimeout). Default 2 min. */
  readonly writeTimeoutMs: number;
  /** Largest request body, in bytes. Default 1 MiB. */
  readonly bodyLimitBytes: number;
  /**
   * Largest request header section, in bytes as Node's parser counts them (target, names and
   * values). Default 1 MiB + 4 KiB: Go's DefaultMaxHeaderBytes and the 4 KiB its server reads
   * past it (server.go, initialReadLimitSize). A connection holds up to this much (about 1.1 MiB
   * measured) while its header section arrives, for at most `requestTimeoutMs`.
   */
  readonly maxHeaderBytes: number;
}

export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  requestTimeoutMs: 10_000,
  keepAliveTimeoutMs: 10_000,
  writeTimeoutMs: 120_000,
  bodyLimitBytes: 1024 * 1024,
  maxHeaderBytes: 1024 * 1024 + 4096,
};

/**
 * Options for `http.createServer` / `https.createServer` that enforce the limits.
 * Node only checks request timeouts every `connectionsCheckingInterval`, so that
 * interval is shortened for the 10 s limit to mean roughly 10 s. The response class lets the
 * router's request id go out in the same `writeHead` call as the other headers.
 */
export function serverOptionsFor(limits: ServerLimits = DEFAULT_SERVER_LIMITS): ServerOptions {
  return {
    requestTimeout: limits.requestTimeoutMs,
    headersTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.min(1_000, limits.requestTimeoutMs),
    maxHeaderSize: limits.maxHeaderBytes,
    // The router answers a missing or malformed Host with Go's own 400 text (Node's would be bare).
    requireHostHeader: false,
    ServerResponse: RoutedResponse,
  };
}
