import { describe, expect, it } from 'vitest';
import { TEXT_FORMAT } from './negotiate.ts';
import { createPrometheusProvider, renderBody } from './prometheus.ts';
import { textToDelimitedProtobuf } from './protobuf.ts';

type Field = { readonly field: number; readonly value: number | Buffer };

/** A base-128 varint at `at`: its value and the offset after it. */
function readVarint(bytes: Buffer, at: number): { readonly value: number; readonly next: number } {
  let value = 0;
  let scale = 1;
  for (;;) {
    const byte = bytes[at++]!;
    value += (byte & 0x7f) * scale;
    scale *= 0x80;
    if (byte < 0x80) return { value, next: at };
  }
}

/** A protobuf reader for the test: the fields of one message, in order (varints, doubles, bytes). */
function fields(message: Buffer): Field[] {
  const out: Field[] = [];
  let at = 0;
  const varint = (): number => {
    const { value, next } = readVarint(message, at);
    at = next;
    return value;
  };
  while (at < message.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    switch (key % 8) {
      case 0:
        out.push({ field, value: varint() });
        break;
      case 1:
        out.push({ field, value: message.readDoubleLE(at) });
        at += 8;
        break;
      case 2: {
        const length = varint();
        out.push({ field, value: message.subarray(at, at + length) });
        at += length;
        break;
      }
      default:
        throw new Error(`unexpected wire type in key ${key}`);
    }
  }
  return out;
}

function delimited(body: Buffer): Buffer[] {
  const messages: Buffer[] = [];
  let at = 0;
  while (at < body.length) {
    const { value: length, next } = readVarint(body, at);
    messages.push(body.subarray(next, next + length));
    at = next + length;
  }
  return messages;
}

const str = (f: Field | undefined) => (f?.value as Buffer).toString('utf8');
const all = (message: Buffer, field: number) => fields(message).filter((f) => f.field === field);
const one = (message: Buffer, field: number) => all(message, field)[0];
const labelsOf = (metric: Buffer) => all(metric, 1).map((pair) => [str(one(pair.value as Buffer, 1)), str(one(pair.value as Buffer, 2))]);

describe('delimited protobuf (io.prometheus.client.MetricFamily)', () => {
  it('carries every family of the text rendering: names, help, types, labels and values as client_golang writes them', async () => {
    const provider = createPrometheusProvider({ runtimeMetrics: false });
    provider
      .newCounter({ name: 'requests', namespace: 'ops', help: 'Requests by "code", with a \\ and a\nnewline.', labelNames: ['code'] })
      .with('code', '200')
      .add(3);
    provider
      .newGauge({ name: 'fabric_version', help: '', labelNames: ['version'] })
      .with('version', 'a"b\\c\nd')
      .set(1.5);
    const histogram = provider.newHistogram({ name: 'latency_seconds', help: 'h', labelNames: ['path'], buckets: [0.1, 1] });
    histogram.with('path', '/x').observe(0.05);
    histogram.with('path', '/x').observe(0.5);
    histogram.with('path', '/x').observe(5);
    const text = (await renderBody(provider, TEXT_FORMAT)).toString();
    const families = delimited(await textToDelimitedProtobuf(text));
    const byName = new Map(families.map((f) => [str(one(f, 1)), f]));
    expect([...byName.keys()].filter((n) => !n.startsWith('promhttp_'))).toEqual(['fabric_version', 'latency_seconds', 'ops_requests']);

    const counter = byName.get('ops_requests')!;
    expect(str(one(counter, 2))).toBe('Requests by "code", with a \\ and a\nnewline.');
    expect(one(counter, 3)!.value).toBe(0); // COUNTER
    const counterMetric = one(counter, 4)!.value as Buffer;
    expect(labelsOf(counterMetric)).toEqual([['code', '200']]);
    expect(one(one(counterMetric, 3)!.value as Buffer, 1)!.value).toBe(3);

    const gauge = byName.get('fabric_version')!;
    expect(str(one(gauge, 2))).toBe(''); // help is always there, empty or not
    expect(one(gauge, 3)!.value).toBe(1); // GAUGE
    const gaugeMetric = one(gauge, 4)!.value as Buffer;
    expect(labelsOf(gaugeMetric)).toEqual([['version', 'a"b\\c\nd']]);
    expect(one(one(gaugeMetric, 2)!.value as Buffer, 1)!.value).toBe(1.5);

    const hist = byName.get('latency_seconds')!;
    expect(one(hist, 3)!.value).toBe(4); // HISTOGRAM
    const histMetric = one(hist, 4)!.value as Buffer;
    expect(labelsOf(histMetric)).toEqual([['path', '/x']]);
    const body = one(histMetric, 7)!.value as Buffer;
    expect(one(body, 1)!.value).toBe(3); // sample_count
    expect(one(body, 2)!.value).toBe(5.55); // sample_sum
    // Buckets without +Inf, as client_golang sends them: (cumulative_count, upper_bound).
    expect(all(body, 3).map((b) => [one(b.value as Buffer, 1)!.value, one(b.value as Buffer, 2)!.value])).toEqual([
      [1, 0.1],
      [2, 1],
    ]);
  });

  it('reads an untyped sample, a summary and special values', async () => {
    const text = [
      '# TYPE plain untyped',
      'plain NaN',
      '# HELP rpc_seconds RPC latency.',
      '# TYPE rpc_seconds summary',
      'rpc_seconds{quantile="0.5",op="get"} 0.25',
      'rpc_seconds{quantile="0.99",op="get"} +Inf',
      'rpc_seconds_sum{op="get"} 12',
      'rpc_seconds_count{op="get"} 40',
      '',
    ].join('\n');
    const [plain, summary] = delimited(await textToDelimitedProtobuf(text));
    expect(one(plain!, 3)!.value).toBe(3); // UNTYPED
    expect(one(one(one(plain!, 4)!.value as Buffer, 5)!.value as Buffer, 1)!.value).toBeNaN();
    expect(one(summary!, 3)!.value).toBe(2); // SUMMARY
    const metric = one(summary!, 4)!.value as Buffer;
    expect(labelsOf(metric)).toEqual([['op', 'get']]);
    const body = one(metric, 4)!.value as Buffer;
    expect(one(body, 1)!.value).toBe(40);
    expect(one(body, 2)!.value).toBe(12);
    expect(all(body, 3).map((q) => [one(q.value as Buffer, 1)!.value, one(q.value as Buffer, 2)!.value])).toEqual([
      [0.5, 0.25],
      [0.99, Infinity],
    ]);
  });
});

describe('protobuf conversion of a large exposition', () => {
  it('gives the event loop back between slices and stops at a cancelled checkpoint', async () => {
    const lines = ['# HELP big_total h', '# TYPE big_total counter'];
    for (let i = 0; i < 20_000; i++) lines.push(`big_total{i="${i}"} ${i}`);
    const text = `${lines.join('\n')}\n`;
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    // A slice of 0 ms: a pause every 256 samples parsed or series written.
    const body = await textToDelimitedProtobuf(text, 0);
    ticking = false;
    expect(turns).toBeGreaterThanOrEqual(Math.floor((2 * 20_000) / 256) - 1);
    expect(all(delimited(body)[0]!, 4)).toHaveLength(20_000);

    let checks = 0;
    const cancelled = textToDelimitedProtobuf(text, 0, () => {
      if (++checks === 3) throw new Error('client went away');
    });
    await expect(cancelled).rejects.toThrow('client went away');
  });
});
