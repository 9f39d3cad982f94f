import { afterEach } from 'vitest';
import { createOperationsSystem, type OperationsLogger, type OperationsSystem, type OperationsSystemOptions } from '../src/index.ts';

// The set-up every ops-server test file shared by copy: systems on an ephemeral loopback port,
// stopped after each test, and a logger that keeps what it is given.

/** What a test system is made with unless the test says otherwise. */
export const TEST_SYSTEM_DEFAULTS = { listenAddress: '127.0.0.1:0', version: { version: '1.0.0', commitSHA: 'abc1234' } } as const;

export interface TestSystems {
  /** A system from `TEST_SYSTEM_DEFAULTS` with `options` over them, not started; stopped after the test. */
  create(options?: Partial<OperationsSystemOptions>): OperationsSystem;
  /** `create(options)`, started. */
  start(options?: Partial<OperationsSystemOptions>): Promise<OperationsSystem>;
}

/** Registers the hook that stops, after each test, every system the file made through the result. */
export function useSystems(): TestSystems {
  const made: OperationsSystem[] = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map((s) => s.stop()));
  });
  const create = (options: Partial<OperationsSystemOptions> = {}): OperationsSystem => {
    const system = createOperationsSystem({ ...TEST_SYSTEM_DEFAULTS, ...options });
    made.push(system);
    return system;
  };
  return {
    create,
    async start(options) {
      const system = create(options);
      await system.start();
      return system;
    },
  };
}

export interface LoggedLine {
  readonly level: 'info' | 'warn' | 'error';
  readonly fields: Record<string, unknown>;
  readonly msg: string | undefined;
}

/** A logger that appends each line it is given to `lines`, its fields (if any) apart from its message. */
export function capturingLogger(lines: LoggedLine[]): OperationsLogger {
  const at =
    (level: LoggedLine['level']) =>
    (fields: object | string, msg?: string): void => {
      lines.push(typeof fields === 'string' ? { level, fields: {}, msg: fields } : { level, fields: fields as Record<string, unknown>, msg });
    };
  return { info: at('info'), warn: at('warn'), error: at('error') };
}
