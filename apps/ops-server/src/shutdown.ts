import { OpsServerError } from './errors.ts';

/**
 * The embedding program's own shutdown work (close its server, flush a queue). The signal aborts
 * when the hook's time is up; stop() has moved on by then.
 */
export type ShutdownHook = (signal: AbortSignal) => void | Promise<void>;

interface NamedHook {
  readonly name: string;
  readonly hook: ShutdownHook;
}

interface HookLogger {
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

// setTimeout's largest delay; anything longer fires at once.
const MAX_TIMER_MS = 2_147_483_647;

/** A lifecycle duration option: 0 or more milliseconds, within what a timer can wait. */
export function lifecycleMs(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_TIMER_MS) {
    const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
    throw new OpsServerError('INVALID_OPTIONS', `invalid operations option ${name}: expected milliseconds from 0 to ${MAX_TIMER_MS}, got ${shown}`);
  }
  return value;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The hooks an embedder registers, run one after another in registration order. */
export interface ShutdownHooks {
  add(name: string, hook: ShutdownHook): void;
  readonly size: number;
  /** Runs every hook, each for at most `timeoutMs`; a failing or overdue hook is logged and the next one runs. */
  run(timeoutMs: number, logger: HookLogger): Promise<void>;
}

export function createShutdownHooks(): ShutdownHooks {
  const hooks: NamedHook[] = [];

  const runOne = async ({ name, hook }: NamedHook, timeoutMs: number, logger: HookLogger): Promise<void> => {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const overdue = new Promise<'overdue'>((resolve) => {
      timer = setTimeout(() => resolve('overdue'), timeoutMs);
    });
    try {
      const outcome = await Promise.race([(async () => hook(controller.signal))(), overdue]);
      if (outcome === 'overdue') {
        // The same kind of reason AbortSignal.timeout() gives, so hooks can tell it from their own aborts.
        controller.abort(new DOMException(`shutdown hook '${name}' did not finish within ${timeoutMs} ms`, 'TimeoutError'));
        logger.warn({ hook: name, timeoutMs }, 'shutdown hook did not finish in time; stopping without waiting for it');
      }
    } catch (error) {
      logger.error({ hook: name, err: error }, 'shutdown hook failed');
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    add: (name, hook) => {
      if (typeof name !== 'string' || name === '') {
        throw new OpsServerError('INVALID_OPTIONS', `shutdown hook name must be a non-empty string, got ${JSON.stringify(name)}`);
      }
      if (typeof hook !== 'function') throw new OpsServerError('INVALID_OPTIONS', `shutdown hook '${name}' must be a function`);
      hooks.push({ name, hook });
    },
    get size() {
      return hooks.length;
    },
    run: async (timeoutMs, logger) => {
      // By index: a hook may register another, which then runs too.
      for (let i = 0; i < hooks.length; i++) await runOne(hooks[i]!, timeoutMs, logger);
    },
  };
}
