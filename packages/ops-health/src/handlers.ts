import type { IncomingMessage, ServerResponse } from 'node:http';
import { writeEmpty, writeJson, writeJsonText, writeNotFound, writeText, type Handler, type Route } from '@fabric-ops/ops-http';
import { parseRequestTarget } from '@fabric-ops/ops-http/go';
import { nowRfc3339Nano } from './internal/go-format.ts';
import { createReadinessState, type Readiness, type ReadinessOptions } from './internal/readiness.ts';
import { fabricHealthResponse, healthyBody, verboseText, type FailedCheck } from './internal/report.ts';
import { reportWithoutWaiting, type HealthRegistry, type HealthReport } from './registry.ts';

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
const NO_HEADERS = {} as const;
const ADDITIVE_METHODS = { Allow: 'GET, HEAD', ...NO_STORE } as const;

/**
 * Whether the request asks for the verbose form. Only a target with a `?` can; the rest skip
 * parsing (the router has already refused a target it cannot parse).
 */
function wantsVerbose(req: IncomingMessage): boolean {
  const url = req.url;
  if (url === undefined || !url.includes('?')) return false;
  const { query } = parseRequestTarget(url);
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

/** One request waiting for a run of the checks. */
interface Waiter {
  readonly res: ServerResponse;
  readonly endpoint: string;
  readonly verbose: boolean;
  readonly additive: boolean;
  /** /readyz: the gates are asked again when the answer is written. */
  readonly gated: boolean;
  /** When this request's own deadline passes (performance.now() ms). */
  readonly due: number;
  answered: boolean;
  settle: () => void;
  fail: (error: unknown) => void;
}

/**
 * The requests waiting for one run (concurrent probes share a run: see HealthRegistry.run), and
 * the one timer enforcing all their deadlines: it is armed for the earliest deadline still open
 * and re-armed for the next, instead of a timer (and a race of promises) per request. Requests
 * join in arrival order, and every deadline is the same length, so the earliest open one is
 * always the first unanswered waiter.
 */
interface Round {
  readonly running: Promise<HealthReport>;
  readonly waiters: Waiter[];
  /** Waiters before this index have been answered. */
  first: number;
  timer: NodeJS.Timeout | undefined;
}

/**
 * The /healthz family. `/healthz` answers exactly as Fabric does (same statuses, JSON,
 * headers); the additive endpoints and `?verbose` forms carry `Cache-Control: no-store`
 * and also answer HEAD.
 */
export function createHealthEndpoints(registry: HealthRegistry, options: HealthEndpointsOptions = {}): HealthEndpoints {
  const readiness = createReadinessState(options);
  const { deadlineMs } = registry.settings;
  const rounds = new Map<Promise<HealthReport>, Round>();

  const notReady = (res: ServerResponse, verbose: boolean, blockers: readonly FailedCheck[]): void => {
    if (verbose) {
      const lines = blockers.map(({ component, reason }) => `${component} failed: ${reason}`);
      writeText(res, 503, verboseText('readyz', [], lines), NO_STORE);
      return;
    }
    writeJson(res, 503, { status: 'Service Unavailable', time: nowRfc3339Nano(), failed_checks: blockers }, { headers: NO_STORE });
  };

  /** Writes the answer to a finished report ('deadline': the request's deadline passed first). */
  const answer = (res: ServerResponse, outcome: HealthReport | 'deadline', endpoint: string, verbose: boolean, additive: boolean, gated: boolean): void => {
    if (gone(res)) return;
    // A gate closed while the checks ran (shutdown began): the answer must already say "not ready".
    if (gated && !readiness.isReady()) {
      notReady(res, verbose, readiness.blockers());
      return;
    }
    const headers = additive || verbose ? NO_STORE : NO_HEADERS;
    if (outcome === 'deadline') {
      writeEmpty(res, 408, headers);
      return;
    }
    if (verbose) {
      writeText(res, fabricHealthResponse(outcome).status, verboseText(endpoint, outcome.results), headers);
      return;
    }
    if (outcome.failed.length === 0) {
      writeJsonText(res, 200, healthyBody(outcome.time), headers);
      return;
    }
    const { status, body } = fabricHealthResponse(outcome);
    writeJson(res, status, body, { headers });
  };

  const release = (waiter: Waiter, outcome: HealthReport | 'deadline'): void => {
    waiter.answered = true;
    try {
      answer(waiter.res, outcome, waiter.endpoint, waiter.verbose, waiter.additive, waiter.gated);
    } catch (error) {
      waiter.fail(error);
      return;
    }
    waiter.settle();
  };

  const expire = (round: Round): void => {
    round.timer = undefined;
    const now = performance.now();
    const { waiters } = round;
    while (round.first < waiters.length && waiters[round.first]!.due <= now) release(waiters[round.first++]!, 'deadline');
    // A timer may fire a little before performance.now() reaches the deadline: wait out the rest.
    if (round.first < waiters.length) round.timer = setTimeout(expire, Math.max(1, Math.ceil(waiters[round.first]!.due - now)), round);
    // Everyone was answered: let go of the run, so one that never settles is not held here for good.
    else if (rounds.get(round.running) === round) rounds.delete(round.running);
  };

  const finish = (running: Promise<HealthReport>, round: Round, outcome: { readonly report: HealthReport } | { readonly error: unknown }): void => {
    if (rounds.get(running) === round) rounds.delete(running);
    if (round.timer !== undefined) clearTimeout(round.timer);
    const { waiters } = round;
    for (let i = round.first; i < waiters.length; i++) {
      const waiter = waiters[i]!;
      if (waiter.answered) continue;
      if ('report' in outcome) release(waiter, outcome.report);
      else {
        waiter.answered = true;
        waiter.fail(outcome.error);
      }
    }
    round.first = waiters.length;
  };

  /** Answers once `running` settles, or with 408 when this request's deadline passes first. */
  const wait = (res: ServerResponse, running: Promise<HealthReport>, endpoint: string, verbose: boolean, additive: boolean, gated: boolean): Promise<void> => {
    let round = rounds.get(running);
    if (round === undefined) {
      const created: Round = { running, waiters: [], first: 0, timer: undefined };
      created.timer = setTimeout(expire, deadlineMs, created);
      round = created;
      rounds.set(running, created);
      running.then(
        (report) => finish(running, created, { report }),
        (error: unknown) => finish(running, created, { error }),
      );
    }
    const waiters = round.waiters;
    return new Promise<void>((settle, fail) => {
      waiters.push({ res, endpoint, verbose, additive, gated, due: performance.now() + deadlineMs, answered: false, settle, fail });
    });
  };

  /**
   * A report on hand (cached within its TTL) is answered at once; otherwise the request waits for
   * a run. Only a waiting request re-checks the gates (`gatedWhileWaiting`): for one answered at
   * once nothing ran in between, so the gates just asked are still the gates.
   */
  const answerFromChecks = (res: ServerResponse, endpoint: string, verbose: boolean, additive: boolean, gatedWhileWaiting: boolean): Promise<void> | undefined => {
    const ready = reportWithoutWaiting(registry);
    if (ready !== undefined) {
      answer(res, ready, endpoint, verbose, additive, false);
      return undefined;
    }
    return wait(res, registry.run(), endpoint, verbose, additive, gatedWhileWaiting);
  };

  const healthz: Handler = (req, res) => {
    if (req.method !== 'GET') {
      writeEmpty(res, 405);
      return;
    }
    // Fabric's handler never reads the query: `?verbose` lives on the additive paths only.
    return answerFromChecks(res, 'healthz', false, false, false);
  };

  const additiveMethodOk = (req: IncomingMessage, res: ServerResponse): boolean => {
    if (req.method === 'GET' || req.method === 'HEAD') return true;
    writeEmpty(res, 405, ADDITIVE_METHODS);
    return false;
  };

  const healthzComponent: Handler = (req, res) => {
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
    return wait(res, running, `healthz/${component}`, wantsVerbose(req), true, false);
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
    else writeJsonText(res, 200, healthyBody(nowRfc3339Nano()), NO_STORE);
  };

  const readyz: Handler = (req, res) => {
    if (!additiveMethodOk(req, res)) return;
    const verbose = wantsVerbose(req);
    if (!readiness.isReady()) {
      notReady(res, verbose, readiness.blockers());
      return;
    }
    return answerFromChecks(res, 'readyz', verbose, true, true);
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
