import { pino, type DestinationStream, type Logger, type LogFn } from 'pino';
import { LogspecError } from './errors.ts';
import { LEVEL_SEVERITY, type Level } from './levels.ts';
import { isValidLoggerName, LoggerLevels } from './spec.ts';
import { textDestination } from './text-format.ts';

/** `json`: pino's JSON lines. `text`: one readable line per entry (time, logger, level, message, fields). */
export type LogFormat = 'json' | 'text';

/**
 * Hooks for metrics (Fabric's `logging_entries_checked` / `logging_entries_written`);
 * `level` is a Fabric level name (`debug`, `info`, ...).
 */
export interface LoggingObserver {
  /** An entry at or above the lowest active level was checked against its logger's level. */
  checked(level: string): void;
  /** An entry was written. */
  written(level: string): void;
}

export interface LoggingOptions {
  /** The initial spec. Default `info`. An invalid one throws a LogspecError. */
  readonly spec?: string;
  /** Default `text`. */
  readonly format?: LogFormat;
  /** Where lines go. Default: stdout, written synchronously. */
  readonly destination?: DestinationStream;
  readonly observer?: LoggingObserver;
}

export interface Logging {
  /**
   * The logger named `name` (dot-hierarchical, Fabric's naming rule): a pino logger whose
   * level follows the active spec, as do its children unless they were given their own
   * `level`. The same name gives the same logger.
   */
  getLogger(name: string): Logger;
  /** Replaces the active spec; every logger follows at once. Throws a LogspecError (changing nothing) when invalid. */
  activateSpec(spec: string): void;
  /** The active spec, normalised (`b=warn:a=error` → `a=error:b=warn:info`). */
  spec(): string;
  /** The level logger `name` has under the active spec. */
  levelOf(name: string): Level;
  /** Sets (or, with undefined, removes) the metrics observer. */
  setObserver(observer: LoggingObserver | undefined): void;
  readonly format: LogFormat;
}

type PinoLabel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

const PINO_LABELS: readonly PinoLabel[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];

/** pino has no levels between error and fatal: dpanic and panic thresholds behave as fatal. */
const PINO_LABEL_OF: Readonly<Record<Level, PinoLabel>> = {
  payload: 'trace',
  debug: 'debug',
  info: 'info',
  warn: 'warn',
  error: 'error',
  dpanic: 'fatal',
  panic: 'fatal',
  fatal: 'fatal',
};

const FABRIC_LEVEL_OF: Readonly<Record<PinoLabel, Level>> = {
  trace: 'payload',
  debug: 'debug',
  info: 'info',
  warn: 'warn',
  error: 'error',
  fatal: 'fatal',
};

const FABRIC_NAME_OF_VALUE: Readonly<Record<number, Level>> = { 10: 'payload', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

interface Entry {
  readonly name: string;
  readonly logger: Logger;
  /** The level applied at `generation`; resolved again only after an activation. */
  level: Level;
  generation: number;
}

const { levelValSym } = pino.symbols;

export function parseFormat(value: string): LogFormat {
  if (value === 'json' || value === 'text') return value;
  throw new LogspecError('INVALID_FORMAT', `unknown log format '${value}': expected 'json' or 'text'`);
}

/**
 * A registry of named pino loggers under one Fabric logging spec. A spec change sets the
 * level of each registered logger once; pino children reach their level through the
 * prototype chain, so they follow their parent without being tracked. A disabled call
 * costs what it costs in pino: a call to a no-op method.
 */
export function createLogging(options: LoggingOptions = {}): Logging {
  const levels = new LoggerLevels(options.spec ?? '');
  const format = options.format === undefined ? 'text' : parseFormat(options.format);
  const out = options.destination ?? pino.destination({ dest: 1, sync: true });
  let observer: LoggingObserver | undefined = options.observer;

  const root = pino(
    {
      level: 'trace',
      // Text lines have no room for pid/hostname; JSON keeps pino's defaults.
      ...(format === 'text' ? { base: null } : {}),
      hooks: {
        logMethod(this: Logger, args: Parameters<LogFn>, method: LogFn, level: number) {
          const current = observer;
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

  // Below-threshold methods when an observer is set: count the check, write nothing.
  const countingMethods = Object.fromEntries(
    PINO_LABELS.map((label) => {
      const fabricName = FABRIC_LEVEL_OF[label];
      return [label, () => observer?.checked(fabricName)];
    }),
  ) as Record<PinoLabel, () => void>;

  const entries = new Map<string, Entry>();

  const decorate = (logger: Logger, level: Level): void => {
    const lowest = LEVEL_SEVERITY[levels.lowestLevel()];
    const threshold = LEVEL_SEVERITY[level];
    for (const label of PINO_LABELS) {
      const severity = LEVEL_SEVERITY[FABRIC_LEVEL_OF[label]];
      // Fabric counts a check only for entries at or above the lowest active level.
      if (severity < threshold && severity >= lowest) (logger as unknown as Record<string, unknown>)[label] = countingMethods[label];
    }
  };

  const apply = (entry: Entry, force: boolean): void => {
    const generation = levels.generation();
    if (entry.generation !== generation) {
      entry.level = levels.levelOf(entry.name);
      entry.generation = generation;
    }
    const label = PINO_LABEL_OF[entry.level];
    if (force || entry.logger.level !== label) entry.logger.level = label;
    if (observer !== undefined) decorate(entry.logger, entry.level);
  };

  const getLogger = (name: string): Logger => {
    const known = entries.get(name);
    if (known !== undefined) return known.logger;
    if (!isValidLoggerName(name)) throw new LogspecError('BAD_LOGGER_NAME', `bad logger name '${name}'`);
    const logger = root.child({ name });
    const pinoChild = logger.child;
    // pino versions before 10 give every child its own copy of the level; drop it so the
    // child reads its parent's level (unless the caller asked for a level of its own).
    logger.child = function followingChild(this: Logger, bindings, childOptions) {
      const child = pinoChild.call(this, bindings, childOptions);
      if (childOptions?.level === undefined && Object.prototype.hasOwnProperty.call(child, levelValSym)) {
        delete (child as unknown as Record<symbol, unknown>)[levelValSym];
        for (const label of PINO_LABELS) delete (child as unknown as Record<string, unknown>)[label];
      }
      return child;
    } as Logger['child'];
    const entry: Entry = { name, logger, level: 'info', generation: -1 };
    apply(entry, true);
    entries.set(name, entry);
    return logger;
  };

  const activateSpec = (spec: string): void => {
    const lowestBefore = levels.lowestLevel();
    levels.activateSpec(spec);
    // With an observer, the counting methods depend on the lowest level as well.
    const force = observer !== undefined && lowestBefore !== levels.lowestLevel();
    for (const entry of entries.values()) apply(entry, force);
  };

  const setObserver = (next: LoggingObserver | undefined): void => {
    const had = observer !== undefined;
    observer = next;
    if (had || next !== undefined) for (const entry of entries.values()) apply(entry, true);
  };

  return {
    getLogger,
    activateSpec,
    spec: () => levels.spec(),
    levelOf: (name) => levels.levelOf(name),
    setObserver,
    format,
  };
}
