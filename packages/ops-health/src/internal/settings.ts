import { HealthError } from '../errors.ts';
import type { HealthOptions } from '../registry.ts';

export const DEFAULT_CHECK_TIMEOUT_MS = 5_000;
export const DEFAULT_DEADLINE_MS = 30_000;
// setTimeout's largest delay; anything longer fires at once.
export const MAX_TIMER_MS = 2_147_483_647;

/** The registry's options with every default filled in. */
export interface HealthSettings {
  readonly checkTimeoutMs: number;
  readonly deadlineMs: number;
  readonly cacheTtlMs: number;
  readonly backgroundIntervalMs: number;
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

export function positiveMs(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_TIMER_MS) {
    throw new HealthError('INVALID_OPTION', `invalid health option ${name}: expected milliseconds between 1 and ${MAX_TIMER_MS}, got ${describe(value)}`);
  }
  return value;
}

/** 0 turns the feature off; otherwise the same range as a timer. */
export function optionalMs(name: string, value: unknown, fallback: number): number {
  if (value === 0) return 0;
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_TIMER_MS) {
    throw new HealthError('INVALID_OPTION', `invalid health option ${name}: expected 0 (off) or a number of milliseconds up to ${MAX_TIMER_MS}, got ${describe(value)}`);
  }
  return value;
}

/**
 * Fills in the defaults and rejects a bad value with one HealthError (`INVALID_OPTION`)
 * naming the option, so an embedder learns of a typo before anything runs.
 */
export function resolveHealthSettings(options: HealthOptions = {}): HealthSettings {
  return {
    checkTimeoutMs: positiveMs('checkTimeoutMs', options.checkTimeoutMs, DEFAULT_CHECK_TIMEOUT_MS),
    deadlineMs: positiveMs('deadlineMs', options.deadlineMs, DEFAULT_DEADLINE_MS),
    cacheTtlMs: optionalMs('cacheTtlMs', options.cacheTtlMs, 0),
    backgroundIntervalMs: optionalMs('backgroundIntervalMs', options.backgroundIntervalMs, 0),
  };
}
