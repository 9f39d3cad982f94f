import { LEVEL_SEVERITY, levelEnables, levelFromName, type Level } from './levels.ts';

/** One level of a logger library's set; `severity` grows with importance (error above debug). */
export interface LibraryLevel {
  readonly name: string;
  readonly severity: number;
}

/** Fabric's levels against one library's level set, worked out once per set. */
export interface LevelMap {
  /** The Fabric level an entry at library level `name` counts as; undefined for a name not in the set. */
  fabricOf(name: string): Level | undefined;
  /**
   * The library level to set for a Fabric threshold: the least severe one whose entries the
   * threshold lets through. `none` when even the most severe is below it (a `fatal` spec over
   * npm's levels, which end at `error`): then nothing may be written.
   */
  thresholdFor(level: Level): { readonly name: string; readonly none: boolean };
  /** The least severe level of the set, the one that lets everything through. */
  readonly leastSevere: string;
}

// Names libraries use for Fabric's levels beyond Fabric's own spellings.
const ALIASES: Readonly<Record<string, Level>> = {
  trace: 'payload',
  silly: 'payload',
  verbose: 'debug',
  err: 'error',
  crit: 'error',
};

function knownLevel(name: string): Level | undefined {
  return levelFromName(name) ?? levelFromName(name.toLowerCase()) ?? (Object.hasOwn(ALIASES, name.toLowerCase()) ? ALIASES[name.toLowerCase()] : undefined);
}

/**
 * Maps a library's level set onto Fabric's. Known names map by name (`warning` → warn,
 * `silly`/`trace` → payload, `verbose` → debug); `explicit` overrides any of them; a level
 * with no known name counts as the nearest known level less severe than it (npm's `http`,
 * between info and verbose, counts as debug), or, with none below it, the nearest above. The
 * result never puts a more severe library level under a less severe Fabric one.
 */
export function levelMapOf(set: readonly LibraryLevel[], explicit: Readonly<Record<string, Level>> = {}): LevelMap {
  const sorted = [...set].sort((a, b) => a.severity - b.severity);
  if (sorted.length === 0) throw new Error('a logger library level set with no levels');
  const known = sorted.map((l) => (Object.hasOwn(explicit, l.name) ? explicit[l.name] : knownLevel(l.name)));
  const fabric: Level[] = [];
  for (let i = 0; i < sorted.length; i++) {
    let level = known[i];
    for (let j = i - 1; level === undefined && j >= 0; j--) level = known[j];
    for (let j = i + 1; level === undefined && j < sorted.length; j++) level = known[j];
    fabric.push(level ?? 'info');
  }
  // Monotone: a level is never counted below one less severe than it.
  for (let i = 1; i < fabric.length; i++) {
    const previous = fabric[i - 1] as Level;
    if (LEVEL_SEVERITY[fabric[i] as Level] < LEVEL_SEVERITY[previous]) fabric[i] = previous;
  }
  const byName = new Map<string, Level>();
  sorted.forEach((l, i) => byName.set(l.name, fabric[i] as Level));
  const thresholds = new Map<Level, { name: string; none: boolean }>();
  for (const level of Object.keys(LEVEL_SEVERITY) as Level[]) {
    const index = fabric.findIndex((f) => levelEnables(level, f));
    thresholds.set(level, index === -1 ? { name: (sorted[sorted.length - 1] as LibraryLevel).name, none: true } : { name: (sorted[index] as LibraryLevel).name, none: false });
  }
  return {
    fabricOf: (name) => byName.get(name),
    thresholdFor: (level) => thresholds.get(level) as { name: string; none: boolean },
    leastSevere: (sorted[0] as LibraryLevel).name,
  };
}
