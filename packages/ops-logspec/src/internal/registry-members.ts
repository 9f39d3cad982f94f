import type { BoundedSink } from './destination.ts';
import type { LogLevels } from './levels-registry.ts';
import type { LogFormat, LoggingRegistry, LogspecLogger } from './logger-types.ts';

/**
 * The registry members both engines (pino's and the lean one) answer the same way once their
 * levels, destination and `getLogger` exist: the spec calls go to the shared levels, the
 * destination calls to the bounded sink (none when the caller gave a destination of its own).
 */
export function registryMembers<L extends LogspecLogger>(getLogger: (name: string) => L, levels: LogLevels, format: LogFormat, sink: BoundedSink | undefined): LoggingRegistry<L> {
  return {
    getLogger,
    activateSpec: (spec) => levels.activateSpec(spec),
    spec: () => levels.spec(),
    levelOf: (name) => levels.levelOf(name),
    setObserver: (observer) => levels.setObserver(observer),
    droppedLines: () => sink?.dropped() ?? 0,
    flush: (timeoutMs = 2_000) => sink?.whenFlushed(timeoutMs) ?? Promise.resolve(),
    format,
    levels,
    auditLogger: getLogger,
  };
}
