import { jsonText } from './internal/terminal-text.ts';

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

const SAMPLE_VALUE = /^([+-]?Inf|NaN|[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)$/;

/** Calls `visit` with each line of `text[from, to)`, trimmed, its end offset and its number; no array of lines is made. */
function forEachLine(text: string, from: number, to: number, visit: (line: string, end: number, number: number) => void, firstNumber = 1): void {
  let number = firstNumber;
  for (let start = from; start < to; number++) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 || newline >= to ? to : newline;
    visit(text.slice(start, end).trim(), end, number);
    start = end + 1;
  }
}

/** `# HELP name text` or `# TYPE name type`; undefined for any other comment. */
function metaLine(line: string): { kind: 'HELP' | 'TYPE'; name: string; text: string } | undefined {
  const meta = /^#\s+(HELP|TYPE)\s+(\S+)\s?(.*)$/.exec(line);
  if (!meta) return undefined;
  return { kind: meta[1] as 'HELP' | 'TYPE', name: meta[2]!, text: meta[1] === 'TYPE' ? meta[3]!.trim() : meta[3]!.replace(/\\n/g, '\n').replace(/\\\\/g, '\\') };
}

function sampleLine(line: string, number: number): MetricSample {
  const nameMatch = SAMPLE_NAME.exec(line);
  if (!nameMatch) throw new Error(`metrics line ${number}: expected a metric name`);
  const name = nameMatch[0];
  let labels: Record<string, string> = {};
  let valueStart = name.length;
  if (line[valueStart] === '{') ({ labels, end: valueStart } = parseLabels(line, valueStart, number));
  const value = line.slice(valueStart).trim().split(/\s+/)[0];
  if (value === undefined || value === '' || !SAMPLE_VALUE.test(value)) throw new Error(`metrics line ${number}: bad sample value`);
  return { name, labels, value };
}

/** A family as the first pass finds it: its samples as stretches of the page, not as objects. */
interface FamilyIndex {
  readonly name: string;
  type: string;
  help: string;
  /** Start and end offsets of each run of sample lines that belong to this family, flattened. */
  readonly runs: number[];
  /** The line number of each run's first line. */
  readonly runLines: number[];
}

/**
 * Reads the whole page once, checking every line, and groups it into families. A sample goes
 * to the family whose TYPE or HELP came last when its name is that family's or extends it
 * (`_bucket`, `_sum`, `_count`), else to the family of its own name (first seen first).
 */
function indexFamilies(text: string, onSample?: (family: FamilyIndex, sample: MetricSample) => void): FamilyIndex[] {
  const families: FamilyIndex[] = [];
  const byName = new Map<string, FamilyIndex>();
  const family = (name: string): FamilyIndex => {
    let found = byName.get(name);
    if (found === undefined) {
      found = { name, type: 'untyped', help: '', runs: [], runLines: [] };
      byName.set(name, found);
      families.push(found);
    }
    return found;
  };
  let current: FamilyIndex | undefined;
  let lastOwner: FamilyIndex | undefined;
  let lineStart = 0;
  forEachLine(text, 0, text.length, (line, end, number) => {
    const start = lineStart;
    lineStart = end + 1;
    if (line === '') return;
    if (line.startsWith('#')) {
      const meta = metaLine(line);
      if (meta === undefined) return;
      const target = family(meta.name);
      if (meta.kind === 'TYPE') target.type = meta.text;
      else target.help = meta.text;
      current = target;
      return;
    }
    const sample = sampleLine(line, number);
    const owner = current !== undefined && (sample.name === current.name || sample.name.startsWith(`${current.name}_`)) ? current : family(sample.name);
    if (owner === lastOwner) owner.runs[owner.runs.length - 1] = end;
    else {
      owner.runs.push(start, end);
      owner.runLines.push(number);
      lastOwner = owner;
    }
    onSample?.(owner, sample);
  });
  return families;
}

/** Parses the text exposition format (0.0.4) into families; throws naming the line on bad input. */
export function parsePrometheusText(text: string): MetricFamily[] {
  const families = new Map<FamilyIndex, MetricFamily>();
  const order = indexFamilies(text, (owner, sample) => {
    let family = families.get(owner);
    if (family === undefined) {
      family = { name: owner.name, type: owner.type, help: owner.help, samples: [] };
      families.set(owner, family);
    }
    family.samples.push(sample);
  });
  // Type and help may come after a family's first sample: take them as they ended up.
  return order.map((owner) => ({ name: owner.name, type: owner.type, help: owner.help, samples: families.get(owner)?.samples ?? [] }));
}

