import fc from 'fast-check';
import { Gauge as PromGauge, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';

import { compileStatsdFormat, formatStatsdBucket } from './naming.ts';
import { negotiateEncoding, negotiateFormat, TEXT_FORMAT } from './negotiate.ts';
import { createPrometheusProvider, renderBody } from './prometheus.ts';

describe('properties', () => {
  it('StatsD label values never carry the separators into a bucket name', () => {
    const pieces = compileStatsdFormat('%{#fqname}.%{a}.%{b}', { namespace: 'ns', subsystem: '', name: 'n' }, ['a', 'b']);
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string(), (a, b) => {
        const bucket = formatStatsdBucket(pieces, [a, b]);
        const parts = bucket.split('.');
        // ns, n, then exactly one part per label: no label value introduced a dot.
        return parts.length === 4 && !/[|:\t\n\f\r ]/.test(bucket);
      }),
    );
  });

  it('header negotiation never throws and always picks a known format', () => {
    fc.assert(
      fc.property(fc.string(), fc.boolean(), (header, openMetrics) => {
        const { format, escaping } = negotiateFormat(header, openMetrics);
        return (
          (format.kind === 'text' || format.kind === 'protobuf' || (openMetrics && format.kind === 'openmetrics')) &&
          ['allow-utf-8', 'underscores', 'dots', 'values'].includes(escaping) &&
          ['identity', 'gzip', 'zstd'].includes(negotiateEncoding([header]))
        );
      }),
    );
  });

  it('renders any label values exactly as prom-client does', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.tuple(fc.string({ unit: 'binary' }), fc.string()), { minLength: 1, maxLength: 5, selector: (t) => t.join('\u0000') }),
        fc.double({ noNaN: true }),
        async (labelSets, value) => {
          const ours = createPrometheusProvider({ runtimeMetrics: false });
          const gauge = ours.newGauge({ name: 'prop_gauge', help: 'help with \\ and \n newline', labelNames: ['a', 'b'] });
          const registry = new Registry();
          const reference = new PromGauge({ name: 'prop_gauge', help: 'help with \\ and \n newline', labelNames: ['a', 'b'], registers: [registry] });
          for (const [a, b] of labelSets) {
            gauge.with('a', a, 'b', b).set(value);
            reference.set({ a, b }, value);
          }
          const mine = (await renderBody(ours, TEXT_FORMAT))
            .toString()
            .split('\n')
            .filter((l) => l.startsWith('prop_gauge'));
          const theirs = (await registry.metrics()).split('\n').filter((l) => l.startsWith('prop_gauge'));
          expect(mine.sort()).toEqual(theirs.sort());
        },
      ),
      { numRuns: 200 },
    );
  });
});
