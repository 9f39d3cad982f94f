import type bunyan from 'bunyan';
import type { AuditLogger } from './handler.ts';
import { claim, levelsOf, passThrough, release, type AdapterLevelsOptions, type AdapterLogging } from './adapter-base.ts';
import { levelMapOf } from './level-map.ts';
import type { LogLevels } from './levels-registry.ts';
import { levelEnables, type Level } from './levels.ts';
import { loadPeer } from './peer.ts';

export interface BunyanLoggingOptions extends AdapterLevelsOptions {
  /**
   * The logger `getLogger(name)` makes children of (`root.child({ logger: name })`).
   * Default: `bunyan.createLogger({ name: 'app' })`, writing JSON lines to stdout.
   */
  readonly root?: bunyan;
  /** The field each entry carries its logger's name in. Default `logger`. */
  readonly nameField?: string;
}

export interface BunyanLogging extends AdapterLogging {
  /**
   * The bunyan logger named `name`: a child of the root with the name in `nameField`, its level
   * following the active spec, as do the children it makes. The same name gives the same logger.
   */
  getLogger(name: string): bunyan;
  /**
   * Makes a logger the application already has follow the spec under `name`: `level(...)` is
   * set on every activation, on it and on every child it makes afterwards (unless the child is
   * given a `level` of its own), and the metrics observer counts their entries. Returns the
   * function that stops following (the loggers keep their last level).
   */
  follow(name: string, logger: bunyan): () => void;
  /** The logger `logspecHandler` records changes on. */
  auditLogger(name: string): AuditLogger;
}

const METHODS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
type Method = (typeof METHODS)[number];
const VALUE: Readonly<Record<Method, number>> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };
const MAP = levelMapOf(METHODS.map((name) => ({ name, severity: VALUE[name] })));
const FABRIC: Readonly<Record<Method, Level>> = Object.fromEntries(METHODS.map((m) => [m, MAP.fabricOf(m) as Level])) as Record<Method, Level>;

const STATE = Symbol('@fabric-ops/ops-logspec.bunyan');

interface Followed {
  readonly levels: LogLevels;
  /** The threshold set at the last activation. */
  threshold: Method;
  /** Children made since, held weakly: a child per request must not outlive its request here. */
  readonly children: Set<WeakRef<bunyan>>;
  readonly collected: FinalizationRegistry<WeakRef<bunyan>>;
}

type Tracked = bunyan & { [STATE]?: Followed };
type Emit = (this: bunyan, ...args: unknown[]) => unknown;

// One wrapper per level for every followed logger and child: the state hangs on the logger. The
// method wrapped is the logger's own class's (the application's copy of bunyan may not be ours).
const counting = Object.fromEntries(
  METHODS.map((method) => {
    const fabric = FABRIC[method];
    const wrapper = function (this: Tracked, ...args: unknown[]) {
      const state = this[STATE];
      // `log.info()` asks whether info is enabled: not an entry.
      if (args.length > 0 && state !== undefined) {
        const observer = state.levels.observer();
        if (observer !== undefined) {
          if (levelEnables(state.levels.lowestLevel(), fabric)) observer.checked(fabric);
          if (this.level() <= VALUE[method]) observer.written(fabric);
        }
      }
      return (Object.getPrototypeOf(this) as Record<Method, Emit>)[method].apply(this, args);
    };
    return [method, wrapper];
  }),
) as unknown as Record<Method, Emit>;

function childOptionsSetLevel(options: unknown, simple: unknown): boolean {
  return simple !== true && typeof options === 'object' && options !== null && (options as { level?: unknown }).level !== undefined;
}

const followingChild = function (this: Tracked, options?: object, simple?: boolean): bunyan {
  const child = (Object.getPrototypeOf(this) as bunyan).child.call(this, options as object, simple) as Tracked;
  const state = this[STATE];
  if (state !== undefined && !childOptionsSetLevel(options, simple)) track(child, state);
  return child;
};

function track(logger: Tracked, state: Followed): void {
  Object.defineProperty(logger, STATE, { value: state, configurable: true, writable: true });
  for (const method of METHODS) (logger as unknown as Record<string, unknown>)[method] = counting[method];
  logger.child = followingChild as bunyan['child'];
  logger.level(state.threshold);
  const ref = new WeakRef<bunyan>(logger);
  state.children.add(ref);
  state.collected.register(logger, ref);
}

/** How many children of a followed logger are still held (for tests of the weak holding). */
export function heldChildren(logger: bunyan): number {
  return (logger as Tracked)[STATE]?.children.size ?? 0;
}

/** Fabric's spec over bunyan loggers: children of a root by name, and loggers the application made. */
export function createBunyanLogging(options: BunyanLoggingOptions = {}): BunyanLogging {
  const levels = levelsOf(options, 'createBunyanLogging');
  const nameField = options.nameField ?? 'logger';
  // bunyan is an optional peer: loaded here, so that a missing one is a LogspecError saying what
  // to install, not the entry's MODULE_NOT_FOUND. Not needed when the caller brings its root.
  const library = options.root === undefined ? loadPeer<typeof bunyan>('bunyan', 'createBunyanLogging') : undefined;
  let root = options.root;
  const named = new Map<string, bunyan>();

  const follow = (name: string, logger: bunyan): (() => void) => {
    claim(logger, name, 'follow');
    const children = new Set<WeakRef<bunyan>>();
    const state: Followed = { levels, threshold: 'info', children, collected: new FinalizationRegistry((ref) => children.delete(ref)) };
    Object.defineProperty(logger, STATE, { value: state, configurable: true, writable: true });
    for (const method of METHODS) (logger as unknown as Record<string, unknown>)[method] = counting[method];
    logger.child = followingChild as bunyan['child'];
    const unfollow = levels.follow(name, (level) => {
      // bunyan has fatal and nothing above it: dpanic and panic thresholds behave as fatal.
      const threshold = MAP.thresholdFor(level).name as Method;
      state.threshold = threshold;
      logger.level(threshold);
      for (const ref of children) {
        const child = ref.deref();
        if (child === undefined) children.delete(ref);
        else child.level(threshold);
      }
    });
    return () => {
      unfollow();
      for (const target of [logger, ...[...children].flatMap((ref) => ref.deref() ?? [])]) {
        for (const method of METHODS) delete (target as unknown as Record<string, unknown>)[method];
        delete (target as Partial<bunyan>).child;
        delete (target as Tracked)[STATE];
      }
      children.clear();
      release(logger);
    };
  };

  const getLogger = (name: string): bunyan => {
    const known = named.get(name);
    if (known !== undefined) return known;
    root ??= library!.createLogger({ name: 'app' });
    const logger = root.child({ [nameField]: name });
    follow(name, logger);
    named.set(name, logger);
    return logger;
  };

  const auditLogger = (name: string): AuditLogger => {
    const logger = getLogger(name);
    return {
      isLevelEnabled: (level) => logger[level](),
      info: (fields, message) => logger.info(fields, message),
      debug: (fields, message) => logger.debug(fields, message),
    };
  };

  return { ...passThrough(levels), getLogger, follow, auditLogger };
}
