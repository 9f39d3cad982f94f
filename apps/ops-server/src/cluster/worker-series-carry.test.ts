import { describe, expect, it } from 'vitest';
import { checkLayout, WorkerSeries, type ApplyCounts } from './worker-series.ts';

const SAMPLES = 200_000;
const LIMITS = { samples: SAMPLES, replyBytes: 8 * 1024 * 1024 };

/** A worker's layout at the sample bound: 1,000 counter families of 200 label sets; `shift` renames the first family's samples. */
function layoutWire(shift: boolean): unknown[] {
  const families: unknown[] = [];
  for (let f = 0; f < 1_000; f++) {
    const samples: unknown[] = [];
    for (let s = 0; s < 200; s++) samples.push(['', ['route', `/${shift && f === 0 ? s + 1 : s}`]]);
    families.push({ name: `app_requests_${f}_total`, help: '', type: 'counter', samples });
  }
  return families;
}

const counts = (): ApplyCounts => ({ dropped: { limit: 0, invalid: 0, value: 0 }, resets: 0 });

describe('a layout change of a worker at the sample bound', () => {
  it('carries its counts over in steps that give the event loop a turn, not in one stretch', async () => {
    const first = (await checkLayout(1, layoutWire(false), LIMITS))!;
    const before = new WorkerSeries(first);
    before.apply(
      Float64Array.from({ length: SAMPLES }, (_, i) => i + 1),
      counts(),
    );
    const next = (await checkLayout(2, layoutWire(true), LIMITS, first))!;

    const sliced = new WorkerSeries(next);
    let turns = 0;
    let carrying = true;
    const spin = (): void => {
      turns++;
      if (carrying) setImmediate(spin);
    };
    setImmediate(spin);
    // A slice of 0 ms: a turn after every step, so the count of steps is what is checked, whatever the machine's speed.
    await sliced.carryFrom(before, 0);
    carrying = false;
    // One step per 1,024 samples carried: 196 for 200,000.
    expect(turns).toBeGreaterThanOrEqual(Math.floor(SAMPLES / 1_024));

    // The same counts as carrying all at once: every key but the first family's moved ones kept its value.
    const whole = new WorkerSeries(next, before);
    expect(Array.from(sliced.values)).toEqual(Array.from(whole.values));
    expect(sliced.values[200]).toBe(201);
    // The first family: /1 … /199 were there before (at one place less), /200 is new.
    expect(sliced.values[0]).toBe(2);
    expect(sliced.values[199]).toBe(0);
  }, 20_000);
});
