import type { LoggingRegistry } from '@fabric-ops/ops-logspec';
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
}

/**
 * Waits for a stop signal, then stops the (already started) system gracefully and
 * resolves 0. A second signal while stopping resolves 1 at once, for an operator who
 * wants out now.
 */
export function runUntilSignalled(system: Pick<OperationsSystem<LoggingRegistry>, 'stop'>, options: RunOptions = {}): Promise<number> {
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const source: SignalSource = options.source ?? process;
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
      system.stop().then(
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
