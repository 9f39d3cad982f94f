import winston from 'winston';
import type { AuditLogger } from './handler.ts';
import { claim, levelsOf, passThrough, release, type AdapterLevelsOptions, type AdapterLogging } from './adapter-base.ts';
import { levelMapOf, type LevelMap } from './level-map.ts';
import type { LogLevels } from './levels-registry.ts';
import { levelEnables, type Level } from './levels.ts';

// winston keeps an entry's level under this registered symbol (triple-beam's LEVEL).
const LEVEL = Symbol.for('level');

type Info = Record<string | symbol, unknown>;

export interface WinstonLoggingOptions extends AdapterLevelsOptions {
  /** Where the loggers `getLogger` makes write. Default: one Console transport. */
  readonly transports?: readonly winston.transport[];
  /** Their format. Default: `2026-11-24T10:00:00.000Z [app.db] DEBUG message key=value`. */
  readonly format?: winston.Logform.Format;
  /** Their level set. Default: winston's npm levels (error … silly). */
  readonly levelSet?: winston.config.AbstractConfigSetLevels;
  /** The field each entry carries its logger's name in. Default `logger`. */
  readonly nameField?: string;
}

export interface WinstonFollowOptions {
  /**
   * The Fabric level an entry at each of the logger's levels counts as, where the default
   * reading of its names is not what you mean (`{ http: 'info' }`). Names not listed map by
   * name (`warning` → warn, `silly` → payload, `verbose` → debug) or by position.
   */
  readonly levelMap?: Readonly<Record<string, Level>>;
}

export interface WinstonLogging extends AdapterLogging {
  /**
   * The winston logger named `name` (Fabric's dotted names): made on first use with the
   * options' transports, format and level set, its level following the active spec, as do
   * its `child(...)` loggers. The same name gives the same logger.
   */
  getLogger(name: string): winston.Logger;
  /**
   * Makes a logger the application already has follow the spec under `name`: its `level` is
   * set on every activation (any level set, custom ones included), entries below it are
   * dropped before formatting, and the metrics observer counts them. Returns the function
   * that stops following (the logger keeps its last level).
   */
  follow(name: string, logger: winston.Logger, options?: WinstonFollowOptions): () => void;
  /** The logger `logspecHandler` records changes on. */
  auditLogger(name: string): AuditLogger;
}

interface Gate {
  map: LevelMap;
  /** The spec's level is above every level of the set: nothing is written. */
  none: boolean;
}

const mapCache = new WeakMap<object, LevelMap>();

function mapOf(levels: winston.config.AbstractConfigSetLevels, explicit: Readonly<Record<string, Level>> | undefined): LevelMap {
  if (explicit !== undefined)
    return levelMapOf(
      Object.entries(levels).map(([name, value]) => ({ name, severity: -value })),
      explicit,
    );
  let map = mapCache.get(levels);
  if (map === undefined) {
    // winston's numbers grow towards the verbose end (error 0 … silly 6).
    map = levelMapOf(Object.entries(levels).map(([name, value]) => ({ name, severity: -value })));
    mapCache.set(levels, map);
  }
  return map;
}

/**
 * Decides one entry the way winston's transports would (its level against `logger.level`,
 * whoever set it last), but before the format runs, and counts it for the observer.
 */
function admit(levels: LogLevels, gate: Gate, logger: winston.Logger, info: Info): boolean {
  const entryLevel = (info[LEVEL] ?? info['level']) as string;
  const fabric = gate.map.fabricOf(entryLevel);
  // A level winston does not know: leave it to winston, which says so.
  if (fabric === undefined) return true;
  const observer = levels.observer();
  if (observer !== undefined && levelEnables(levels.lowestLevel(), fabric)) observer.checked(fabric);
  const set = logger.levels;
  const pass = !gate.none && (set[entryLevel] as number) <= (set[logger.level] as number);
  if (pass) observer?.written(fabric);
  return pass;
}

function enabled(gate: Gate, logger: winston.Logger, level: string): boolean {
  const set = logger.levels;
  return !gate.none && set[level] !== undefined && (set[level] as number) <= (set[logger.level] as number);
}

const NPM_LEVELS = winston.config.npm.levels;

function defaultFormat(nameField: string): winston.Logform.Format {
  return winston.format.combine(
    winston.format.timestamp(),
    winston.format.printf((info) => {
      let fields = '';
      for (const [key, value] of Object.entries(info)) {
        if (key === 'level' || key === 'message' || key === 'timestamp' || key === nameField) continue;
        fields += ` ${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`;
      }
      return `${String(info['timestamp'])} [${String(info[nameField])}] ${info.level.toUpperCase()} ${String(info.message)}${fields}`;
    }),
  );
}

