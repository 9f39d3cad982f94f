import type { IncomingMessage } from 'node:http';
import { identityMatches, type RouteAllowList } from './allow-list.ts';
import { createBudgetedWarn, cut } from './handshake-log.ts';
import { clientIdentityOf, remoteAddressOf } from './identity.ts';

/** The router's access decision (structurally ops-http's `AccessDecision`). */
export type AccessDecision = { readonly allow: true } | { readonly allow: false; readonly status: number };

/** The subset of a pino-style logger the authorizer writes to. */
export interface WarnLogger {
  warn(obj: object, msg?: string): void;
}

export interface AuthorizerOptions {
  /** Opt-in per-route subject rules on top of "a verified certificate" (see RouteAllowList). */
  readonly allowList?: RouteAllowList;
  /** Receives one WARN per refused request; Fabric logs these on its `middleware` logger. */
  readonly logger?: WarnLogger;
  /** At most this many refusal lines (401 and 403 together) a second; the rest are counted. Default 10. */
  readonly maxRefusalsLoggedPerSecond?: number;
  /** Clock for the line budget (tests). */
  readonly clock?: () => number;
}

/** Characters of a refused request's URL that reach the log; the rest is cut and marked with "…". */
export const MAX_LOGGED_URL_CHARS = 256;

/** Fabric's text for a secure route reached without a verified client certificate. */
export const UNAUTHORIZED_MESSAGE = 'Client request not authorized, client must pass a valid client certificate for this operation';
export const NOT_ALLOWED_MESSAGE = 'Client request not allowed, the client certificate is not on the allow-list for this operation';

const ALLOW: AccessDecision = { allow: true };

/**
 * The check for secure routes when TLS is on: a verified client certificate or 401
 * (empty body, a WARN naming URL, method and remote address). With an allow-list for the
 * route, a verified certificate that matches no rule gets 403. Refusal lines are rate-limited
 * and carry at most MAX_LOGGED_URL_CHARS of the URL.
 */
export function createAuthorizer(options: AuthorizerOptions = {}): (req: IncomingMessage, route: { readonly path: string }) => AccessDecision {
  const allowList = options.allowList ?? {};
  // Anyone who reaches the port can cause these lines (a 401 needs no certificate at all), so
  // they share one budget, and the URL, which the client chooses, is cut.
  const budgeted = options.logger && createBudgetedWarn(options.logger, options.maxRefusalsLoggedPerSecond ?? 10, 'refused requests', options.clock);
  const warn = (req: IncomingMessage, message: string, subject?: string): void => {
    budgeted?.({ URL: req.url && cut(req.url, MAX_LOGGED_URL_CHARS), Method: req.method, RemoteAddr: remoteAddressOf(req), ...(subject === undefined ? {} : { Subject: subject }) }, message);
  };
  return (req, route) => {
    const identity = clientIdentityOf(req);
    if (identity === undefined) {
      warn(req, UNAUTHORIZED_MESSAGE);
      return { allow: false, status: 401 };
    }
    const rules = Object.hasOwn(allowList, route.path) ? allowList[route.path] : undefined;
    if (rules !== undefined && !identityMatches(identity, rules)) {
      warn(req, NOT_ALLOWED_MESSAGE, identity.subject);
      return { allow: false, status: 403 };
    }
    return ALLOW;
  };
}
