import { MetricsError } from './errors.ts';

/** The parts every metric is declared with; empty parts are skipped when joining. */
export interface NameParts {
  readonly namespace: string;
  readonly subsystem: string;
  readonly name: string;
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** `namespace_subsystem_name`, empty parts skipped: the Prometheus name. */
export function prometheusName(parts: NameParts): string {
  return [parts.namespace, parts.subsystem, parts.name].filter((p) => p !== '').join('_');
}

/** `namespace.subsystem.name`, empty parts skipped: StatsD's `%{#fqname}`. */
export function statsdFullName(parts: NameParts): string {
  return [parts.namespace, parts.subsystem, parts.name].filter((p) => p !== '').join('.');
}

export function validateMetricName(name: string): void {
  if (!METRIC_NAME.test(name)) {
    throw new MetricsError('INVALID_METRIC_OPTIONS', `invalid metric name ${JSON.stringify(name)}: expected [a-zA-Z_:][a-zA-Z0-9_:]*`);
  }
}

export function validateLabelNames(metric: string, labelNames: readonly string[]): void {
  const seen = new Set<string>();
  for (const label of labelNames) {
    if (!LABEL_NAME.test(label) || label.startsWith('__')) {
      throw new MetricsError('INVALID_METRIC_OPTIONS', `${metric}: invalid label name ${JSON.stringify(label)}: expected [a-zA-Z_][a-zA-Z0-9_]* not starting with "__"`);
    }
    if (label === 'le' || label === 'quantile') {
      throw new MetricsError('INVALID_METRIC_OPTIONS', `${metric}: label name "${label}" is reserved by the exposition format`);
    }
    if (seen.has(label)) throw new MetricsError('INVALID_METRIC_OPTIONS', `${metric}: label name "${label}" is declared twice`);
    seen.add(label);
  }
}

/** Fabric's default StatsD template: the full name, labels left out. */
export const DEFAULT_STATSD_FORMAT = '%{#fqname}';

/** One piece of a compiled StatsD template. */
export type TemplatePiece = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'label'; readonly index: number };

// The token grammar of Fabric's namer: %{...} with #, ?, letters, digits and _.
const TOKEN = /%\{([#?A-Za-z0-9_]+)\}/g;

/**
 * Turns a StatsD name template (`%{#fqname}.%{channel}`) into text and label pieces.
 * The reserved tokens are resolved here; a label token must name a declared label.
 */
export function compileStatsdFormat(format: string, parts: NameParts, labelNames: readonly string[]): TemplatePiece[] {
  const pieces: TemplatePiece[] = [];
  let text = '';
  let last = 0;
  for (const match of format.matchAll(TOKEN)) {
    text += format.slice(last, match.index);
    last = match.index + match[0].length;
    const token = match[1]!;
    switch (token) {
      case '#namespace':
        text += parts.namespace;
        continue;
      case '#subsystem':
        text += parts.subsystem;
        continue;
      case '#name':
        text += parts.name;
        continue;
      case '#fqname':
        text += statsdFullName(parts);
        continue;
    }
    const index = labelNames.indexOf(token);
    if (index < 0) {
      throw new MetricsError('INVALID_METRIC_OPTIONS', `${statsdFullName(parts)}: invalid label in name format: ${token} (declared labels: ${labelNames.join(', ') || 'none'})`);
    }
    if (text !== '') pieces.push({ kind: 'text', text });
    text = '';
    pieces.push({ kind: 'label', index });
  }
  text += format.slice(last);
  if (text !== '') pieces.push({ kind: 'text', text });
  return pieces;
}

// Go's \s is ASCII whitespace [\t\n\f\r ]; multibyte characters are kept.
const STATSD_UNSAFE = /[.|:\t\n\f\r ]/g;

/** A label value as it may appear inside a StatsD bucket name. */
export function sanitizeStatsdLabelValue(value: string): string {
  return value.replace(STATSD_UNSAFE, '_');
}

/** The bucket name for one set of label values (in declaration order). */
export function formatStatsdBucket(pieces: readonly TemplatePiece[], values: readonly string[]): string {
  let out = '';
  for (const piece of pieces) out += piece.kind === 'text' ? piece.text : sanitizeStatsdLabelValue(values[piece.index] ?? '');
  return out;
}

/** Fabric's prefix rule: a non-empty prefix gets a `.` appended unless it has one. */
export function normalizeStatsdPrefix(prefix: string): string {
  return prefix === '' || prefix.endsWith('.') ? prefix : `${prefix}.`;
}
