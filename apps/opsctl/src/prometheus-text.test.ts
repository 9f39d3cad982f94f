import { describe, expect, it } from 'vitest';
import { metricFamiliesJson, metricsPageJson, parsePrometheusText } from './prometheus-text.ts';

describe('parsePrometheusText', () => {
  it('groups samples into families with help, type and labels', () => {
    const text = [
      '# HELP fabric_version The active version of Fabric.',
      '# TYPE fabric_version gauge',
      'fabric_version{version="2.5.0"} 1',
      '# HELP req_seconds Request time.',
      '# TYPE req_seconds histogram',
      'req_seconds_bucket{le="0.1"} 3',
      'req_seconds_bucket{le="+Inf"} 4',
      'req_seconds_sum 0.25',
      'req_seconds_count 4',
      'bare_total 7 1700000000000',
      '',
    ].join('\n');
    expect(parsePrometheusText(text)).toEqual([
      { name: 'fabric_version', type: 'gauge', help: 'The active version of Fabric.', samples: [{ name: 'fabric_version', labels: { version: '2.5.0' }, value: '1' }] },
      {
        name: 'req_seconds',
        type: 'histogram',
        help: 'Request time.',
        samples: [
          { name: 'req_seconds_bucket', labels: { le: '0.1' }, value: '3' },
          { name: 'req_seconds_bucket', labels: { le: '+Inf' }, value: '4' },
          { name: 'req_seconds_sum', labels: {}, value: '0.25' },
          { name: 'req_seconds_count', labels: {}, value: '4' },
        ],
      },
      { name: 'bare_total', type: 'untyped', help: '', samples: [{ name: 'bare_total', labels: {}, value: '7' }] },
    ]);
  });

  it('unescapes label values and keeps NaN and infinities as printed', () => {
    const [family] = parsePrometheusText('x{a="q\\"uote",b="back\\\\slash",c="new\\nline"} NaN\nx{a=""} -Inf\n');
    expect(family?.samples).toEqual([
      { name: 'x', labels: { a: 'q"uote', b: 'back\\slash', c: 'new\nline' }, value: 'NaN' },
      { name: 'x', labels: { a: '' }, value: '-Inf' },
    ]);
  });

  it('names the line of malformed input', () => {
    expect(() => parsePrometheusText('ok 1\nbad{a="1} 2\n')).toThrow('metrics line 2: unterminated label value');
    expect(() => parsePrometheusText('x{1="a"} 1')).toThrow('metrics line 1: malformed label set');
    expect(() => parsePrometheusText('x one')).toThrow('metrics line 1: bad sample value');
  });

  it('reads escapes anywhere in a value, and many labels on one line, each once', () => {
    const [family] = parsePrometheusText('y{a="\\\\",b="\\"",c="x\\\\\\"y",d="end\\n",e="plain"} 2\n');
    expect(family?.samples[0]?.labels).toEqual({ a: '\\', b: '"', c: 'x\\"y', d: 'end\n', e: 'plain' });
    expect(() => parsePrometheusText('z{a="open\\"} 1\n')).toThrow('metrics line 1: unterminated label value');
  });

  it('keeps a 16 MB label value whole', () => {
    const value = 'w'.repeat(16 * 1024 * 1024);
    const [family] = parsePrometheusText(`big{huge="${value}",after="\\"q"} 1\n`);
    expect(family?.samples[0]?.labels['huge']).toBe(value);
    expect(family?.samples[0]?.labels['after']).toBe('"q');
  });
});

describe('metricFamiliesJson', () => {
  const joined = (text: string) => metricFamiliesJson(parsePrometheusText(text)).join('');

  it('writes what JSON.stringify writes, plus a newline', () => {
    const lines = ['# HELP h Help with \\ and \\n.', '# TYPE h histogram', 'h_bucket{le="0.1",path="/a\\"b"} 3', 'h_sum 1e-3', 'h_count 3', 'plain NaN'];
    for (let i = 0; i < 5_000; i++) lines.push(`many{i="${i}",ctl="\u0001",emoji="é😀"} ${i}`);
    const text = `${lines.join('\n')}\n`;
    expect(joined(text)).toBe(`${JSON.stringify(parsePrometheusText(text))}\n`);
  });

  it('passes a long value through as one piece, without copying it, unless it needs escaping', () => {
    const long = 'v'.repeat(1024 * 1024);
    const text = `# HELP big ${long}\n# TYPE big gauge\nbig{huge="${long}",quoted="${long}\\"",small="s"} 1\n`;
    const pieces = metricFamiliesJson(parsePrometheusText(text));
    expect(pieces.filter((piece) => piece === long)).toHaveLength(2);
    expect(pieces.join('')).toBe(`${JSON.stringify(parsePrometheusText(text))}\n`);
    expect(metricFamiliesJson([])).toEqual(['[]\n']);
  });
});

describe('metricsPageJson', () => {
  it('writes what metricFamiliesJson writes for the parsed page, interleaved families and late HELP included', () => {
    const page = [
      '# HELP h A histogram.',
      '# TYPE h histogram',
      'h_bucket{le="1"} 1',
      'h_sum 2',
      'other{x="a\\"b\\\\c\\nd",y="\u009b\u007f"} 3',
      '# a comment',
      'h_count 1',
      '',
      'other 4',
      '# HELP other Help after its samples.',
      'lonely NaN',
      '# TYPE empty counter',
    ].join('\n');
    const expected = metricFamiliesJson(parsePrometheusText(page)).join('');
    expect([...metricsPageJson(page)].join('')).toBe(expected);
    expect(JSON.parse(expected)).toEqual(parsePrometheusText(page));
    expect(expected).not.toMatch(/[\u007f-\u009f]/);
  });

  it('checks the whole page before writing a piece, and names the bad line', () => {
    expect(() => metricsPageJson('a 1\nb 2\nc{ 3\n')).toThrow('metrics line 3: malformed label set');
  });

  it('hands out pieces while a family of 200,000 samples is written, none larger than about 64 KiB', () => {
    const pieces = metricsPageJson(`# TYPE a gauge\n${'a 1\n'.repeat(200_000)}`);
    let count = 0;
    let largest = 0;
    for (const piece of pieces) {
      count++;
      largest = Math.max(largest, piece.length);
    }
    expect(count).toBeGreaterThan(50);
    expect(largest).toBeLessThan(70 * 1024);
  });
});
