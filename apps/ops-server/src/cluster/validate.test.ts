import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROTOCOL_TAG } from './protocol.ts';
import { decodeStatsdInterval, encodeStatsdInterval, mergeStatsdIntervals } from './statsd-merge.ts';
import { checkStatsdInterval, checkWorkerMessage, MESSAGE_LIMITS } from './validate.ts';

const tagged = (body: object) => ({ tag: PROTOCOL_TAG, ...body });

describe('checkWorkerMessage', () => {
  it('takes every message a worker of this version sends', () => {
    const interval = encodeStatsdInterval({ counters: [['a', 1]], gauges: [['g', Number.NaN, 'g']], timings: [['t', [0.1, Infinity]]] });
    for (const message of [
      tagged({ type: 'hello' }),
      tagged({ type: 'ready', spec: 'info' }),
      tagged({ type: 'reply', id: 3, ok: true, metrics: JSON.stringify({ layoutId: 1, layout: [{ name: 'a', help: '', type: 'counter', samples: [['', []]] }], values: [1] }) }),
      tagged({ type: 'reply', id: 3, ok: true, health: { healthy: false, failed: [{ component: 'db', reason: 'down' }] } }),
      tagged({ type: 'reply', id: 3, ok: true, spec: 'debug' }),
      tagged({ type: 'reply', id: 3, ok: true, statsd: interval }),
      tagged({ type: 'reply', id: 3, ok: false, error: 'no' }),
      tagged({ type: 'statsd-final', statsd: interval }),
    ]) {
      expect(checkWorkerMessage(message)).toEqual({ ok: true, message });
    }
  });

  it.each([
    ['statsd null', tagged({ type: 'statsd-final', statsd: null })],
    ['statsd {}', tagged({ type: 'statsd-final', statsd: {} })],
    ['counters not a list', tagged({ type: 'statsd-final', statsd: { counters: 5, gauges: [], timings: [] } })],
    ['bad timings', tagged({ type: 'statsd-final', statsd: { counters: [], gauges: [], timings: [['t', 5]] } })],
    ['a timing that is no number', tagged({ type: 'statsd-final', statsd: { counters: [], gauges: [], timings: [['t', [{}]]] } })],
    ['a negative counter delta', tagged({ type: 'statsd-final', statsd: { counters: [['c', -1]], gauges: [], timings: [] } })],
    ['a NaN counter delta', tagged({ type: 'statsd-final', statsd: { counters: [['c', 'NaN']], gauges: [], timings: [] } })],
    ['a gauge without its metric', tagged({ type: 'statsd-final', statsd: { counters: [], gauges: [['g', 1]], timings: [] } })],
    ['a reply with statsd null', tagged({ type: 'reply', id: 1, ok: true, statsd: null })],
    ['a reply whose metrics is no string', tagged({ type: 'reply', id: 1, ok: true, metrics: 5 })],
    ['a reply whose metrics is an object (read only from its JSON, whose size is known first)', tagged({ type: 'reply', id: 1, ok: true, metrics: { layoutId: 1, values: [] } })],
    ['a reply with bad health', tagged({ type: 'reply', id: 1, ok: true, health: { healthy: true, failed: [null] } })],
    ['a refusal without error', tagged({ type: 'reply', id: 1, ok: false })],
    ['an id that is no whole number', tagged({ type: 'reply', id: 1.5, ok: true })],
    ['ready without spec', tagged({ type: 'ready' })],
    ['an unknown type', tagged({ type: 'gimme' })],
  ])('refuses %s', (_, message) => {
    const checked = checkWorkerMessage(message);
    expect(checked.ok).toBe(false);
  });

  it('names the request a malformed reply answers, so it can end at once', () => {
    expect(checkWorkerMessage(tagged({ type: 'reply', id: 7, ok: true, statsd: { counters: 5 } }))).toMatchObject({ ok: false, id: 7 });
  });

  it('refuses lists past their limits and cuts long texts in health and errors', () => {
    const counters = Array.from({ length: MESSAGE_LIMITS['statsdEntries']! + 1 }, (_, i) => [`c${i}`, 1]);
    expect(checkStatsdInterval({ counters, gauges: [], timings: [] }).ok).toBe(false);
    const checked = checkWorkerMessage(tagged({ type: 'reply', id: 1, ok: false, error: 'x'.repeat(100_000) }));
    expect(checked.ok && checked.message.type === 'reply' && !checked.message.ok && checked.message.error.length).toBeLessThanOrEqual(MESSAGE_LIMITS['errorChars']! + 1);
  });

  it('never throws, and whatever it takes decodes and merges (property)', () => {
    const statsd = fc.oneof(
      fc.anything(),
      fc.record({
        counters: fc.array(fc.tuple(fc.string(), fc.oneof(fc.double(), fc.constantFrom('NaN', '+Inf', '-Inf'), fc.anything()))),
        gauges: fc.array(fc.tuple(fc.string(), fc.oneof(fc.double(), fc.constantFrom('NaN', '+Inf')), fc.string())),
        timings: fc.array(fc.tuple(fc.string(), fc.array(fc.oneof(fc.double(), fc.constant('-Inf'), fc.anything())))),
      }),
    );
    fc.assert(
      fc.property(fc.constantFrom('statsd-final', 'reply', 'ready', 'hello'), statsd, fc.anything(), (type, interval, other) => {
        const checked = checkWorkerMessage(tagged({ type, id: 1, ok: true, statsd: interval, spec: other }));
        if (!checked.ok || !('statsd' in checked.message) || checked.message.statsd === undefined) return;
        const decoded = decodeStatsdInterval(checked.message.statsd);
        for (const [, delta] of decoded.counters) expect(delta >= 0 && Number.isFinite(delta)).toBe(true);
        expect(() => mergeStatsdIntervals([{ worker: '1', interval: decoded }])).not.toThrow();
      }),
      { numRuns: 1_000 },
    );
  });
});
