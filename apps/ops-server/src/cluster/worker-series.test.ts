import { describe, expect, it } from 'vitest';
import { RetiredSeries } from './retired.ts';
import { checkLayout, decodeIndices, decodeValues, encodeValues, patchValues, readWireSeries, ValuesSender, WorkerSeries, type ApplyCounts } from './worker-series.ts';

const LIMITS = { samples: 1_000, replyBytes: 1_000_000 };
const counts = (): ApplyCounts => ({ dropped: { limit: 0, invalid: 0, value: 0 }, resets: 0 });

describe('checkLayout', () => {
  it('keeps what the exposition grammar allows and counts the rest as invalid', async () => {
    const layout = await checkLayout(
      1,
      [
        { name: 'ok_total', help: 'fine', type: 'counter', samples: [['', ['a', 'x"y\nz']]] },
        { name: 'bad-name', help: '', type: 'gauge', samples: [['', []]] },
        {
          name: 'weird',
          help: '',
          type: 'bogus_type',
          samples: [
            ['', []],
            ['', []],
          ],
        },
        { name: 'fabric_ops_cluster_workers', help: '', type: 'gauge', samples: [['', []]] },
        { name: 'ok_total', help: '', type: 'counter', samples: [['', []]] },
        {
          name: 'labels',
          help: '',
          type: 'gauge',
          samples: [
            ['', ['a']],
            ['', ['1a', 'x']],
            ['', ['__reserved', 'x']],
            ['', ['a', 'x', 'a', 'y']],
            ['_total', []],
            ['', ['a', 'x']],
            ['', ['a', 'x']],
          ],
        },
        {
          name: 'h',
          help: '',
          type: 'histogram',
          samples: [
            ['_bucket', ['le', 'soon']],
            ['_bucket', ['le', '+Inf']],
            ['', []],
            ['_count', []],
          ],
        },
      ],
      LIMITS,
    );
    expect(layout?.families.map((family) => [family.name, family.keys])).toEqual([
      ['ok_total', ['ok_total{a="x\\"y\\nz"}']],
      ['labels', ['labels{a="x"}']],
      ['h', ['h_bucket{le="+Inf"}', 'h_count']],
    ]);
    expect(layout?.invalid).toBe(1 + 2 + 1 + 1 + 6 + 2);
    expect(Array.from(layout!.positions)).toEqual([0, 11, 14, 16]);
    expect(layout?.declared).toBe(17);
  });

  it('checked against the layout it replaces, keeps the keys of that layout where they match and takes the new ones where not', async () => {
    const family = (labels: string[]) => ({ name: 'a_total', help: '', type: 'counter', samples: labels.map((value) => ['', ['k', value]]) });
    const before = await checkLayout(1, [family(['x', 'y', 'z'])], LIMITS);
    // A series added in the middle and one removed: the keys after it shift.
    const after = await checkLayout(2, [family(['x', 'w', 'y']), { name: 'b', help: '', type: 'gauge', samples: [['', []]] }], LIMITS, before);
    expect(after?.families.map((f) => [f.name, f.keys])).toEqual([
      ['a_total', ['a_total{k="x"}', 'a_total{k="w"}', 'a_total{k="y"}']],
      ['b', ['b']],
    ]);
    expect(Array.from(after!.positions)).toEqual([0, 1, 2, 3]);
  });

  it('keeps at most the limit of samples and counts the rest, and is no layout when it is not a list of families', async () => {
    const layout = await checkLayout(1, [{ name: 'a', help: '', type: 'gauge', samples: Array.from({ length: 50 }, (_, i) => ['', ['i', String(i)]]) }], { samples: 20, replyBytes: 1_000 });
    expect(layout?.positions.length).toBe(20);
    expect(layout?.limit).toBe(30);
    expect(await checkLayout(1, [{ name: 'a' }], LIMITS)).toBeUndefined();
    expect(await checkLayout(1, 'a 1\n', LIMITS)).toBeUndefined();
  });
});

