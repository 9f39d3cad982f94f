import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseRequestTarget, writeEmpty, writeJson, writeNotFound, writeText, type Handler, type Route } from '@fabric-ops/ops-http';
import { nowRfc3339Nano } from './internal/go-format.ts';
import { createReadinessState, type Readiness, type ReadinessOptions } from './internal/readiness.ts';
import { fabricHealthResponse, verboseText, type FailedCheck } from './internal/report.ts';
import type { HealthRegistry, HealthReport } from './registry.ts';

export type HealthEndpointsOptions = ReadinessOptions;

export interface HealthEndpoints {
  /** `/healthz`, `/healthz/` (per-component), `/livez`, `/readyz`; none is secure. */
  readonly routes: readonly Route[];
  /** Fabric's /healthz: every check, 200/503 JSON, 405 for any method but GET, 408 past the deadline. */
  readonly healthz: Handler;
  /**
   * `/healthz/<component>`: that one check; 404 for an unknown component. The component is the
   * last segment of the request path, so the handler works under any mount point
   * (`/healthz/docker`, `/ops/healthz/docker`, or `/docker` inside Express's `app.use('/ops/healthz', …)`).
   */
  readonly healthzComponent: Handler;
  /** Liveness: 200 while the process serves; runs no dependency checks. */
  readonly livez: Handler;
  /** Readiness: the application's own readiness gates, then every check; 503 from the moment shutdown begins. */
  readonly readyz: Handler;
  /** Readiness the application controls: signalReady/signalNotReady and blocking start-up tasks. */
  readonly readiness: Readiness;
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

/** The decoded last segment of the request path: the component, wherever the handler is mounted. */
function componentOf(req: IncomingMessage): string {
  const { path } = parseRequestTarget(req.url ?? '/');
  return path.slice(path.lastIndexOf('/') + 1);
}

/**
 * The /healthz family. `/healthz` answers exactly as Fabric does (same statuses, JSON,
 * headers); the additive endpoints and `?verbose` forms carry `Cache-Control: no-store`
 * and also answer HEAD.
 */
export function createHealthEndpoints(registry: HealthRegistry, options: HealthEndpointsOptions = {}): HealthEndpoints {
  const readiness = createReadinessState(options);
  const { deadlineMs } = registry.settings;

  const notReady = (res: ServerResponse, verbose: boolean, blockers: readonly FailedCheck[]): void => {
    if (verbose) {
      const lines = blockers.map(({ component, reason }) => `${component} failed: ${reason}`);
      writeText(res, 503, verboseText('readyz', [], lines), NO_STORE);
      return;
    }
    writeJson(res, 503, { status: 'Service Unavailable', time: nowRfc3339Nano(), failed_checks: blockers }, { headers: NO_STORE });
  };

  const answer = async (
    res: ServerResponse,
    running: Promise<HealthReport>,
    endpoint: string,
    verbose: boolean,
    additive: boolean,
    gates: () => readonly FailedCheck[] = () => [],
  ): Promise<void> => {
    const outcome = await withDeadline(running, deadlineMs);
    if (gone(res)) return;
    // A gate closed while the checks ran (shutdown began): the answer must already say "not ready".
    const blockers = gates();
    if (blockers.length > 0) {
      notReady(res, verbose, blockers);
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
    const component = componentOf(req);
    if (component === '') {
      writeNotFound(res);
      return;
    }
    if (!additiveMethodOk(req, res)) return;
    const running = registry.runOne(component);
    if (running === undefined) {
      writeNotFound(res);
      return;
    }
    await answer(res, running, `healthz/${component}`, wantsVerbose(req), true);
  };

  // Behind our own router the subtree `/healthz/` matches any depth; only `/healthz/<one segment>` names a component.
  const healthzComponentRoute: Handler = (req, res) => {
    const { path } = parseRequestTarget(req.url ?? '/');
    if (path.indexOf('/', '/healthz/'.length) !== -1) {
      writeNotFound(res);
      return;
    }
    return healthzComponent(req, res);
  };

  const livez: Handler = (req, res) => {
    if (!additiveMethodOk(req, res)) return;
    if (wantsVerbose(req)) writeText(res, 200, '[+]ping ok\nlivez check passed\n', NO_STORE);
    else writeJson(res, 200, { status: 'OK', time: nowRfc3339Nano() }, { headers: NO_STORE });
  };

  const readyz: Handler = async (req, res) => {
    if (!additiveMethodOk(req, res)) return;
    const verbose = wantsVerbose(req);
    const blockers = readiness.blockers();
    if (blockers.length > 0) {
      notReady(res, verbose, blockers);
      return;
    }
    await answer(res, registry.run(), 'readyz', verbose, true, readiness.blockers);
  };

  return {
    routes: [
      { path: '/healthz', secure: false, handler: healthz },
      { path: '/healthz/', secure: false, handler: healthzComponentRoute },
      { path: '/livez', secure: false, handler: livez },
      { path: '/readyz', secure: false, handler: readyz },
    ],
    healthz,
    healthzComponent,
    livez,
    readyz,
    readiness: {
      signalReady: readiness.signalReady,
      signalNotReady: readiness.signalNotReady,
      createBlockingTask: readiness.createBlockingTask,
      isReady: readiness.isReady,
    },
    beginShutdown: readiness.beginShutdown,
    isShuttingDown: readiness.isShuttingDown,
  };
}
