import { describe, expect, it } from 'vitest';
import { createLogLevels } from './levels-registry.ts';
import type { Level } from './levels.ts';

describe('createLogLevels', () => {
  it('tells a follower its level at once, after each activation and each observer change, until it stops', () => {
    const levels = createLogLevels({ spec: 'gossip=debug:warn' });
    const seen: Level[] = [];
    const stop = levels.follow('gossip.privdata', (level) => seen.push(level));
    levels.activateSpec('gossip.privdata.=error:info');
    levels.setObserver({ checked: () => undefined, written: () => undefined });
    stop();
    levels.activateSpec('debug');
    expect(seen).toEqual(['debug', 'error', 'error']);
    expect(levels.levelOf('gossip.privdata')).toBe('debug');
  });

  it('follows Fabric’s rules: longest prefix, a trailing dot for one name, the default otherwise', () => {
    const levels = createLogLevels({ spec: 'a=debug:a.b=error:a.b.=warn:info' });
    expect(['a', 'a.x', 'a.b', 'a.b.c', 'ab'].map((n) => levels.levelOf(n))).toEqual(['debug', 'debug', 'warn', 'error', 'info']);
    expect(levels.lowestLevel()).toBe('debug');
    expect(levels.spec()).toBe('a.b.=warn:a.b=error:a=debug:info');
  });

  it('refuses a bad spec without changing anything or telling anyone, and a bad name', () => {
    const levels = createLogLevels({ spec: 'warn' });
    const seen: Level[] = [];
    levels.follow('x', (level) => seen.push(level));
    expect(() => levels.activateSpec('x=Debug')).toThrow(expect.objectContaining({ code: 'BAD_SEGMENT' }));
    expect([levels.spec(), seen]).toEqual(['warn', ['warn']]);
    expect(() => levels.follow('a..b', () => undefined)).toThrow(expect.objectContaining({ code: 'BAD_LOGGER_NAME' }));
  });

  it('holds the observer every adapter counts through', () => {
    const observer = { checked: () => undefined, written: () => undefined };
    const levels = createLogLevels({ observer });
    expect(levels.observer()).toBe(observer);
    levels.setObserver(undefined);
    expect(levels.observer()).toBeUndefined();
  });
});
