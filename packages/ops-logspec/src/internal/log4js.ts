import type log4js from 'log4js';
import type { AuditLogger } from './handler.ts';
import { claim, levelsOf, passThrough, release, type AdapterLevelsOptions, type AdapterLogging } from './adapter-base.ts';
import { levelMapOf, type LevelMap } from './level-map.ts';
import { levelEnables, type Level } from './levels.ts';
import { loadPeer } from './peer.ts';

export interface Log4jsLoggingOptions extends AdapterLevelsOptions {
  /**
   * The log4js module the application configured, when it is not the copy this package
   * resolves (levels, custom ones included, and categories live in one copy). Default: `log4js`.
   */
  readonly log4js?: log4js.Log4js;
  /** The Fabric level each log4js level counts as, where its name does not say (`{ NOTICE: 'info' }`). */
  readonly levelMap?: Readonly<Record<string, Level>>;
}

export interface Log4jsLogging extends AdapterLogging {
  /**
   * `log4js.getLogger(name)`, its category's level following the active spec (log4js keeps the
   * level per category, so every logger of that category follows). The same name gives the
   * same logger, the one whose entries the metrics observer counts.
   */
  getLogger(name: string): log4js.Logger;
  /**
   * Makes a logger the application already has follow the spec under `name` (usually its
   * category). Returns the function that stops following (the category keeps its last level).
   */
  follow(name: string, logger: log4js.Logger): () => void;
  /** The logger `logspecHandler` records changes on. */
  auditLogger(name: string): AuditLogger;
}

/** Fabric's spec over log4js categories. */
export function createLog4jsLogging(options: Log4jsLoggingOptions = {}): Log4jsLogging {
  const levels = levelsOf(options, 'createLog4jsLogging');
  // log4js is an optional peer: loaded here, so that a missing one is a LogspecError saying what
  // to install, not the entry's MODULE_NOT_FOUND.
  const lib = options.log4js ?? loadPeer<typeof log4js>('log4js', 'createLog4jsLogging');
  const named = new Map<string, log4js.Logger>();
  // log4js's set changes when it is configured with custom levels: mapped again when it does.
  let mapped: { readonly from: readonly log4js.Level[]; readonly size: number; readonly map: LevelMap } | undefined;
  const mapOf = (): LevelMap => {
    const set = lib.levels.levels;
    if (mapped?.from !== set || mapped.size !== set.length) {
      const real = set.filter((l) => l.levelStr !== 'ALL' && l.levelStr !== 'OFF');
      mapped = {
        from: set,
        size: set.length,
        map: levelMapOf(
          real.map((l) => ({ name: l.levelStr, severity: l.level })),
          options.levelMap,
        ),
      };
    }
    return mapped.map;
  };

  const follow = (name: string, logger: log4js.Logger): (() => void) => {
    claim(logger, name, 'follow');
    const hadLog = Object.hasOwn(logger, 'log');
    const inner = logger.log;
    logger.log = function log(this: log4js.Logger, level: log4js.Level | string, ...args: unknown[]) {
      const observer = levels.observer();
      if (observer !== undefined) {
        const entry = lib.levels.getLevel(level);
        const fabric = entry === undefined ? undefined : mapOf().fabricOf(entry.levelStr);
        if (fabric !== undefined) {
          if (levelEnables(levels.lowestLevel(), fabric)) observer.checked(fabric);
          if (this.isLevelEnabled(entry.levelStr)) observer.written(fabric);
        }
      }
      inner.call(this, level, ...args);
    };
    const unfollow = levels.follow(name, (level) => {
      const threshold = mapOf().thresholdFor(level);
      logger.level = threshold.none ? 'OFF' : threshold.name;
    });
    return () => {
      unfollow();
      if (hadLog) logger.log = inner;
      else delete (logger as Partial<log4js.Logger>).log;
      release(logger);
    };
  };

  const getLogger = (name: string): log4js.Logger => {
    const known = named.get(name);
    if (known !== undefined) return known;
    const logger = lib.getLogger(name);
    follow(name, logger);
    named.set(name, logger);
    return logger;
  };

  const auditLogger = (name: string): AuditLogger => {
    const logger = getLogger(name);
    const line = (fields: Record<string, unknown>, message: string): string =>
      `${message}${Object.entries(fields)
        .map(([key, value]) => ` ${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
        .join('')}`;
    return {
      isLevelEnabled: (level) => logger.isLevelEnabled(mapOf().thresholdFor(level).name),
      info: (fields, message) => logger.log(mapOf().thresholdFor('info').name, line(fields, message)),
      debug: (fields, message) => logger.log(mapOf().thresholdFor('debug').name, line(fields, message)),
    };
  };

  return { ...passThrough(levels), getLogger, follow, auditLogger };
}
