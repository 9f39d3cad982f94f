import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseRequestTarget, writeEmpty, writeJson, writeText, type Handler, type Route } from '@fabric-ops/ops-http';
import { nowRfc3339Nano } from './go-format.ts';
import type { HealthRegistry, HealthReport } from './registry.ts';
import { fabricHealthResponse, verboseText } from './report.ts';

/** Component name /readyz reports while the process shuts down. */
export const SHUTDOWN_COMPONENT = 'shutdown';
export const SHUTDOWN_REASON = 'the process is shutting down';

export interface HealthEndpoints {
  /** `/healthz`, `/healthz/` (per-component), `/livez`, `/readyz`; none is secure. */
  readonly routes: readonly Route[];
  /** Fabric's /healthz: every check, 200/503 JSON, 405 for any method but GET, 408 past the deadline. */
  readonly healthz: Handler;
  /** `/healthz/<component>`: that one check; 404 for an unknown component. */
  readonly healthzComponent: Handler;
  /** Liveness: 200 while the process serves; runs no dependency checks. */
  readonly livez: Handler;
  /** Readiness: every check, and 503 from the moment shutdown begins. */
  readonly readyz: Handler;
  /** Turns readiness off for good; call it when shutdown starts, before connections drain. */
  beginShutdown(): void;
  isShuttingDown(): boolean;
}

const NO_STORE = { 'Cache-Control': 'no-store' } as const;
const ADDITIVE_METHODS = { Allow: 'GET, HEAD', ...NO_STORE } as const;

type Outcome = { readonly report: HealthReport } | 'deadline';

async function withDeadline(running: Promise<HealthReport>, deadlineMs: number): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'deadline'>((resolve) => {
    timer = setTimeout(() => resolve('deadline'), deadlineMs);
  });
  try {
    return await Promise.race([running.then((report) => ({ report })), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function wantsVerbose(req: IncomingMessage): boolean {
  const { query } = parseRequestTarget(req.url ?? '/');
  return query !== '' && new URLSearchParams(query).has('verbose');
}

/** The client went away: Fabric writes nothing then, and neither do we. */
function gone(res: ServerResponse): boolean {
  return res.destroyed || res.writableEnded;
}

/** Go's ServeMux 404, for `/healthz/` itself and unknown components. */
function notFound(res: ServerResponse): void {
  res.removeHeader('X-Request-Id');
  writeText(res, 404, '404 page not found\n', { 'X-Content-Type-Options': 'nosniff' });
}

/**
 * The /healthz family. `/healthz` answers exactly as Fabric does (same statuses, JSON,
 * headers); the additive endpoints and `?verbose` forms carry `Cache-Control: no-store`
 * and also answer HEAD.
 */
export function createHealthEndpoints(registry: HealthRegistry): HealthEndpoints {
  let shuttingDown = false;
  const { deadlineMs } = registry.settings;

  const notReady = (res: ServerResponse, verbose: boolean): void => {
    if (verbose) {
      writeText(res, 503, verboseText('readyz', [], [`${SHUTDOWN_COMPONENT} failed: ${SHUTDOWN_REASON}`]), NO_STORE);
      return;
    }
    const failed_checks = [{ component: SHUTDOWN_COMPONENT, reason: SHUTDOWN_REASON }];
    writeJson(res, 503, { status: 'Service Unavailable', time: nowRfc3339Nano(), failed_checks }, { headers: NO_STORE });
  };

  const answer = async (
    res: ServerResponse,
    running: Promise<HealthReport>,
    endpoint: string,
    verbose: boolean,
    additive: boolean,
    stoppedMeanwhile: () => boolean = () => false,
  ): Promise<void> => {
    const outcome = await withDeadline(running, deadlineMs);
    if (gone(res)) return;
    // Shutdown began while the checks ran: the answer must already say "not ready".
    if (stoppedMeanwhile()) {
      notReady(res, verbose);
      return;
    }
    const headers = additive || verbose ? NO_STORE : {};
    if (outcome === 'deadline') {
      writeEmpty(res, 408, headers);
      return;
    }
    const { status, body } = fabricHealthResponse(outcome.report);
    if (verbose) writeText(res, status, verboseText(endpoint, outcome.report.results), headers);
    else writeJson(res, status, body, { headers });
  };

  const healthz: Handler = async (req, res) => {
    if (req.method !== 'GET') {
      writeEmpty(res, 405);
      return;
    }
    // Fabric's handler never reads the query: `?verbose` lives on the additive paths only.
    await answer(res, registry.run(), 'healthz', false, false);
  };

  const additiveMethodOk = (req: IncomingMessage, res: ServerResponse): boolean => {
    if (req.method === 'GET' || req.method === 'HEAD') return true;
    writeEmpty(res, 405, ADDITIVE_METHODS);
    return false;
  };

  const healthzComponent: Handler = async (req, res) => {
    const { path } = parseRequestTarget(req.url ?? '/');
    const component = path.slice('/healthz/'.length);
    if (component === '') {
      notFound(res);
      return;
    }
    if (!additiveMethodOk(req, res)) return;
    const running = registry.runOne(component);
    if (running === undefined) {
      notFound(res);
      return;
    }
    await answer(res, running, `healthz/${component}`, wantsVerbose(req), true);
  };

  const livez: Handler = (req, res) => {
    if (!additiveMethodOk(req, res)) return;
    if (wantsVerbose(req)) writeText(res, 200, '[+]ping ok\nlivez check passed\n', NO_STORE);
    else writeJson(res, 200, { status: 'OK', time: nowRfc3339Nano() }, { headers: NO_STORE });
  };

  const readyz: Handler = async (req, res) => {
    if (!additiveMethodOk(req, res)) return;
    const verbose = wantsVerbose(req);
    if (shuttingDown) {
      notReady(res, verbose);
      return;
    }
    await answer(res, registry.run(), 'readyz', verbose, true, () => shuttingDown);
  };

  return {
    routes: [
      { path: '/healthz', secure: false, handler: healthz },
      { path: '/healthz/', secure: false, handler: healthzComponent },
      { path: '/livez', secure: false, handler: livez },
      { path: '/readyz', secure: false, handler: readyz },
    ],
    healthz,
    healthzComponent,
    livez,
    readyz,
    beginShutdown: () => {
      shuttingDown = true;
    },
    isShuttingDown: () => shuttingDown,
  };
}