/** Characters jsonText would escape (and surrogates, which it may); none: the string is quoted as it is. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\u007f-\u009f\u2028\u2029\ud800-\udfff]/;
const PIECE_LENGTH = 64 * 1024;

/** Writes JSON in pieces: small parts joined into flat pieces, a long string as its own piece. */
class PieceWriter {
  private pieces: string[] = [];
  private pending: string[] = [];
  private pendingLength = 0;

  put(text: string): void {
    this.pending.push(text);
    this.pendingLength += text.length;
    if (this.pendingLength >= PIECE_LENGTH) this.flush();
  }

  /** A string value: the very string given when it is long and needs no escaping (no copy made). */
  quoted(text: string): void {
    if (text.length < PIECE_LENGTH || NEEDS_ESCAPE.test(text)) return this.put(jsonText(text));
    this.put('"');
    this.flush();
    this.pieces.push(text);
    this.put('"');
  }

  flush(): void {
    // A string grown by += is a tree of every part; join makes one flat piece.
    if (this.pending.length > 0) this.pieces.push(this.pending.join(''));
    this.pending = [];
    this.pendingLength = 0;
  }

  /** Whether a whole piece is waiting to be taken. */
  get ready(): boolean {
    return this.pieces.length > 0;
  }

  /** The pieces written so far, handed over. */
  take(): string[] {
    const taken = this.pieces;
    this.pieces = [];
    return taken;
  }

  familyStart(family: { readonly name: string; readonly type: string; readonly help: string }, first: boolean): void {
    this.put(`${first ? '' : ','}{"name":${jsonText(family.name)},"type":${jsonText(family.type)},"help":`);
    this.quoted(family.help);
    this.put(',"samples":[');
  }

  sample(sample: MetricSample, first: boolean): void {
    // Names and values matched the exposition grammar (letters, digits, `_`, `:`, `.`, `+`, `-`):
    // nothing in them needs a JSON escape.
    this.put(`${first ? '' : ','}{"name":"${sample.name}","labels":{`);
    let firstLabel = true;
    for (const name in sample.labels) {
      this.put(`${firstLabel ? '' : ','}"${name}":`);
      this.quoted(sample.labels[name]!);
      firstLabel = false;
    }
    this.put(`},"value":"${sample.value}"}`);
  }
}

/**
 * `JSON.stringify(families)` plus a newline, as pieces to write one after another. A long label
 * value or help text becomes its own piece, the very string the parser sliced from the answer
 * when it needs no escaping: no copy of it is made here.
 */
export function metricFamiliesJson(families: readonly MetricFamily[]): string[] {
  const writer = new PieceWriter();
  writer.put('[');
  families.forEach((family, f) => {
    writer.familyStart(family, f === 0);
    family.samples.forEach((sample, s) => writer.sample(sample, s === 0));
    writer.put(']}');
  });
  writer.put(']\n');
  writer.flush();
  return writer.take();
}

/**
 * `metricFamiliesJson(parsePrometheusText(text))`, written as it is made: the page is checked
 * whole first (a bad line throws before anything is written), then each family's samples are
 * read again from the page and written out, so no sample object outlives its line. What is
 * held: the page, and two numbers per run of a family's lines.
 */
export function metricsPageJson(text: string): Iterable<string> {
  const families = indexFamilies(text);
  function* pieces(): Generator<string> {
    const writer = new PieceWriter();
    writer.put('[');
    for (let f = 0; f < families.length; f++) {
      const family = families[f]!;
      writer.familyStart(family, f === 0);
      let first = true;
      for (let run = 0; run < family.runs.length; run += 2) {
        // A loop, not forEachLine: pieces go out as they fill, within a run of millions of lines.
        const to = family.runs[run + 1]!;
        let number = family.runLines[run / 2]!;
        for (let start = family.runs[run]!; start < to; number++) {
          const newline = text.indexOf('\n', start);
          const end = newline < 0 || newline >= to ? to : newline;
          const line = text.slice(start, end).trim();
          start = end + 1;
          if (line === '' || line.startsWith('#')) continue;
          writer.sample(sampleLine(line, number), first);
          first = false;
          if (writer.ready) yield* writer.take();
        }
      }
      writer.put(']}');
      yield* writer.take();
    }
    writer.put(']\n');
    writer.flush();
    yield* writer.take();
  }
  return pieces();
}
