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

function parseLabels(text: string, line: number): { labels: Record<string, string>; rest: string } {
  const labels: Record<string, string> = {};
  let i = 1; // past '{'
  for (;;) {
    while (text[i] === ' ' || text[i] === ',') i++;
    if (text[i] === '}') return { labels, rest: text.slice(i + 1) };
    const nameMatch = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(text.slice(i));
    if (!nameMatch || text[i + nameMatch[0].length] !== '=' || text[i + nameMatch[0].length + 1] !== '"') {
      throw new Error(`metrics line ${line}: malformed label set`);
    }
    i += nameMatch[0].length + 2;
    let value = '';
    for (;;) {
      const c = text[i];
      if (c === undefined) throw new Error(`metrics line ${line}: unterminated label value`);
      i++;
      if (c === '"') break;
      if (c === '\\') {
        const next = text[i++];
        value += next === 'n' ? '\n' : (next ?? '');
      } else {
        value += c;
      }
    }
    labels[nameMatch[0]] = value;
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
    let rest = line.slice(name.length);
    let labels: Record<string, string> = {};
    if (rest.startsWith('{')) ({ labels, rest } = parseLabels(rest, n + 1));
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