/** Fabric's spec over winston loggers: ones it makes by name, and ones the application made. */
export function createWinstonLogging(options: WinstonLoggingOptions = {}): WinstonLogging {
  const levels = levelsOf(options, 'createWinstonLogging');
  const nameField = options.nameField ?? 'logger';
  const levelSet = options.levelSet ?? NPM_LEVELS;
  const map = mapOf(levelSet, undefined);
  let root: winston.Logger | undefined;
  const named = new Map<string, winston.Logger>();

  // One logger holds the transports and lets everything through them; each named logger sits
  // on it (as winston's own children do) with a level of its own and filters before handing an
  // entry on, so shared transports never judge by another logger's level.
  const rootLogger = (): winston.Logger => {
    root ??= winston.createLogger({
      levels: levelSet,
      level: map.leastSevere,
      format: options.format ?? defaultFormat(nameField),
      transports: options.transports === undefined ? [new winston.transports.Console()] : [...options.transports],
    });
    return root;
  };

  const getLogger = (name: string): winston.Logger => {
    const known = named.get(name);
    if (known !== undefined) return known;
    const parent = rootLogger();
    const gate: Gate = { map, none: false };
    const logger = Object.create(parent) as winston.Logger;
    Object.defineProperties(logger, {
      level: { value: map.leastSevere, writable: true, enumerable: true, configurable: true },
      write: {
        value: function write(this: winston.Logger, info: Info) {
          if (!admit(levels, gate, this, info)) return true;
          if (info[nameField] === undefined) info[nameField] = name;
          return parent.write(info);
        },
        writable: true,
        configurable: true,
      },
      isLevelEnabled: {
        value: function isLevelEnabled(this: winston.Logger, level: string) {
          return enabled(gate, this, level);
        },
        writable: true,
        configurable: true,
      },
    });
    levels.follow(name, (level) => {
      const threshold = map.thresholdFor(level);
      logger.level = threshold.name;
      gate.none = threshold.none;
    });
    named.set(name, logger);
    return logger;
  };

  const follow = (name: string, logger: winston.Logger, followOptions: WinstonFollowOptions = {}): (() => void) => {
    claim(logger, name, 'follow');
    const gate: Gate = { map: mapOf(logger.levels, followOptions.levelMap), none: false };
    const hadWrite = Object.hasOwn(logger, 'write');
    const hadIsLevelEnabled = Object.hasOwn(logger, 'isLevelEnabled');
    const inner = logger.write;
    const innerIsLevelEnabled = logger.isLevelEnabled;
    // A transport piped from several loggers and without a level of its own judges every entry by
    // whichever logger was piped to it last (fabric-shim shares one Console transport among all
    // its loggers). Such a transport is opened, and the followed logger filters instead.
    for (const transport of logger.transports) {
      const piped = transport as winston.transport & { parent?: unknown };
      if (transport.level === undefined && piped.parent !== undefined && piped.parent !== logger) transport.level = gate.map.leastSevere;
    }
    logger.write = function write(this: winston.Logger, info: Info) {
      if (!admit(levels, gate, this, info)) return true;
      return (inner as (this: winston.Logger, info: Info) => boolean).call(this, info);
    } as winston.Logger['write'];
    logger.isLevelEnabled = function isLevelEnabled(this: winston.Logger, level: string) {
      return enabled(gate, this, level);
    };
    const unfollow = levels.follow(name, (level) => {
      const threshold = gate.map.thresholdFor(level);
      logger.level = threshold.name;
      gate.none = threshold.none;
    });
    return () => {
      unfollow();
      if (hadWrite) logger.write = inner;
      else delete (logger as Partial<winston.Logger>).write;
      if (hadIsLevelEnabled) logger.isLevelEnabled = innerIsLevelEnabled;
      else delete (logger as Partial<winston.Logger>).isLevelEnabled;
      release(logger);
    };
  };

  const auditLogger = (name: string): AuditLogger => {
    const logger = getLogger(name);
    const info = map.thresholdFor('info').name;
    const debug = map.thresholdFor('debug').name;
    return {
      isLevelEnabled: (level) => logger.isLevelEnabled(level === 'info' ? info : debug),
      info: (fields, message) => void logger.log(info, message, fields),
      debug: (fields, message) => void logger.log(debug, message, fields),
    };
  };

  return { ...passThrough(levels), getLogger, follow, auditLogger };
}