describe('readWireSeries', () => {
  it('reads a reply within the byte bound and refuses one past it unread, text, and other shapes', () => {
    const reply = JSON.stringify({ layoutId: 1, values: [1, 'NaN'] });
    expect(readWireSeries(reply, { samples: 10, replyBytes: reply.length })).toEqual({ layoutId: 1, values: [1, 'NaN'] });
    expect(readWireSeries(reply, { samples: 10, replyBytes: reply.length - 1 })).toMatch(/over the bound/);
    // Multi-byte characters count as the bytes they take.
    expect(readWireSeries(JSON.stringify({ layoutId: 1, values: [], x: 'é'.repeat(10) }), { samples: 10, replyBytes: 40 })).toMatch(/^metrics of 53 bytes/);
    expect(readWireSeries('# TYPE a counter\na 1\n', { samples: 10, replyBytes: 1_000 })).toMatch(/not JSON/);
    expect(readWireSeries('{"layoutId":1,"values":5}', { samples: 10, replyBytes: 1_000 })).toMatch(/must be/);
  });

  it('carries values as the base64 of their floats, NaN, ±Inf and -0 included, and refuses a text that is not whole floats', () => {
    const values = [0, -0, 1.5, 2 ** 53 + 2, Number.MIN_VALUE, -1e300, NaN, Infinity, -Infinity];
    const text = encodeValues(values);
    expect(text).toMatch(/^[A-Za-z0-9+/]*={0,2}$/);
    expect(Array.from(decodeValues(text)!)).toEqual(values);
    expect(Object.is(decodeValues(text)![1], -0)).toBe(true);
    // A second, shorter snapshot reuses the scratch: only its own values are sent.
    expect(Array.from(decodeValues(encodeValues([7]))!)).toEqual([7]);
    expect(decodeValues(encodeValues([]))!.length).toBe(0);
    expect(decodeValues(Buffer.alloc(12).toString('base64'))).toBeUndefined();
    const reply = `{"layoutId":3,"values":"${text}"}`;
    expect(readWireSeries(reply, LIMITS)).toEqual({ layoutId: 3, values: text });
  });
});

describe('WorkerSeries', () => {
  it('applies floats off the wire as it applies JSON numbers', async () => {
    const layout = (await checkLayout(
      1,
      [
        { name: 'c_total', help: '', type: 'counter', samples: [['', []]] },
        { name: 'g', help: '', type: 'gauge', samples: [['', []]] },
      ],
      LIMITS,
    ))!;
    const series = new WorkerSeries(layout);
    const tally = counts();
    series.apply(decodeValues(encodeValues([5, NaN]))!, tally);
    expect(Array.from(series.values)).toEqual([5, NaN]);
    series.apply(decodeValues(encodeValues([-1, 2]))!, tally);
    expect(Array.from(series.values)).toEqual([5, 2]);
    expect(tally.dropped.value).toBe(1);
  });

  it('refuses counter values that are not finite numbers ≥ 0, takes a decrease as a reset, and lets gauges be anything', async () => {
    const layout = await checkLayout(
      1,
      [
        { name: 'c_total', help: '', type: 'counter', samples: [['', []]] },
        { name: 'g', help: '', type: 'gauge', samples: [['', []]] },
      ],
      LIMITS,
    );
    const series = new WorkerSeries(layout!);
    const seen = counts();
    series.apply([1_000_117, 'NaN'], seen);
    expect(Array.from(series.values)).toEqual([1_000_117, NaN]);
    for (const bad of ['NaN', '+Inf', -1e9, 'x', null]) series.apply([bad, -3], seen);
    expect(seen.dropped.value).toBe(5);
    expect(Array.from(series.values)).toEqual([1_000_117, -3]);
    series.apply([171, 1], seen);
    expect(seen.resets).toBe(1);
    expect(series.values[0]).toBe(1_000_288);
    series.apply([200, 1], seen);
    expect(series.values[0]).toBe(1_000_317);
  });

  it('keeps a worker’s counts and resets across a layout change where the keys match', async () => {
    const one = new WorkerSeries((await checkLayout(1, [{ name: 'c_total', help: '', type: 'counter', samples: [['', []]] }], LIMITS))!);
    one.apply([10], counts());
    one.apply([4], counts());
    const two = new WorkerSeries(
      (await checkLayout(
        2,
        [
          {
            name: 'c_total',
            help: '',
            type: 'counter',
            samples: [
              ['', ['a', 'b']],
              ['', []],
            ],
          },
        ],
        LIMITS,
      ))!,
      one,
    );
    two.apply([1, 5], counts());
    expect(Array.from(two.values)).toEqual([1, 15]);
  });
});

