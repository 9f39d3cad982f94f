import { reasonOf } from './reason.ts';
import type { FailedCheck } from './report.ts';

/** Component names /readyz reports for the gates, as `failed_checks` entries. */
export const SHUTDOWN_COMPONENT = 'shutdown';
export const SHUTDOWN_REASON = 'the process is shutting down';
export const SIGNAL_COMPONENT = 'ready-signal';
export const STARTUP_COMPONENT = 'startup';
const NOT_SIGNALLED_YET = 'the application has not signalled ready yet';
const SIGNALLED_NOT_READY = 'the application signalled not ready';

/** One piece of start-up work /readyz waits for. Both methods may be passed around unbound. */
export interface BlockingTask {
  /** The work is done; once every task is, /readyz stops waiting for start-up. */
  resolve(): void;
  /** The work failed: /readyz stays 503 with this reason for as long as the process runs. */
  reject(reason?: unknown): void;
}

/** Readiness the embedding application controls, on top of the health checks. */
export interface Readiness {
  /** The application can take traffic (with `requireReadySignal`, /readyz waits for this). */
  signalReady(): void;
  /** The application cannot take traffic for now; /readyz answers 503 with this reason until `signalReady()`. */
  signalNotReady(reason?: string): void;
  /** Start-up work /readyz waits for: 503 until `resolve()` is called on every task created. */
  createBlockingTask(name: string): BlockingTask;
  /** True when no gate holds readiness back (the checks still decide /readyz). */
  isReady(): boolean;
}

/** The state machine behind /readyz's gates, with the operations only the server side may use. */
export interface ReadinessState extends Readiness {
  /** Closes readiness for good; signalReady() no longer reopens it. */
  beginShutdown(): void;
  isShuttingDown(): boolean;
  /** Why /readyz must answer 503 before any check runs, in a stable order; empty when every gate is open. */
  blockers(): FailedCheck[];
}

export interface ReadinessOptions {
  /** Start not ready until `signalReady()` is called. Default false: ready as soon as the checks pass. */
  readonly requireReadySignal?: boolean;
}

type Task = { readonly name: string; readonly state: 'pending' } | { readonly name: string; readonly state: 'failed'; readonly reason: string };

/**
 * Gates, in the order /readyz reports them: shutdown, the application's signal, then start-up
 * tasks in creation order. Pure state: no timers, no I/O.
 */
export function createReadinessState(options: ReadinessOptions = {}): ReadinessState {
  let shuttingDown = false;
  let signal: { ready: true } | { ready: false; reason: string } = options.requireReadySignal === true ? { ready: false, reason: NOT_SIGNALLED_YET } : { ready: true };
  // Finished tasks leave the list, so it holds only what still matters (pending or failed).
  const tasks: Task[] = [];

  const blockers = (): FailedCheck[] => {
    const out: FailedCheck[] = [];
    if (shuttingDown) out.push({ component: SHUTDOWN_COMPONENT, reason: SHUTDOWN_REASON });
    if (!signal.ready) out.push({ component: SIGNAL_COMPONENT, reason: signal.reason });
    for (const task of tasks) {
      out.push({
        component: STARTUP_COMPONENT,
        reason: task.state === 'failed' ? `start-up task '${task.name}' failed: ${task.reason}` : `waiting for start-up task '${task.name}'`,
      });
    }
    return out;
  };

  return {
    signalReady: () => {
      signal = { ready: true };
    },
    signalNotReady: (reason) => {
      signal = { ready: false, reason: reason === undefined || reason === '' ? SIGNALLED_NOT_READY : reasonOf(reason) };
    },
    createBlockingTask: (name) => {
      const task: Task = { name: String(name), state: 'pending' };
      tasks.push(task);
      let settled = false;
      // Only the first settlement counts, as with a promise.
      const settle = (failure: string | undefined): void => {
        if (settled) return;
        settled = true;
        const at = tasks.indexOf(task);
        if (failure === undefined) tasks.splice(at, 1);
        else tasks[at] = { name: task.name, state: 'failed', reason: failure };
      };
      return {
        resolve: () => settle(undefined),
        reject: (reason?: unknown) => settle(reason === undefined ? 'no reason given' : reasonOf(reason)),
      };
    },
    isReady: () => !shuttingDown && signal.ready && tasks.length === 0,
    beginShutdown: () => {
      shuttingDown = true;
    },
    isShuttingDown: () => shuttingDown,
    blockers,
  };
}
