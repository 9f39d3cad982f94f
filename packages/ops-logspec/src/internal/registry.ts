import type { DestinationStream, Logger, LoggerOptions, LogFn } from 'pino';
import { LogspecError } from '../errors.ts';
import { boundedSink, DEFAULT_MAX_BUFFERED, isWritableLike, type BoundedSink } from './destination.ts';
import { createLogLevels, type LogLevels, type LoggingObserver } from './levels-registry.ts';
import type { Level } from './levels.ts';
import { loadPeer } from './peer.ts';
import { isValidLoggerName, type ParsedSpec } from './spec.ts';
import { textDestination } from './text-format.ts';
import type { LogFormat, LoggerLevelName, LoggingRegistry } from './logger-types.ts';
import { registryMembers } from './registry-members.ts';
import { FABRIC_LEVEL_OF, LEVEL_VALUE_OF, LOGGER_LEVEL_NAMES, LOGGER_LEVEL_OF } from './pino-levels.ts';

export type { LoggingObserver } from './levels-registry.ts';

export type { LogFormat } from './logger-types.ts';

export interface LoggingOptions {
  /** The initial spec (text, or what parseSpec returned). Default `info`. An invalid one throws a LogspecError. */
  readonly spec?: string | ParsedSpec;
  /** Default `text`. */
  readonly format?: LogFormat;
  /**
   * Where lines go. Default: `process.stdout`. A Node writable stream (anything with
   * `writableLength`) is written without ever waiting for its reader, up to
   * `maxBufferedBytes` queued; any other pino destination is called as it is.
   */
  readonly destination?: DestinationStream;
  /**
   * How much text may wait for a slow reader of a stream destination before further lines
   * are dropped (and counted), in characters. Default 1 MiB.
   */
  readonly maxBufferedBytes?: number;
  readonly observer?: LoggingObserver;
  /**
   * The levels to follow, shared with other adapters (winston, bunyan, log4js), so that one
   * `/logspec` drives every logger of the process. Default: a new one from `spec` and
   * `observer`; when given, those two must be left out (set them on `levels`).
   */
  readonly levels?: LogLevels;
  /**
   * pino's own options for what a line carries, passed to pino as they are: `redact` (paths
   * whose values are replaced, or removed), `serializers`, `base` (fields on every line;
   * default `null` in text format, pino's pid and hostname in JSON), `mixin` and
   * `mixinMergeStrategy`. The level, the hooks and the destination stay this package's.
   */
  readonly pino?: PinoLineOptions;
}

/** The pino options `createLogging` passes through (see `LoggingOptions.pino`). */
export type PinoLineOptions = Pick<LoggerOptions, (typeof PINO_LINE_OPTIONS)[number]>;

const PINO_LINE_OPTIONS = ['redact', 'serializers', 'base', 'mixin', 'mixinMergeStrategy'] as const;

/** The pass-through options, checked by name: a level or a transport set here would undo the spec. */
function pinoLineOptions(given: PinoLineOptions | undefined): PinoLineOptions {
  if (given === undefined) return {};
  if (given === null || typeof given !== 'object') throw new LogspecError('INVALID_OPTIONS', `createLogging: pino must be an object of pino options, got ${given === null ? 'null' : typeof given}`);
  const unknown = Object.keys(given).filter((key) => !(PINO_LINE_OPTIONS as readonly string[]).includes(key));
  if (unknown.length > 0) {
    throw new LogspecError('INVALID_OPTIONS', `createLogging: pino option ${unknown.join(', ')} is not passed through; only ${PINO_LINE_OPTIONS.join(', ')} are (the level follows the spec)`);
  }
  return given;
}

/** pino's registry: every `LoggingRegistry` member, its loggers pino's. */
export interface Logging extends LoggingRegistry<Logger> {
  /**
   * The logger named `name` (dot-hierarchical, Fabric's naming rule): a pino logger whose
   * level follows the active spec, as do its children unless they were given their own
   * `level`. The same name gives the same logger.
   */
  getLogger(name: string): Logger;
}

