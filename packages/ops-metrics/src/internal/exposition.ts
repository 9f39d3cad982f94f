import type { ExpositionFormat } from './negotiate.ts';
import type { AppMetric } from './types.ts';

/** Prometheus sample values: `+Inf`, `-Inf`, `NaN`, otherwise the shortest round-trip form. */
export function formatSampleValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/** `le` bounds: OpenMetrics wants canonical floats (`1.0`), the text format Go's shortest form (`1`). */
export function formatBound(bound: number, openMetrics: boolean): string {
  if (bound === Infinity) return '+Inf';
  const text = formatSampleValue(bound);
  return openMetrics && Number.isInteger(bound) && !text.includes('e') ? `${text}.0` : text;
}

const LABEL_UNSAFE = /[\\"\n]/g;
const HELP_UNSAFE_TEXT = /[\\\n]/g;
const HELP_UNSAFE_OPENMETRICS = /[\\"\n]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '"': '\\"', '\n': '\\n' };

export function escapeLabelValue(value: string): string {
  return value.replace(LABEL_UNSAFE, (ch) => ESCAPES[ch]!);
}

export function escapeHelp(help: string, openMetrics: boolean): string {
  return help.replace(openMetrics ? HELP_UNSAFE_OPENMETRICS : HELP_UNSAFE_TEXT, (ch) => ESCAPES[ch]!);
}

/** `a="x",b="y"` for the given names and values (no braces). */
export function labelPairs(names: readonly string[], values: readonly string[]): string {
  let out = '';
  for (let i = 0; i < names.length; i++) {
    if (i > 0) out += ',';
    out += `${names[i]}="${escapeLabelValue(values[i] ?? '')}"`;
  }
  return out;
}

/**
 * The name a family is announced under: OpenMetrics counters drop `_total` from the
 * family name and put it on every sample.
 */
export function familyNameFor(name: string, type: string, format: ExpositionFormat): string {
  return format.kind === 'openmetrics' && type === 'counter' && name.endsWith('_total') ? name.slice(0, -'_total'.length) : name;
}

export function* headerLines(name: string, help: string, type: string, format: ExpositionFormat): Generator<string> {
  const openMetrics = format.kind === 'openmetrics';
  if (help !== '') yield `# HELP ${name} ${escapeHelp(help, openMetrics)}`;
  yield `# TYPE ${name} ${openMetrics && type === 'untyped' ? 'unknown' : type}`;
}

/** Exposition lines for a metric of an application's own prom-client registry. */
export function* appMetricLines(data: AppMetric, format: ExpositionFormat): Generator<string> {
  const values = data.values;
  if (values.length === 0) return;
  const type = String(data.type);
  const openMetrics = format.kind === 'openmetrics';
  const family = familyNameFor(data.name, type, format);
  yield* headerLines(family, data.help, type, format);
  for (const sample of values) {
    let name = sample.metricName ?? data.name;
    if (openMetrics && type === 'counter' && sample.metricName === undefined) name = `${family}_total`;
    let labels = '';
    for (const [key, raw] of Object.entries(sample.labels ?? {})) {
      if (raw === undefined) continue;
      const text = (key === 'le' || key === 'quantile') && typeof raw === 'number' ? formatBound(raw, openMetrics) : String(raw);
      labels += `${labels === '' ? '' : ','}${key}="${escapeLabelValue(text)}"`;
    }
    yield `${name}${labels === '' ? '' : `{${labels}}`} ${formatSampleValue(sample.value)}`;
  }
}
