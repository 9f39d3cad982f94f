import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogging } from './registry.ts';

// A PUT's work must grow with the spec it carries and the loggers registered, never with
// their product (a 100,000-logger spec must not block the event loop per PUT). Time is
// no measure on a shared machine, so count the operations that do the work: map lookups
// and inserts, and the string searches, splits and slices a lookup would use.

afterEach(() => vi.restoreAllMocks());

function operationsFor(specLoggers: number, registered: number): number {
  const logging = createLogging({ destination: { write() {} } });
  for (let i = 0; i < registered; i++) logging.getLogger(`svc${i % 50}.part${i}`).child({ k: i });
  const spec = `${Array.from({ length: specLoggers }, (_, i) => `svc${i % 50}.part${i}.x${i}`).join(':')}`.replace(/:/g, '=debug:') + '=info:warn';
  const spies = [
    vi.spyOn(Map.prototype, 'get'),
    vi.spyOn(Map.prototype, 'set'),
    vi.spyOn(Map.prototype, 'has'),
    vi.spyOn(String.prototype, 'split'),
    vi.spyOn(String.prototype, 'slice'),
    vi.spyOn(String.prototype, 'indexOf'),
    vi.spyOn(String.prototype, 'lastIndexOf'),
    vi.spyOn(String.prototype, 'startsWith'),
    vi.spyOn(String.prototype, 'endsWith'),
  ];
  logging.activateSpec(spec);
  const count = spies.reduce((sum, spy) => sum + spy.mock.calls.length, 0);
  vi.restoreAllMocks();
  expect(logging.spec().startsWith('svc0.part0.x0=debug:')).toBe(true);
  return count;
}

describe('activating a spec', () => {
  it('costs operations linear in the spec and in the registered loggers, not their product', () => {
    const base = operationsFor(5_000, 1_000);
    const twiceTheSpec = operationsFor(10_000, 1_000);
    const twiceTheLoggers = operationsFor(5_000, 2_000);
    const both = operationsFor(10_000, 2_000);
    // Linear: doubling one input at most doubles the work.
    expect(twiceTheSpec).toBeLessThanOrEqual(2 * base);
    expect(twiceTheLoggers).toBeLessThanOrEqual(2 * base);
    // Not the product: doubling both is about double, far from four times.
    expect(both).toBeLessThanOrEqual(2.2 * base);
    // A handful of operations per spec entry and per logger.
    expect(base).toBeLessThanOrEqual(10 * (5_000 + 1_000));
  });
});