type PinoLabel = LoggerLevelName;

const FABRIC_NAME_OF_VALUE: Readonly<Record<number, Level>> = { 10: 'payload', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

interface Entry {
  readonly logger: Logger;
  /** The level the active spec gives the name. */
  level: Level;
  /** The pino level value the methods were last set for. */
  appliedValue: number;
  /** The lowest pino level value counted as checked when they were set (0: no observer). */
  appliedCountFrom: number;
}

export function parseFormat(value: string): LogFormat {
  if (value === 'json' || value === 'text') return value;
  throw new LogspecError('INVALID_FORMAT', `unknown log format '${value}': expected 'json' or 'text'`);
}

/** Every key of LoggingOptions; createLeanLogging takes the same but `pino`. */
export const LOGGING_OPTION_KEYS: readonly string[] = ['spec', 'format', 'destination', 'maxBufferedBytes', 'observer', 'levels', 'pino'];

/** A JavaScript caller's misspelt or foreign option is refused, not silently ignored. */
export function refuseUnknownOptions(fn: string, options: object, known: readonly string[]): void {
  if (typeof options !== 'object' || options === null) throw new LogspecError('INVALID_OPTIONS', `${fn}: expected options as an object, got ${options === null ? 'null' : typeof options}`);
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) throw new LogspecError('INVALID_OPTIONS', `${fn}: unknown option ${key} (known: ${known.join(', ')})`);
  }
}

/**
 * A registry of named pino loggers under one Fabric logging spec. A spec change sets the
 * level of each registered logger once; pino children reach their level through the
 * prototype chain, so they follow their parent without being tracked. A disabled call
 * costs what it costs in pino: a call to a no-op method.
 */