describe('RetiredSeries', () => {
  it('folds known keys, holds new ones within its bounds, and drops and counts the rest', async () => {
    const retired = new RetiredSeries({ series: 3, chars: 1_000 });
    const worker = async (pid: string, value: number) => {
      const layout = await checkLayout(
        1,
        [
          {
            name: 'w_total',
            help: '',
            type: 'counter',
            samples: [
              ['', []],
              ['', ['pid', pid]],
            ],
          },
          { name: 'g', help: '', type: 'gauge', samples: [['', []]] },
        ],
        LIMITS,
      );
      const series = new WorkerSeries(layout!);
      series.apply([value, value, 7], counts());
      return series;
    };
    retired.retire(await worker('1', 2));
    retired.retire(await worker('2', 3));
    retired.retire(await worker('3', 4));
    expect(retired.series).toBe(3);
    expect(retired.folded).toBe(5);
    expect(retired.dropped).toBe(1);
    const [family] = retired.keyed();
    expect(family?.keys).toEqual(['w_total', 'w_total{pid="1"}', 'w_total{pid="2"}']);
    expect(Array.from(family!.values as number[])).toEqual([9, 2, 3]);
  });
});

describe('ValuesSender and patchValues', () => {
  const read = (fields: string) => JSON.parse(`{${fields}}`) as { seq: number; base?: number; changed?: string; values: string };

  it('sends every value until the primary names the last ones sent, then the ones whose bits changed (NaN and -0 included)', () => {
    const sender = new ValuesSender();
    const first = read(sender.fields([1, 2, 3, 4], undefined));
    expect(first).toEqual({ seq: 1, values: encodeValues([1, 2, 3, 4]) });
    const second = read(sender.fields([1, -0, 3, NaN], 1));
    expect(second.base).toBe(1);
    expect(Array.from(decodeIndices(second.changed!)!)).toEqual([1, 3]);
    const held = decodeValues(first.values)!;
    expect(patchValues(held, second.changed!, second.values)).toBeUndefined();
    expect(Array.from(held)).toEqual([1, -0, 3, NaN]);
    expect(Object.is(held[1], -0)).toBe(true);
    // Naming older values, or none, or with another count of values: all of them.
    expect(read(sender.fields([1, -0, 3, NaN], 1))).not.toHaveProperty('changed');
    expect(read(sender.fields([1, -0, 3, NaN, 5], 3))).not.toHaveProperty('changed');
    // More than half changed: all of them (smaller than the indices and values).
    expect(read(sender.fields([9, 9, 9, NaN, 5], 4))).toEqual({ seq: 5, values: encodeValues([9, 9, 9, NaN, 5]) });
  });

  it('refuses a delta whose indices are torn, out of order, past the values held, or not one per value, and writes nothing then', () => {
    const held = Float64Array.of(1, 2, 3);
    const indices = (...list: number[]) => Buffer.from(Uint32Array.from(list).buffer).toString('base64');
    expect(patchValues(held, indices(0, 2), encodeValues([7]))).toMatch(/2 changed indices for 1 values/);
    expect(patchValues(held, indices(2, 0), encodeValues([7, 8]))).toMatch(/out of order/);
    expect(patchValues(held, indices(1, 1), encodeValues([7, 8]))).toMatch(/out of order/);
    expect(patchValues(held, indices(3), encodeValues([7]))).toMatch(/past the 3 values/);
    expect(patchValues(held, Buffer.alloc(3).toString('base64'), encodeValues([7]))).toMatch(/whole 4-byte/);
    expect(Array.from(held)).toEqual([1, 2, 3]);
    expect(patchValues(held, indices(0, 2), encodeValues([7, 8]))).toBeUndefined();
    expect(Array.from(held)).toEqual([7, 2, 8]);
  });

  it('reads a numbered reply and refuses a delta without its base or with a layout', () => {
    expect(readWireSeries('{"layoutId":1,"seq":2,"base":1,"changed":"","values":""}', LIMITS)).toEqual({ layoutId: 1, seq: 2, base: 1, changed: '', values: '' });
    expect(readWireSeries('{"layoutId":1,"seq":2,"changed":"","values":""}', LIMITS)).toMatch(/changed values must be/);
    expect(readWireSeries('{"layoutId":1,"seq":2,"base":1,"changed":"","values":"","layout":[]}', LIMITS)).toMatch(/changed values must be/);
    expect(readWireSeries('{"layoutId":1,"seq":-1,"values":""}', LIMITS)).toMatch(/must be/);
  });
});
