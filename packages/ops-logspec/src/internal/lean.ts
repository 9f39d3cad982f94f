import { hostname } from 'node:os';
import { LogspecError } from '../errors.ts';
import { boundedSink, DEFAULT_MAX_BUFFERED, isWritableLike, type BoundedSink } from './destination.ts';
import { createLogLevels, type LogLevels, type LoggingObserver } from './levels-registry.ts';
import type { LogFormat, LoggerLevelName, LoggingRegistry, LogMethod, LogspecLogger } from './logger-types.ts';
import { bindingsText, entryText, formatMessage } from './pino-line.ts';
import { isValidLoggerName, type ParsedSpec } from './spec.ts';
import { formatTextLine, wantsMetadata } from './text-format.ts';
import { LOGGING_OPTION_KEYS, parseFormat, refuseUnknownOptions } from './registry.ts';
import { registryMembers } from './registry-members.ts';
import { FABRIC_LEVEL_OF, LEVEL_VALUE_OF, LOGGER_LEVEL_NAMES, LOGGER_LEVEL_OF } from './pino-levels.ts';

/** Anything lines can be written to: a Node writable stream (bounded, never waited for) or any `write(line)`. */
export interface LineDestination {
  write(line: string): unknown;
}

export interface LeanLoggingOptions {
  /** The initial spec (text, or what parseSpec returned). Default `info`. An invalid one throws a LogspecError. */
  readonly spec?: string | ParsedSpec;
  /** Default `text`. */
  readonly format?: LogFormat;
  /**
   * Where lines go. Default: `process.stdout`. A Node writable stream (anything with
   * `writableLength`) is written without ever waiting for its reader, up to `maxBufferedBytes`
   * queued; anything else is called as it is.
   */
  readonly destination?: LineDestination;
  /** How much text may wait for a slow reader of a stream destination before lines are dropped (and counted), in characters. Default 1 MiB. */
  readonly maxBufferedBytes?: number;
  readonly observer?: LoggingObserver;
  /** The levels to follow, shared with other adapters; when given, leave `spec` and `observer` out. */
  readonly levels?: LogLevels;
}

/** A lean logger: pino's call convention and line bytes, Fabric's levels; no per-logger options. */
export interface LeanLogger extends LogspecLogger {
  child(bindings: Record<string, unknown>): LeanLogger;
  /** The pino level name of the threshold the active spec gives this logger's name. */
  readonly level: LoggerLevelName;
}

/** The lean engine's registry: every `Logging` member, with loggers that need no logger library. */
export type LeanLogging = LoggingRegistry<LeanLogger>;

/** What a logger object holds; the level methods and `threshold` of a named logger are its own, a child reads them through its prototype. */
interface LoggerState {
  /** The rendered bindings of this logger and its ancestors (`,"name":"a.b","k":1`). */
  readonly bindings: string;
  threshold: number;
}

const noop = (): void => undefined;

/**
 * The registry of named loggers without pino: lines byte-identical to `createLogging`'s in
 * both formats (pino's field order, quoting, `err` serializer and printf-style messages), the
 * same levels, observer counts and bounded destination. What it leaves out is pino's
 * configuration (`pino` options, redaction, serializers, transports) and its weight: a process
 * that logs with it never loads pino (about 6 MiB of RSS).
 */
