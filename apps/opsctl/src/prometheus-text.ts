/** One sample line of the Prometheus text exposition format. */
export interface MetricSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  /** As printed: numbers, `NaN`, `+Inf` and `-Inf` stay exact this way. */
  readonly value: string;
}

export interface MetricFamily {
  readonly name: string;
  readonly type: string;
  readonly help: string;
  readonly samples: MetricSample[];
}

const SAMPLE_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

const LABEL_NAME = /[a-zA-Z_][a-zA-Z0-9_]*/y;

/**
 * Reads `{name="value",…}` starting at `start` (the `{`) of `text`. A value is found by its
 * closing quote and taken as one slice, its escapes undone by one replace: a string built by
 * `+=` per character holds a node per character, tens of times the answer's size for a long
 * value. The next quote and backslash are looked up once each and reused until passed, so a
 * line costs time linear in its length however many labels and escapes it has.
 */
function parseLabels(text: string, start: number, line: number): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let i = start + 1; // past '{'
  let quote = -2;
  let backslash = -2;
  for (;;) {
    while (text[i] === ' ' || text[i] === ',') i++;
    if (text[i] === '}') return { labels, end: i + 1 };
    LABEL_NAME.lastIndex = i;
    const nameMatch = LABEL_NAME.exec(text);
    if (!nameMatch || text[i + nameMatch[0].length] !== '=' || text[i + nameMatch[0].length + 1] !== '"') {
      throw new Error(`metrics line ${line}: malformed label set`);
    }
    i += nameMatch[0].length + 2;
    const valueStart = i;
    let escaped = false;
    for (;;) {
      if (quote !== -1 && quote < i) quote = text.indexOf('"', i);
      if (backslash !== -1 && backslash < i) backslash = text.indexOf('\\', i);
      if (quote < 0) throw new Error(`metrics line ${line}: unterminated label value`);
      if (backslash < 0 || quote < backslash) break;
      escaped = true;
      i = backslash + 2;
    }
    const raw = text.slice(valueStart, quote);
    labels[nameMatch[0]] = escaped ? raw.replace(/\\([\s\S])/g, (_, next: string) => (next === 'n' ? '\n' : next)) : raw;
    i = quote + 1;
  }
}

/** Parses the text exposition format (0.0.4) into families; throws naming the line on bad input. */
export function parsePrometheusText(text: string): MetricFamily[] {
  const families: MetricFamily[] = [];
  const byName = new Map<string, MetricFamily>();
  const family = (name: string): MetricFamily => {
    let found = byName.get(name);
    if (found === undefined) {
      found = { name, type: 'untyped', help: '', samples: [] };
      byName.set(name, found);
      families.push(found);
    }
    return found;
  };
  let current: MetricFamily | undefined;
  const lines = text.split('\n');
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      const meta = /^#\s+(HELP|TYPE)\s+(\S+)\s?(.*)$/.exec(line);
      if (!meta) continue;
      const target = family(meta[2]!);
      if (meta[1] === 'TYPE') (target as { type: string }).type = meta[3]!.trim();
      else (target as { help: string }).help = meta[3]!.replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
      current = target;
      continue;
    }
    const nameMatch = SAMPLE_NAME.exec(line);
    if (!nameMatch) throw new Error(`metrics line ${n + 1}: expected a metric name`);
    const name = nameMatch[0];
    let labels: Record<string, string> = {};
    let valueStart = name.length;
    if (line[valueStart] === '{') ({ labels, end: valueStart } = parseLabels(line, valueStart, n + 1));
    const rest = line.slice(valueStart);
    const value = rest.trim().split(/\s+/)[0];
    if (value === undefined || value === '' || !/^([+-]?Inf|NaN|[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)$/.test(value)) {
      throw new Error(`metrics line ${n + 1}: bad sample value`);
    }
    // Histogram and summary samples (`_bucket`, `_sum`, `_count`) belong to the family above them.
    const owner = current !== undefined && (name === current.name || name.startsWith(`${current.name}_`)) ? current : family(name);
    owner.samples.push({ name, labels, value });
  }
  return families;
}

/** Characters JSON.stringify would escape (and surrogates, which it may); none: the string is quoted as it is. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
const PIECE_LENGTH = 64 * 1024;

/**
 * `JSON.stringify(families)` plus a newline, as pieces to write one after another. A long label
 * value or help text becomes its own piece, the very string the parser sliced from the answer
 * when it needs no escaping: no copy of it is made here, so the output costs about one answer's
 * size while it is written, not several.
 */
export function metricFamiliesJson(families: readonly MetricFamily[]): string[] {
  const pieces: string[] = [];
  // Small parts joined into flat pieces: a string grown by += is a tree of every part.
  let pending: string[] = [];
  let pendingLength = 0;
  const flush = (): void => {
    if (pending.length > 0) pieces.push(pending.join(''));
    pending = [];
    pendingLength = 0;
  };
  const put = (text: string): void => {
    pending.push(text);
    pendingLength += text.length;
    if (pendingLength >= PIECE_LENGTH) flush();
  };
  const quoted = (text: string): void => {
    if (text.length < PIECE_LENGTH || NEEDS_ESCAPE.test(text)) return put(JSON.stringify(text));
    put('"');
    flush();
    pieces.push(text);
    put('"');
  };
  put('[');
  families.forEach((family, f) => {
    put(`${f > 0 ? ',' : ''}{"name":${JSON.stringify(family.name)},"type":${JSON.stringify(family.type)},"help":`);
    quoted(family.help);
    put(',"samples":[');
    family.samples.forEach((sample, s) => {
      put(`${s > 0 ? ',' : ''}{"name":${JSON.stringify(sample.name)},"labels":{`);
      let first = true;
      for (const [name, value] of Object.entries(sample.labels)) {
        put(`${first ? '' : ','}${JSON.stringify(name)}:`);
        quoted(value);
        first = false;
      }
      put(`},"value":${JSON.stringify(sample.value)}}`);
    });
    put(']}');
  });
  put(']\n');
  flush();
  return pieces;
}
