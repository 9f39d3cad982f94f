import { HealthError } from './errors.ts';
import { nowRfc3339Nano } from './internal/go-format.ts';
import { reasonOf, timeoutReason } from './internal/reason.ts';
import { optionalMs, positiveMs, resolveHealthSettings, type HealthSettings } from './internal/settings.ts';

/**
 * One health check. It resolves (or returns) when the component is healthy and rejects (or
 * throws) with the reason when it is not; resolving `false` also fails it, with the reason
 * `check returned false` (a boolean probe such as `() => pool.isConnected()` is read as meant,
 * not as a pass). Any other value passes. The signal aborts when the check's own timeout passes
 * or its component is deregistered; a checker should stop its work then.
 */
export type Checker = (signal: AbortSignal) => Promise<void | boolean> | void | boolean;

/** The reason of a check whose checker resolved `false`. */
export const FALSE_RESULT_REASON = 'check returned false';

/** The outcome of one check, as one run saw it. */
export interface CheckResult {
  readonly component: string;
  readonly healthy: boolean;
  /** Why the check failed; absent when it passed. */
  readonly reason?: string;
  /** Time the check took (for a cached result: the time it took when it ran). */
  readonly durationMs: number;
  /** True when the result came from the per-check cache rather than a fresh run. */
  readonly cached: boolean;
}

export interface HealthReport {
  /** True when every reported check passed (and when there are none). */
  readonly healthy: boolean;
  /** One result per checker, sorted by component name. */
  readonly results: readonly CheckResult[];
  /** The results that failed, sorted by component name. */
  readonly failed: readonly CheckResult[];
  /** When the checks finished, as Go's RFC3339Nano in the local zone. */
  readonly time: string;
}

/** Told about every check that actually ran (not cache hits, not dropped results), and about components that went away. */
export interface HealthObserver {
  onResult(component: string, healthy: boolean, seconds: number): void;
  /**
   * A registered component was deregistered: no result for it follows (unless it is registered
   * again), so what was recorded for it (its metric series) can go.
   */
  onRemoved?(component: string): void;
}

export interface HealthOptions {
  /** How long one check may take before it fails with `health check timed out after <d>`. Default 5000 ms. */
  readonly checkTimeoutMs?: number;
  /** How long a request waits for all checks before answering 408 with an empty body (Fabric's 30 s). */
  readonly deadlineMs?: number;
  /** Default per-check result cache lifetime; 0 (the default) runs every check on every request. */
  readonly cacheTtlMs?: number;
  /**
   * Runs every check this often on an unref'd timer once `startBackgroundChecks()` is called, so
   * results (and the metrics fed from them) stay fresh when nothing probes. 0 (the default): off.
   */
  readonly backgroundIntervalMs?: number;
}

export interface RegisterOptions {
  /** This checker's own timeout, instead of the registry's `checkTimeoutMs`. */
  readonly timeoutMs?: number;
  /** This checker's result cache lifetime, instead of the registry's `cacheTtlMs`. */
  readonly cacheTtlMs?: number;
}

export interface HealthRegistry {
  /** The resolved options. */
  readonly settings: HealthSettings;
  /** Adds a checker; a name already in use throws `HealthError` (`ALREADY_REGISTERED`). */
  register(component: string, checker: Checker, options?: RegisterOptions): void;
  /** Removes a checker; an unknown name is ignored. A check of it still running is aborted and left out of its run. */
  deregister(component: string): void;
  has(component: string): boolean;
  /** Registered component names, sorted. */
  components(): string[];
  /**
   * Runs every registered check in parallel; a check already in flight is joined, not started again.
   * While every check of the last run is still in flight, a new run joins it and gets its report.
   */
  run(): Promise<HealthReport>;
  /** Runs one component's check; undefined when no such component is registered. */
  runOne(component: string): Promise<HealthReport> | undefined;
  /** Replaces the observer (undefined removes it). */
  setObserver(observer: HealthObserver | undefined): void;
  /**
   * With `backgroundIntervalMs` set: runs every check now and then again that long after each run
   * finishes (never two runs at once), on a timer that does not keep the process alive. No-op otherwise.
   */
  startBackgroundChecks(): void;
  /** Stops the background runs; a run in progress finishes on its own. */
  stopBackgroundChecks(): void;
}

