import { createServer } from 'node:http';
import { listenOnLoopback, useCleanup } from '@fabric-ops/test-kit';
import { describe, expect, it } from 'vitest';
import { createPrometheusProvider } from './prometheus.ts';
import { delimitedToProtoText, formatProtoDouble } from './proto-text.ts';
import { textToDelimitedProtobuf } from './protobuf.ts';

const defer = useCleanup();

const EXPOSITION = [
  '# HELP a_total Quotes " and \\\\ back\\nslash é',
  '# TYPE a_total counter',
  'a_total{x="v\\"\\n\\\\\u0085\u0001"} 1.5',
  '# HELP g ',
  '# TYPE g gauge',
  'g -Inf',
  'g2 NaN',
  '# HELP h_seconds H.',
  '# TYPE h_seconds histogram',
  'h_seconds_bucket{le="0.1"} 1',
  'h_seconds_bucket{le="1e+21"} 2',
  'h_seconds_bucket{le="+Inf"} 2',
  'h_seconds_sum 1234567.25',
  'h_seconds_count 2',
  '# HELP s S.',
  '# TYPE s summary',
  's{quantile="0.5"} 0.000012',
  's_sum 100000',
  's_count 2',
  '',
].join('\n');

// What prometheus/common 0.72.1's expfmt encoders (FmtProtoText, FmtProtoCompact; the same code
// as 0.62's) wrote for this body's delimited protobuf, built with Go 1.26.8 and
// google.golang.org/protobuf 1.36.12, with the one space Go's protobuf adds at random per build
// (after a colon, between compact fields) taken out.
const GO_TEXT =
  [
    'name: "a_total"',
    'help: "Quotes \\" and \\\\ back\\nslash é"',
    'type: COUNTER',
    'metric: {',
    '  label: {',
    '    name: "x"',
    '    value: "v\\"\\n\\\\\\u0085\\x01"',
    '  }',
    '  counter: {',
    '    value: 1.5',
    '  }',
    '}',
    '',
    'name: "g"',
    'help: ""',
    'type: GAUGE',
    'metric: {',
    '  gauge: {',
    '    value: -inf',
    '  }',
    '}',
    '',
    'name: "g2"',
    'help: ""',
    'type: UNTYPED',
    'metric: {',
    '  untyped: {',
    '    value: nan',
    '  }',
    '}',
    '',
    'name: "h_seconds"',
    'help: "H."',
    'type: HISTOGRAM',
    'metric: {',
    '  histogram: {',
    '    sample_count: 2',
    '    sample_sum: 1.23456725e+06',
    '    bucket: {',
    '      cumulative_count: 1',
    '      upper_bound: 0.1',
    '    }',
    '    bucket: {',
    '      cumulative_count: 2',
    '      upper_bound: 1e+21',
    '    }',
    '  }',
    '}',
    '',
    'name: "s"',
    'help: "S."',
    'type: SUMMARY',
    'metric: {',
    '  summary: {',
    '    sample_count: 2',
    '    sample_sum: 100000',
    '    quantile: {',
    '      quantile: 0.5',
    '      value: 1.2e-05',
    '    }',
    '  }',
    '}',
    '',
  ].join('\n') + '\n';

const GO_COMPACT =
  [
    'name:"a_total" help:"Quotes \\" and \\\\ back\\nslash é" type:COUNTER metric:{label:{name:"x" value:"v\\"\\n\\\\\\u0085\\x01"} counter:{value:1.5}}',
    'name:"g" help:"" type:GAUGE metric:{gauge:{value:-inf}}',
    'name:"g2" help:"" type:UNTYPED metric:{untyped:{value:nan}}',
    'name:"h_seconds" help:"H." type:HISTOGRAM metric:{histogram:{sample_count:2 sample_sum:1.23456725e+06 bucket:{cumulative_count:1 upper_bound:0.1} bucket:{cumulative_count:2 upper_bound:1e+21}}}',
    'name:"s" help:"S." type:SUMMARY metric:{summary:{sample_count:2 sample_sum:100000 quantile:{quantile:0.5 value:1.2e-05}}}',
  ].join('\n') + '\n';

describe("protobuf's text encodings of /metrics, as expfmt writes them", () => {
  it('encoding=text: prototext.Format per family, a blank line after each', async () => {
    expect(delimitedToProtoText(await textToDelimitedProtobuf(EXPOSITION), false)).toBe(GO_TEXT);
  });

  it('encoding=compact-text: one family a line', async () => {
    expect(delimitedToProtoText(await textToDelimitedProtobuf(EXPOSITION), true)).toBe(GO_COMPACT);
  });

  it("writes doubles as Go's strconv 'g' shortest form", () => {
    expect([0, -0, 1, 100000, 1e6, 1234567.25, 0.0001, 0.00001, 1.5e-300, 2 ** 53, -3.25, 1e21].map(formatProtoDouble)).toEqual([
      '0',
      '-0',
      '1',
      '100000',
      '1e+06',
      '1.23456725e+06',
      '0.0001',
      '1e-05',
      '1.5e-300',
      '9.007199254740992e+15',
      '-3.25',
      '1e+21',
    ]);
  });

  it('answers each Accept header with its own Content-Type and body', async () => {
    const provider = createPrometheusProvider({ runtimeMetrics: false });
    provider.newCounter({ name: 'served_total', help: 'Served.' }).add(2);
    const port = await listenOnLoopback(
      defer,
      createServer((req, res) => void provider.handler(req, res)),
    );
    for (const encoding of ['text', 'compact-text'] as const) {
      const reply = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { accept: `application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=${encoding}` } });
      expect(reply.headers.get('content-type')).toBe(`application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=${encoding}; escaping=underscores`);
      const body = await reply.text();
      expect(body).toContain(
        encoding === 'text'
          ? 'name: "served_total"\nhelp: "Served."\ntype: COUNTER\nmetric: {\n  counter: {\n    value: 2\n  }\n}\n\n'
          : 'name:"served_total" help:"Served." type:COUNTER metric:{counter:{value:2}}\n',
      );
    }
  });
});
