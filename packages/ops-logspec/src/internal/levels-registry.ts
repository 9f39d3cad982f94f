import { LogspecError } from '../errors.ts';
import type { Level } from './levels.ts';
import { formatSpec, isValidLoggerName, lookupKeys, lowestLevel, resolveKeys, trustedSpec, type ParsedSpec } from './spec.ts';

/**
 * Hooks for metrics (Fabric's `logging_entries_checked` / `logging_entries_written`);
 * `level` is a Fabric level name (`debug`, `info`, ...).
 */
export interface LoggingObserver {
  /** An entry at or above the lowest active level was checked against its logger's level. */
  checked(level: string): void;
  /** An entry was written. */
  written(level: string): void;
  /**
   * A line was dropped because the log reader fell behind (see `maxBufferedBytes`), for a
   * `logging_lines_dropped`-style counter. It was counted as written first.
   */
  dropped?(): void;
}

export interface LogLevelsOptions {
  /** The initial spec (text, or what parseSpec returned). Default `info`. An invalid one throws a LogspecError. */
  readonly spec?: string | ParsedSpec;
  readonly observer?: LoggingObserver;
}

/**
 * Called with the level a followed name has under the active spec: once when it is followed,
 * then after every activation and every observer change (adapters compare for themselves).
 */
export type LevelListener = (level: Level) => void;

/**
 * The decision half of the package, with no logger library: one active Fabric spec, the level
 * it gives each dotted name (longest prefix wins, a trailing `.` matches that name only), the
 * metrics observer, and the names adapters follow. Every adapter (pino, winston, bunyan,
 * log4js) applies what it decides to its own loggers.
 */
export interface LogLevels {
  /**
   * Replaces the active spec (text, or what parseSpec returned); every follower is told before
   * this returns. Throws a LogspecError (changing nothing) when invalid.
   */
  activateSpec(spec: string | ParsedSpec): void;
  /** The active spec, normalised (`b=warn:a=error` → `a=error:b=warn:info`). */
  spec(): string;
  /** The level logger `name` has under the active spec. */
  levelOf(name: string): Level;
  /** The lowest level the active spec gives any name: entries below it are not even counted as checked. */
  lowestLevel(): Level;
  /** The metrics observer, if one is set. */
  observer(): LoggingObserver | undefined;
  /** Sets (or, with undefined, removes) the metrics observer; every follower is told. */
  setObserver(observer: LoggingObserver | undefined): void;
  /**
   * Calls `listener` with the level of `name` now and after every activation and observer
   * change, until the returned function is called. Throws a LogspecError (`BAD_LOGGER_NAME`)
   * for a name that breaks Fabric's naming rule.
   */
  follow(name: string, listener: LevelListener): () => void;
}

interface Follower {
  readonly keys: readonly string[];
  readonly listener: LevelListener;
}

/** A LogLevels with no logger attached; adapters follow names on it. */
export function createLogLevels(options: LogLevelsOptions = {}): LogLevels {
  let parsed = trustedSpec(options.spec ?? '');
  let text = formatSpec(parsed);
  let lowest = lowestLevel(parsed);
  let observer = options.observer;
  const followers = new Set<Follower>();

  // Linear in the spec plus one lookup per follower: never followers × spec.
  const tellAll = (): void => {
    for (const follower of followers) follower.listener(resolveKeys(parsed, follower.keys));
  };

  return {
    activateSpec(spec) {
      const next = trustedSpec(spec);
      const nextText = formatSpec(next);
      parsed = next;
      text = nextText;
      lowest = lowestLevel(next);
      tellAll();
    },
    spec: () => text,
    levelOf: (name) => resolveKeys(parsed, lookupKeys(name)),
    lowestLevel: () => lowest,
    observer: () => observer,
    setObserver(next) {
      observer = next;
      tellAll();
    },
    follow(name, listener) {
      if (!isValidLoggerName(name)) throw new LogspecError('BAD_LOGGER_NAME', `bad logger name '${name}'`);
      const follower: Follower = { keys: lookupKeys(name), listener };
      followers.add(follower);
      listener(resolveKeys(parsed, follower.keys));
      return () => {
        followers.delete(follower);
      };
    },
  };
}