interface Entry {
  readonly component: string;
  readonly checker: Checker;
  readonly timeoutMs: number;
  readonly cacheTtlMs: number;
  removed: boolean;
  inflight: Promise<CheckResult | undefined> | undefined;
  controller: AbortController | undefined;
  cache: { readonly result: CheckResult; readonly expiresAt: number } | undefined;
  /** A timed-out attempt that ignored its abort and has not settled yet. */
  lingering: boolean;
}

/**
 * The report a run would give right now when it needs no waiting: every check has a fresh cached
 * result or is still reporting an earlier timeout, and none is in flight (also when nothing is
 * registered). Undefined when a check would have to run. The health endpoints answer from it
 * without a promise or a deadline timer; an outside HealthRegistry has none and always waits.
 */
const reportsWithoutWaiting = new WeakMap<HealthRegistry, () => HealthReport | undefined>();

export function reportWithoutWaiting(registry: HealthRegistry): HealthReport | undefined {
  return reportsWithoutWaiting.get(registry)?.();
}

function buildReport(results: readonly (CheckResult | undefined)[]): HealthReport {
  const present = results.filter((r): r is CheckResult => r !== undefined);
  present.sort((a, b) => (a.component < b.component ? -1 : a.component > b.component ? 1 : 0));
  const failed = present.filter((r) => !r.healthy);
  return { healthy: failed.length === 0, results: present, failed, time: nowRfc3339Nano() };
}

/**
 * The registry of health checkers and the engine that runs them: in parallel, each
 * under its own timeout, one attempt per component at a time however many requests ask
 * (single-flight), with an optional per-check result cache.
 */
