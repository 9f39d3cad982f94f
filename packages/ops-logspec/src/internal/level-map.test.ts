import { describe, expect, it } from 'vitest';
import { levelMapOf } from './level-map.ts';
import type { Level } from './levels.ts';

// Level sets as the libraries define them; winston's numbers grow towards verbose, so severity = -n.
const winstonSet = (levels: Record<string, number>) => Object.entries(levels).map(([name, n]) => ({ name, severity: -n }));
const NPM = winstonSet({ error: 0, warn: 1, info: 2, http: 3, verbose: 4, debug: 5, silly: 6 });
const SYSLOG = winstonSet({ emerg: 0, alert: 1, crit: 2, error: 3, warning: 4, notice: 5, info: 6, debug: 7 });
const LEVELS: Level[] = ['payload', 'debug', 'info', 'warn', 'error', 'dpanic', 'panic', 'fatal'];

describe('levelMapOf', () => {
  it('reads npm levels by name, and http between info and verbose as debug', () => {
    const map = levelMapOf(NPM);
    expect(['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'].map((n) => map.fabricOf(n))).toEqual(['error', 'warn', 'info', 'debug', 'debug', 'debug', 'payload']);
    expect(LEVELS.map((l) => map.thresholdFor(l))).toEqual([
      { name: 'silly', none: false },
      { name: 'debug', none: false },
      { name: 'info', none: false },
      { name: 'warn', none: false },
      { name: 'error', none: false },
      // npm's levels end at error: these thresholds let nothing through.
      { name: 'error', none: true },
      { name: 'error', none: true },
      { name: 'error', none: true },
    ]);
    expect(map.leastSevere).toBe('silly');
    expect(map.fabricOf('nope')).toBeUndefined();
  });

  it('reads syslog levels as Fabric reads their names: notice is info, crit is error', () => {
    const map = levelMapOf(SYSLOG);
    expect(['emerg', 'alert', 'crit', 'error', 'warning', 'notice', 'info', 'debug'].map((n) => map.fabricOf(n))).toEqual(['error', 'error', 'error', 'error', 'warn', 'info', 'info', 'debug']);
    expect(map.thresholdFor('info').name).toBe('info');
    expect(map.thresholdFor('warn').name).toBe('warning');
    expect(map.thresholdFor('payload').name).toBe('debug');
  });

  it('takes explicit mappings over names, and never maps a severer level below a milder one', () => {
    expect(levelMapOf(NPM, { http: 'info' }).fabricOf('http')).toBe('info');
    expect(levelMapOf(NPM, { http: 'info' }).thresholdFor('info').name).toBe('http');
    const map = levelMapOf(NPM, { debug: 'error' });
    // debug said error, but silly sits below it and verbose above reads as debug: kept monotone.
    expect(['silly', 'debug', 'verbose', 'http', 'info'].map((n) => map.fabricOf(n))).toEqual(['payload', 'error', 'error', 'error', 'error']);
  });

  it('maps a set of unknown names to the nearest known one, and refuses an empty set', () => {
    const map = levelMapOf([
      { name: 'LOUD', severity: 3 },
      { name: 'WARN', severity: 2 },
      { name: 'quiet', severity: 1 },
    ]);
    expect(['quiet', 'WARN', 'LOUD'].map((n) => map.fabricOf(n))).toEqual(['warn', 'warn', 'warn']);
    expect(map.thresholdFor('debug').name).toBe('quiet');
    expect(() => levelMapOf([])).toThrow();
  });
});
