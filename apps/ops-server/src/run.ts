import type { LoggingRegistry } from '@fabric-ops/ops-logspec';
import { lifecycleMs } from './shutdown.ts';
import type { OperationsLogger, OperationsSystem } from './system.ts';

export interface SignalSource {
  once(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  off(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
}

export interface RunOptions {
  readonly logger?: OperationsLogger;
  /** Default SIGTERM and SIGINT. */
  readonly signals?: readonly NodeJS.Signals[];
  /** Where signals come from; `process` by default. */
  readonly source?: SignalSource;
  /**
   * The backstop: when a graceful stop has not finished this long after the first signal (a
   * shutdown hook or a part stuck past its own deadline), resolve 1 without waiting, as a
   * second signal does, so the caller can exit. Default: none (wait for the stop). The bins
   * use FORCE_EXIT_AFTER_MS.
   */
  readonly forceExitAfterMs?: number;
}

/** The bins' backstop: well past the 5 s the drain allows in-flight requests, short of Kubernetes' 30 s grace period. */
export const FORCE_EXIT_AFTER_MS = 15_000;

/**
 * Waits for a stop signal, then stops the (already started) system gracefully and
 * resolves 0. A second signal while stopping resolves 1 at once, for an operator who
 * wants out now; so does `forceExitAfterMs` passing first.
 */
export function runUntilSignalled(system: Pick<OperationsSystem<LoggingRegistry>, 'stop'>, options: RunOptions = {}): Promise<number> {
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const source: SignalSource = options.source ?? process;
  const forceAfter = options.forceExitAfterMs === undefined ? undefined : lifecycleMs('forceExitAfterMs', options.forceExitAfterMs, 0);
  return new Promise<number>((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (stopping) {
        options.logger?.warn({ signal }, 'second stop signal: exiting without waiting');
        for (const s of signals) source.off(s, onSignal);
        resolve(1);
        return;
      }
      stopping = true;
      options.logger?.info({ signal }, 'stopping operations server');
      // Re-arm every signal exactly once, for the second-signal escape hatch.
      for (const s of signals) source.off(s, onSignal);
      for (const s of signals) source.once(s, onSignal);
      const stopped = system.stop();
      if (forceAfter !== undefined) {
        const force = setTimeout(() => {
          options.logger?.error({ signal, forceExitAfterMs: forceAfter }, 'operations server did not stop in time: exiting without waiting');
          for (const s of signals) source.off(s, onSignal);
          resolve(1);
        }, forceAfter);
        // Not unref'd: a stop stuck on nothing that holds the event loop must still end in an exit code.
        // A stop that finishes (or fails) in time ends the backstop.
        stopped.then(
          () => clearTimeout(force),
          () => clearTimeout(force),
        );
      }
      stopped.then(
        () => {
          for (const s of signals) source.off(s, onSignal);
          resolve(0);
        },
        (error: unknown) => {
          options.logger?.error({ err: error }, 'operations server did not stop cleanly');
          resolve(1);
        },
      );
    };
    for (const s of signals) source.once(s, onSignal);
  });
}
