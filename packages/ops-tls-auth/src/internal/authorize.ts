import type { IncomingMessage } from 'node:http';
import { identityMatches, type RouteAllowList } from './allow-list.ts';
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
}

/** Fabric's text for a secure route reached without a verified client certificate. */
export const UNAUTHORIZED_MESSAGE = 'Client request not authorized, client must pass a valid client certificate for this operation';
export const NOT_ALLOWED_MESSAGE = 'Client request not allowed, the client certificate is not on the allow-list for this operation';

const ALLOW: AccessDecision = { allow: true };

/**
 * The check for secure routes when TLS is on: a verified client certificate or 401
 * (empty body, a WARN naming URL, method and remote address). With an allow-list for the
 * route, a verified certificate that matches no rule gets 403.
 */
export function createAuthorizer(options: AuthorizerOptions = {}): (req: IncomingMessage, route: { readonly path: string }) => AccessDecision {
  const allowList = options.allowList ?? {};
  return (req, route) => {
    const identity = clientIdentityOf(req);
    if (identity === undefined) {
      options.logger?.warn({ URL: req.url, Method: req.method, RemoteAddr: remoteAddressOf(req) }, UNAUTHORIZED_MESSAGE);
      return { allow: false, status: 401 };
    }
    const rules = Object.hasOwn(allowList, route.path) ? allowList[route.path] : undefined;
    if (rules !== undefined && !identityMatches(identity, rules)) {
      options.logger?.warn({ URL: req.url, Method: req.method, RemoteAddr: remoteAddressOf(req), Subject: identity.subject }, NOT_ALLOWED_MESSAGE);
      return { allow: false, status: 403 };
    }
    return ALLOW;
  };
}