export function createLogging(options: LoggingOptions = {}): Logging {
  // pino is an optional peer: loaded here, on the first call, so that the package's main entry
  // works in a program that logs with something else.
  refuseUnknownOptions('createLogging', options, LOGGING_OPTION_KEYS);
  const { pino } = loadPeer<typeof import('pino')>('pino', 'createLogging');
  const { levelValSym } = pino.symbols;
  if (options.levels !== undefined && (options.spec !== undefined || options.observer !== undefined)) {
    throw new LogspecError('INVALID_OPTIONS', 'createLogging: give either levels or spec/observer, not both (set them on levels)');
  }
  const levels = options.levels ?? createLogLevels({ ...(options.spec === undefined ? {} : { spec: options.spec }), ...(options.observer === undefined ? {} : { observer: options.observer }) });
  const format = options.format === undefined ? 'text' : parseFormat(options.format);
  const given = options.destination ?? process.stdout;
  const sink: BoundedSink | undefined = isWritableLike(given) ? boundedSink(given, options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED, () => levels.observer()?.dropped?.()) : undefined;
  const out: DestinationStream = sink ?? given;

  const lineOptions = pinoLineOptions(options.pino);
  const root = pino(
    {
      level: 'trace',
      // Text lines have no room for pid/hostname; JSON keeps pino's defaults.
      ...(format === 'text' ? { base: null } : {}),
      ...lineOptions,
      hooks: {
        logMethod(this: Logger, args: Parameters<LogFn>, method: LogFn, level: number) {
          const current = levels.observer();
          if (current !== undefined) {
            const name = FABRIC_NAME_OF_VALUE[level] ?? 'info';
            current.checked(name);
            current.written(name);
          }
          return method.apply(this, args);
        },
      },
    },
    format === 'text' ? textDestination(out) : out,
  );

  // pino's own level methods are generic (they work on `this`), so one set serves every
  // logger: the root's, taken at the lowest level, and pino's no-op.
  const writing = Object.fromEntries(LOGGER_LEVEL_NAMES.map((label) => [label, root[label]])) as Record<PinoLabel, unknown>;
  const probe = root.child({});
  probe.level = 'fatal';
  const silent = probe.trace as unknown;
  // Below-threshold methods when an observer is set: count the check, write nothing.
  const counting = Object.fromEntries(
    LOGGER_LEVEL_NAMES.map((label) => {
      const fabricName = FABRIC_LEVEL_OF[label];
      return [label, () => levels.observer()?.checked(fabricName)];
    }),
  ) as Record<PinoLabel, unknown>;

  const entries = new Map<string, Entry>();

  /**
   * Sets a logger's level the way pino's setter does (level value plus one method per
   * level) but with shared functions, so that an activation over many loggers allocates
   * nothing. Children see the change through the prototype chain. With an observer,
   * entries at or above the lowest active level but below the threshold are counted as
   * checked, as Fabric counts them.
   */
  const setMethods = (logger: Logger, label: PinoLabel, countFrom: number | undefined): void => {
    const threshold = LEVEL_VALUE_OF[label];
    const target = logger as unknown as Record<string | symbol, unknown>;
    target[levelValSym] = threshold;
    for (const method of LOGGER_LEVEL_NAMES) {
      const value = LEVEL_VALUE_OF[method];
      target[method] = value >= threshold ? writing[method] : countFrom !== undefined && value >= countFrom ? counting[method] : silent;
    }
  };

  const apply = (entry: Entry, countFrom: number): void => {
    const label = LOGGER_LEVEL_OF[entry.level];
    const value = LEVEL_VALUE_OF[label];
    // Someone may have set `.level` by hand: the spec wins again at the next activation.
    if (value === entry.appliedValue && countFrom === entry.appliedCountFrom && (entry.logger as unknown as Record<symbol, unknown>)[levelValSym] === value) {
      return;
    }
    setMethods(entry.logger, label, countFrom === 0 ? undefined : countFrom);
    entry.appliedValue = value;
    entry.appliedCountFrom = countFrom;
  };

  const countFromNow = (): number => (levels.observer() === undefined ? 0 : LEVEL_VALUE_OF[LOGGER_LEVEL_OF[levels.lowestLevel()]]);

  const getLogger = (name: string): Logger => {
    const known = entries.get(name);
    if (known !== undefined) return known.logger;
    if (!isValidLoggerName(name)) throw new LogspecError('BAD_LOGGER_NAME', `bad logger name '${name}'`);
    const logger = root.child({ name });
    const pinoChild = logger.child;
    const entry: Entry = { logger, level: 'info', appliedValue: 0, appliedCountFrom: 0 };
    let servesAsPrototype = false;
    // pino versions before 10 give every child its own copy of the level; drop it so the
    // child reads its parent's level (unless the caller asked for a level of its own).
    logger.child = function followingChild(this: Logger, bindings, childOptions) {
      const child = pinoChild.call(this, bindings, childOptions);
      if (childOptions?.level === undefined && Object.prototype.hasOwnProperty.call(child, levelValSym)) {
        delete (child as unknown as Record<symbol, unknown>)[levelValSym];
        for (const label of LOGGER_LEVEL_NAMES) delete (child as unknown as Record<string, unknown>)[label];
      }
      const untouched = (logger as unknown as Record<symbol, unknown>)[levelValSym] === entry.appliedValue;
      if (this === logger && !servesAsPrototype && untouched) {
        // The logger has just become a prototype, which V8 re-shapes on the next write to
        // it. Take that one-time cost here rather than in the next activation.
        servesAsPrototype = true;
        setMethods(logger, LOGGER_LEVEL_OF[entry.level], entry.appliedCountFrom === 0 ? undefined : entry.appliedCountFrom);
      }
      return child;
    } as Logger['child'];
    // Write every method twice so V8 sees mutable fields from the start; the first
    // activation is then as cheap as the later ones.
    setMethods(logger, 'fatal', LEVEL_VALUE_OF.trace);
    // Told of every activation and observer change; applies only what differs.
    levels.follow(name, (level) => {
      entry.level = level;
      apply(entry, countFromNow());
    });
    entries.set(name, entry);
    return logger;
  };

  return registryMembers(getLogger, levels, format, sink);
}