export function createHealthRegistry(options: HealthOptions = {}): HealthRegistry {
  const settings = resolveHealthSettings(options);
  const entries = new Map<string, Entry>();
  let observer: HealthObserver | undefined;

  const notify = (component: string, healthy: boolean, durationMs: number): void => {
    try {
      observer?.onResult(component, healthy, durationMs / 1_000);
    } catch {
      // A broken observer (metrics) must never change what /healthz answers.
    }
  };

  const attempt = async (entry: Entry): Promise<CheckResult | undefined> => {
    const controller = new AbortController();
    entry.controller = controller;
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), entry.timeoutMs);
    });
    const work = (async () => entry.checker(controller.signal))();
    const outcome = await Promise.race([
      work.then(
        (value) => (value === false ? { healthy: false as const, reason: FALSE_RESULT_REASON } : { healthy: true as const }),
        (error: unknown) => ({ healthy: false as const, reason: reasonOf(error) }),
      ),
      timedOut,
    ]);
    clearTimeout(timer);
    const durationMs = performance.now() - started;
    entry.controller = undefined;
    let result: CheckResult;
    if (outcome === 'timeout') {
      const reason = timeoutReason(entry.timeoutMs);
      controller.abort(new HealthError('CHECK_TIMED_OUT', reason));
      entry.lingering = true;
      const settle = () => {
        entry.lingering = false;
      };
      work.then(settle, settle);
      result = { component: entry.component, healthy: false, reason, durationMs, cached: false };
    } else if (outcome.healthy) {
      result = { component: entry.component, healthy: true, durationMs, cached: false };
    } else {
      result = { component: entry.component, healthy: false, reason: outcome.reason, durationMs, cached: false };
    }
    // Deregistered while running: the component is gone, so its result belongs to nobody.
    if (entry.removed) return undefined;
    notify(entry.component, result.healthy, durationMs);
    if (entry.cacheTtlMs > 0) entry.cache = { result, expiresAt: performance.now() + entry.cacheTtlMs };
    return result;
  };

  /** What a check gives without running: its fresh cached result, or the timeout it is still serving out. */
  const immediate = (entry: Entry, now: number): CheckResult | undefined => {
    if (entry.cache !== undefined && now < entry.cache.expiresAt) return { ...entry.cache.result, cached: true };
    if (entry.lingering) {
      // Starting another attempt while the last one ignores its abort would pile up work
      // without bound; keep reporting the timeout until it lets go.
      return {
        component: entry.component,
        healthy: false,
        reason: `${timeoutReason(entry.timeoutMs)} (the previous check has not finished yet)`,
        durationMs: 0,
        cached: false,
      };
    }
    return undefined;
  };

  const check = (entry: Entry): Promise<CheckResult | undefined> => {
    if (entry.inflight !== undefined) return entry.inflight;
    const ready = immediate(entry, performance.now());
    if (ready !== undefined) return Promise.resolve(ready);
    const running = attempt(entry).finally(() => {
      entry.inflight = undefined;
    });
    entry.inflight = running;
    return running;
  };

  const register = (component: string, checker: Checker, registerOptions: RegisterOptions = {}): void => {
    if (typeof component !== 'string' || component === '') {
      throw new HealthError('INVALID_COMPONENT', `health checker component must be a non-empty string, got ${JSON.stringify(component)}`);
    }
    if (typeof checker !== 'function') {
      throw new HealthError('INVALID_CHECKER', `health checker for '${component}' must be a function`);
    }
    if (entries.has(component)) throw new HealthError('ALREADY_REGISTERED', `'${component}' is already registered`);
    shared = undefined;
    entries.set(component, {
      component,
      checker,
      timeoutMs: positiveMs('timeoutMs', registerOptions.timeoutMs, settings.checkTimeoutMs),
      cacheTtlMs: optionalMs('cacheTtlMs', registerOptions.cacheTtlMs, settings.cacheTtlMs),
      removed: false,
      inflight: undefined,
      controller: undefined,
      cache: undefined,
      lingering: false,
    });
  };

  const deregister = (component: string): void => {
    const entry = entries.get(component);
    if (entry === undefined) return;
    entries.delete(component);
    shared = undefined;
    entry.removed = true;
    entry.cache = undefined;
    entry.controller?.abort(new HealthError('CHECK_DEREGISTERED', `'${component}' was deregistered`));
    try {
      observer?.onRemoved?.(component);
    } catch {
      // As in notify: a broken observer must not stop the deregistration.
    }
  };

  // The last run, with the check each of its components got. A run asked for while every one of
  // those checks is still the one in flight would join exactly those checks, so it is given the
  // same run: one report, one Promise.all, however many probes ask at once.
  let shared: { readonly checks: readonly Promise<CheckResult | undefined>[]; readonly entries: readonly Entry[]; readonly report: Promise<HealthReport> } | undefined;

  const joinable = (last: NonNullable<typeof shared>): boolean => {
    for (let i = 0; i < last.entries.length; i++) if (last.entries[i]!.inflight !== last.checks[i]) return false;
    return true;
  };

  const run = (): Promise<HealthReport> => {
    const last = shared;
    // Registering or deregistering clears `shared`, so a joined run always covers today's components.
    if (last !== undefined && last.entries.length > 0 && joinable(last)) return last.report;
    const current = [...entries.values()];
    const checks = current.map(check);
    const report = Promise.all(checks).then(buildReport);
    shared = { checks, entries: current, report };
    return report;
  };

  let background: { timer: NodeJS.Timeout | undefined } | undefined;
  const backgroundRun = (): void => {
    const current = background;
    if (current === undefined) return;
    current.timer = undefined;
    const next = (): void => {
      // Stopped (or stopped and started again) while this run was going: that loop is over.
      if (background !== current) return;
      current.timer = setTimeout(backgroundRun, settings.backgroundIntervalMs);
      current.timer.unref();
    };
    run().then(next, next);
  };

  const registry: HealthRegistry = {
    settings,
    register,
    deregister,
    has: (component) => entries.has(component),
    components: () => [...entries.keys()].sort(),
    run,
    startBackgroundChecks: () => {
      if (settings.backgroundIntervalMs === 0 || background !== undefined) return;
      background = { timer: undefined };
      backgroundRun();
    },
    stopBackgroundChecks: () => {
      if (background?.timer !== undefined) clearTimeout(background.timer);
      background = undefined;
    },
    runOne: (component) => {
      const entry = entries.get(component);
      if (entry === undefined) return undefined;
      return check(entry).then((result) => buildReport([result]));
    },
    setObserver: (next) => {
      observer = next;
    },
  };
  reportsWithoutWaiting.set(registry, () => {
    const now = performance.now();
    const results: CheckResult[] = [];
    for (const entry of entries.values()) {
      if (entry.inflight !== undefined) return undefined;
      const ready = immediate(entry, now);
      if (ready === undefined) return undefined;
      results.push(ready);
    }
    return buildReport(results);
  });
  return registry;
}
