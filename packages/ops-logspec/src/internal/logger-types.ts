import type { LogLevels, LoggingObserver } from './levels-registry.ts';
import type { Level } from './levels.ts';
import type { ParsedSpec } from './spec.ts';

/** `json`: pino's JSON lines. `text`: one readable line per entry (time, logger, level, message, fields). */
export type LogFormat = 'json' | 'text';

/** pino's call convention: `(fields, message?, ...formatArgs)` or `(message, ...formatArgs)`. */
export interface LogMethod {
  (fields: object, message?: string, ...formatArgs: unknown[]): void;
  (message: string, ...formatArgs: unknown[]): void;
}

/** The level names a logger has methods for (pino's; Fabric's `payload` is `trace`). */
export type LoggerLevelName = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/**
 * What every logger a registry hands out can do, whichever engine writes it: a pino logger
 * (`createLogging`) fits as it is, and so does the lean engine's (`createLeanLogging`).
 * Code that only writes lines should ask for this, not for pino's `Logger`.
 */
export interface LogspecLogger {
  trace: LogMethod;
  debug: LogMethod;
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
  fatal: LogMethod;
  /** Whether an entry at `level` would be written now. */
  isLevelEnabled(level: LoggerLevelName): boolean;
  /** A logger whose lines carry `bindings` as fields; its level follows this one's. */
  child(bindings: Record<string, unknown>): LogspecLogger;
}

/**
 * A registry of named loggers under one Fabric logging spec, whichever engine writes the lines.
 * pino's `Logging` and the lean engine's `LeanLogging` are both one of these.
 */
export interface LoggingRegistry<L extends LogspecLogger = LogspecLogger> {
  /** The logger named `name` (dot-hierarchical, Fabric's naming rule); the same name gives the same logger. */
  getLogger(name: string): L;
  /** Replaces the active spec; every logger follows at once. Throws a LogspecError (changing nothing) when invalid. */
  activateSpec(spec: string | ParsedSpec): void;
  /** The active spec, normalised (`b=warn:a=error` → `a=error:b=warn:info`). */
  spec(): string;
  /** The level logger `name` has under the active spec. */
  levelOf(name: string): Level;
  /** Sets (or, with undefined, removes) the metrics observer. */
  setObserver(observer: LoggingObserver | undefined): void;
  /** Lines dropped so far because the destination's reader fell behind. */
  droppedLines(): number;
  /** Waits until the lines queued for a slow reader are handed to the OS, or `timeoutMs` (default 2 s) has passed. */
  flush(timeoutMs?: number): Promise<void>;
  readonly format: LogFormat;
  /** The spec decisions these loggers follow; hand it to another adapter to drive its loggers too. */
  readonly levels: LogLevels;
  /** The logger `logspecHandler` records changes on (`getLogger(name)`). */
  auditLogger(name: string): L;
}
