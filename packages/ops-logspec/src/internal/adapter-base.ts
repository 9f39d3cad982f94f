import { LogspecError } from '../errors.ts';
import { createLogLevels, type LoggingObserver, type LogLevels } from './levels-registry.ts';
import type { Level } from './levels.ts';
import type { ParsedSpec } from './spec.ts';

/** What every adapter's options share: its own levels from `spec`/`observer`, or shared ones. */
export interface AdapterLevelsOptions {
  /** The levels to follow, shared with other adapters so one `/logspec` drives them all. */
  readonly levels?: LogLevels;
  /** The initial spec of new levels (only without `levels`). Default `info`. */
  readonly spec?: string | ParsedSpec;
  /** The metrics observer of new levels (only without `levels`). */
  readonly observer?: LoggingObserver;
}

/** The part of every adapter's logging that only passes through to its levels. */
export interface AdapterLogging {
  /** The spec decisions these loggers follow; hand it to another adapter to drive its loggers too. */
  readonly levels: LogLevels;
  activateSpec(spec: string | ParsedSpec): void;
  spec(): string;
  levelOf(name: string): Level;
  setObserver(observer: LoggingObserver | undefined): void;
}

export function levelsOf(options: AdapterLevelsOptions, who: string): LogLevels {
  if (options.levels !== undefined) {
    if (options.spec !== undefined || options.observer !== undefined) {
      throw new LogspecError('INVALID_OPTIONS', `${who}: give either levels or spec/observer, not both (set them on levels)`);
    }
    return options.levels;
  }
  return createLogLevels({ ...(options.spec === undefined ? {} : { spec: options.spec }), ...(options.observer === undefined ? {} : { observer: options.observer }) });
}

export function passThrough(levels: LogLevels): AdapterLogging {
  return {
    levels,
    activateSpec: (spec) => levels.activateSpec(spec),
    spec: () => levels.spec(),
    levelOf: (name) => levels.levelOf(name),
    setObserver: (observer) => levels.setObserver(observer),
  };
}

/** Marks a library logger as followed, so that following it twice is refused rather than stacked. */
export const FOLLOWED: unique symbol = Symbol.for('@fabric-ops/ops-logspec.followed');

export function claim(logger: object, name: string, who: string): void {
  const owner = (logger as Record<symbol, unknown>)[FOLLOWED];
  if (Object.hasOwn(logger, FOLLOWED) && owner !== undefined) {
    throw new LogspecError('INVALID_OPTIONS', `${who}: this logger already follows '${String(owner)}'; unfollow it first`);
  }
  Object.defineProperty(logger, FOLLOWED, { value: name, configurable: true, writable: true });
}

export function release(logger: object): void {
  delete (logger as Record<symbol, unknown>)[FOLLOWED];
}