export function createLeanLogging(options: LeanLoggingOptions = {}): LeanLogging {
  if ((options as { pino?: unknown } | null)?.pino !== undefined) {
    throw new LogspecError('INVALID_OPTIONS', 'createLeanLogging: pino options need the pino engine; use createLogging');
  }
  refuseUnknownOptions(
    'createLeanLogging',
    options,
    LOGGING_OPTION_KEYS.filter((key) => key !== 'pino'),
  );
  if (options.levels !== undefined && (options.spec !== undefined || options.observer !== undefined)) {
    throw new LogspecError('INVALID_OPTIONS', 'createLeanLogging: give either levels or spec/observer, not both (set them on levels)');
  }
  const levels = options.levels ?? createLogLevels({ ...(options.spec === undefined ? {} : { spec: options.spec }), ...(options.observer === undefined ? {} : { observer: options.observer }) });
  const format = options.format === undefined ? 'text' : parseFormat(options.format);
  const given: LineDestination = options.destination ?? process.stdout;
  const sink: BoundedSink | undefined = isWritableLike(given) ? boundedSink(given, options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED, () => levels.observer()?.dropped?.()) : undefined;
  const out: LineDestination = sink ?? given;
  // pino's base fields: pid and hostname in JSON lines, none in text lines (as createLogging sets `base: null`).
  const base = format === 'json' ? `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())}` : '';
  const render = format === 'text' ? (line: string) => formatTextLine(line.slice(0, -1)) : (line: string) => line;
  // A destination that routes lines by level (`pino.multistream`) reads it beside the line, as pino hands it.
  const routed = wantsMetadata(out) ? (out as unknown as Record<string, unknown>) : undefined;
  const emit = (line: string, value: number): void => {
    if (routed !== undefined) routed['lastLevel'] = value;
    out.write(render(line));
  };

  const write = (state: LoggerState, value: number, args: readonly unknown[]): void => {
    let fields: object | null = null;
    let message: unknown;
    const first = args[0];
    // pino's argument reading: an object (or null) first is the fields, then the message and its format arguments.
    if (typeof first === 'object') {
      if (first === null && args.length === 1) message = null;
      else {
        fields = first;
        message = formatMessage(args[1], args.slice(2));
      }
    } else if (first === undefined) message = formatMessage(args[1], args.slice(2));
    else message = formatMessage(first, args.slice(1));
    emit(`{"level":${value},"time":${Date.now()}${base}${state.bindings}${entryText(fields, message)}}\n`, value);
  };

  const writing = {} as Record<LoggerLevelName, LogMethod>;
  const counting = {} as Record<LoggerLevelName, LogMethod>;
  for (const label of LOGGER_LEVEL_NAMES) {
    const value = LEVEL_VALUE_OF[label];
    const fabricName = FABRIC_LEVEL_OF[label];
    writing[label] = function writeEntry(this: LoggerState, ...args: unknown[]): void {
      const observer = levels.observer();
      if (observer !== undefined) {
        observer.checked(fabricName);
        observer.written(fabricName);
      }
      write(this, value, args);
    } as LogMethod;
    // Below the threshold but at or above the lowest active level: counted as checked, as Fabric counts it.
    counting[label] = (() => levels.observer()?.checked(fabricName)) as LogMethod;
  }

  const loggerPrototype = {
    isLevelEnabled(this: LoggerState, label: LoggerLevelName): boolean {
      const value = LEVEL_VALUE_OF[label];
      return value !== undefined && value >= this.threshold;
    },
    get level(): LoggerLevelName {
      return LOGGER_LEVEL_NAMES.find((label) => LEVEL_VALUE_OF[label] === (this as unknown as LoggerState).threshold) ?? 'info';
    },
    child(this: LeanLogger & LoggerState, bindings: Record<string, unknown>): LeanLogger {
      if (bindings === null || typeof bindings !== 'object') throw new LogspecError('INVALID_OPTIONS', 'child: bindings must be an object');
      // The child reads the level methods and threshold from its parent, so it follows every spec change.
      const child = Object.create(this) as LeanLogger & { bindings: string };
      child.bindings = this.bindings + bindingsText(bindings);
      return child;
    },
  };

  const setLevel = (logger: Record<string, unknown>, label: LoggerLevelName, countFrom: number | undefined): void => {
    const threshold = LEVEL_VALUE_OF[label];
    logger['threshold'] = threshold;
    for (const method of LOGGER_LEVEL_NAMES) {
      const value = LEVEL_VALUE_OF[method];
      logger[method] = value >= threshold ? writing[method] : countFrom !== undefined && value >= countFrom ? counting[method] : noop;
    }
  };

  const loggers = new Map<string, LeanLogger>();
  const getLogger = (name: string): LeanLogger => {
    const known = loggers.get(name);
    if (known !== undefined) return known;
    if (!isValidLoggerName(name)) throw new LogspecError('BAD_LOGGER_NAME', `bad logger name '${name}'`);
    const logger = Object.create(loggerPrototype) as Record<string, unknown>;
    // As pino renders the binding that names a child: the value by JSON.stringify.
    logger['bindings'] = `,"name":${JSON.stringify(name)}`;
    levels.follow(name, (level) => {
      const observed = levels.observer() !== undefined;
      setLevel(logger, LOGGER_LEVEL_OF[level], observed ? LEVEL_VALUE_OF[LOGGER_LEVEL_OF[levels.lowestLevel()]] : undefined);
    });
    loggers.set(name, logger as unknown as LeanLogger);
    return logger as unknown as LeanLogger;
  };

  return registryMembers(getLogger, levels, format, sink);
}
