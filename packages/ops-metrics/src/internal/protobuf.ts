/**
 * The delimited protobuf exposition (`io.prometheus.client.MetricFamily`, each message prefixed
 * by its varint length), made from the text format 0.0.4 this package renders. A protobuf
 * scrape is rare (Prometheus asks for it only when told to, e.g. for native histograms), so it
 * reuses the one renderer and pays for a parse instead of keeping a second one in step.
 *
 * As client_golang writes it: every family carries `help` (empty included) and `type`; a
 * classic histogram's buckets leave out `+Inf` (its count is `sample_count`); names are never
 * escaped (expfmt writes the protobuf as gathered, whatever the `escaping=` term says).
 */

// Protobuf wire types.
const VARINT = 0;
const FIXED64 = 1;
const BYTES = 2;
type WireType = typeof VARINT | typeof FIXED64 | typeof BYTES;

const METRIC_TYPES: Record<string, number> = { counter: 0, gauge: 1, summary: 2, untyped: 3, histogram: 4 };

/** A growable byte buffer with protobuf's field encodings. */
class ProtoWriter {
  private buffer = Buffer.allocUnsafe(256);
  length = 0;

  private ensure(extra: number): void {
    if (this.length + extra <= this.buffer.length) return;
    let capacity = this.buffer.length * 2;
    while (capacity < this.length + extra) capacity *= 2;
    const next = Buffer.allocUnsafe(capacity);
    this.buffer.copy(next, 0, 0, this.length);
    this.buffer = next;
  }

  /** A non-negative integer up to 2^53 (arithmetic, not bit operations, which stop at 2^31). */
  varint(value: number): void {
    this.ensure(10);
    let rest = value;
    while (rest >= 0x80) {
      this.buffer[this.length++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    this.buffer[this.length++] = rest;
  }

  tag(field: number, wireType: WireType): void {
    this.varint(field * 8 + wireType);
  }

  double(field: number, value: number): void {
    this.tag(field, FIXED64);
    this.ensure(8);
    this.buffer.writeDoubleLE(value, this.length);
    this.length += 8;
  }

  uint(field: number, value: number): void {
    this.tag(field, VARINT);
    this.varint(value);
  }

  bytes(field: number, value: Uint8Array): void {
    this.tag(field, BYTES);
    this.varint(value.length);
    this.raw(value);
  }

  raw(value: Uint8Array): void {
    this.ensure(value.length);
    this.buffer.set(value, this.length);
    this.length += value.length;
  }

  /** A string field written in place (no intermediate buffer). */
  string(field: number, value: string): void {
    const bytes = Buffer.byteLength(value, 'utf8');
    this.tag(field, BYTES);
    this.varint(bytes);
    this.ensure(bytes);
    this.length += this.buffer.write(value, this.length, 'utf8');
  }

  /** An embedded message field holding what `inner` has written. */
  message(field: number, inner: ProtoWriter): void {
    this.bytes(field, inner.take());
  }

  take(): Buffer {
    return this.buffer.subarray(0, this.length);
  }

  reset(): this {
    this.length = 0;
    return this;
  }
}

function varintLength(value: number): number {
  let length = 1;
  for (let rest = value; rest >= 0x80; rest = Math.floor(rest / 0x80)) length++;
  return length;
}

/** A LabelPair message written straight into `out`, its length computed instead of buffered. */
function writeLabelPair(out: ProtoWriter, name: string, value: string): void {
  const nameBytes = Buffer.byteLength(name, 'utf8');
  const valueBytes = Buffer.byteLength(value, 'utf8');
  out.tag(1, BYTES);
  out.varint(2 + varintLength(nameBytes) + nameBytes + varintLength(valueBytes) + valueBytes);
  out.string(1, name);
  out.string(2, value);
}

interface Sample {
  readonly suffix: string;
  readonly labels: [string, string][];
  readonly value: number;
}

interface ParsedFamily {
  readonly name: string;
  help: string;
  type: string;
  readonly samples: Sample[];
}

function parseValue(text: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  return Number(text);
}

function unescapeHelp(text: string): string {
  return text.replace(/\\(.)/g, (_, ch: string) => (ch === 'n' ? '\n' : ch));
}

/** Parses `{a="x",b="y"}` starting at `text[start] === '{'`; returns the pairs and the index after `}`. */
function parseLabels(text: string, start: number): [[string, string][], number] {
  const labels: [string, string][] = [];
  let at = start + 1;
  while (text[at] !== '}') {
    const eq = text.indexOf('="', at);
    const name = text.slice(at, eq);
    at = eq + 2;
    let value = '';
    while (text[at] !== '"') {
      if (text[at] === '\\') {
        const next = text[at + 1];
        value += next === 'n' ? '\n' : next;
        at += 2;
      } else {
        value += text[at++];
      }
    }
    at++;
    labels.push([name, value]);
    if (text[at] === ',') at++;
  }
  return [labels, at + 1];
}

const SUFFIXES: Record<string, readonly string[]> = { histogram: ['_bucket', '_sum', '_count'], summary: ['_sum', '_count', ''] };

async function parseText(text: string, maybePause: () => Promise<void> | undefined): Promise<ParsedFamily[]> {
  const families: ParsedFamily[] = [];
  let current: ParsedFamily | undefined;
  const familyNamed = (name: string): ParsedFamily => {
    if (current?.name !== name) {
      current = { name, help: '', type: 'untyped', samples: [] };
      families.push(current);
    }
    return current;
  };
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const pause = maybePause();
    if (pause !== undefined) await pause;
    if (line.startsWith('# HELP ')) {
      const space = line.indexOf(' ', 7);
      const name = space < 0 ? line.slice(7) : line.slice(7, space);
      familyNamed(name).help = space < 0 ? '' : unescapeHelp(line.slice(space + 1));
      continue;
    }
    if (line.startsWith('# TYPE ')) {
      const [name = '', type = 'untyped'] = line.slice(7).split(' ');
      familyNamed(name).type = type;
      continue;
    }
    if (line.startsWith('#')) continue;
    const brace = line.indexOf('{');
    const space = line.indexOf(' ');
    const nameEnd = brace >= 0 && brace < space ? brace : space;
    const sampleName = line.slice(0, nameEnd);
    let labels: [string, string][] = [];
    let valueStart = nameEnd + 1;
    if (line[nameEnd] === '{') {
      let end: number;
      [labels, end] = parseLabels(line, nameEnd);
      valueStart = end + 1;
    }
    const valueText = line.slice(valueStart).split(' ')[0] ?? '';
    let family = current;
    let suffix = '';
    if (family !== undefined && sampleName !== family.name) {
      suffix = (SUFFIXES[family.type] ?? []).find((s) => s !== '' && sampleName === family!.name + s) ?? '';
      if (suffix === '') family = undefined;
    }
    family ??= familyNamed(sampleName);
    family.samples.push({ suffix, labels, value: parseValue(valueText) });
  }
  return families;
}

interface MetricParts {
  readonly labels: [string, string][];
  value?: number;
  sum?: number;
  count?: number;
  readonly points: [number, number][];
}

/** `sample_count` and `cumulative_count` are uint64; a count that is not a whole number goes into the `_float` field. */
function writeCount(out: ProtoWriter, intField: number, floatField: number, value: number): void {
  if (Number.isSafeInteger(value) && value >= 0) out.uint(intField, value);
  else out.double(floatField, value);
}

/** Scratch writers reused for every metric of a conversion (one conversion runs at a time per scratch). */
interface Scratch {
  readonly metric: ProtoWriter;
  readonly body: ProtoWriter;
  readonly entry: ProtoWriter;
  readonly family: ProtoWriter;
}

function encodeMetric(type: string, parts: MetricParts, scratch: Scratch): ProtoWriter {
  const metric = scratch.metric.reset();
  for (const [name, value] of parts.labels) writeLabelPair(metric, name, value);
  const body = scratch.body.reset();
  const entry = scratch.entry;
  switch (type) {
    case 'histogram': {
      writeCount(body, 1, 4, parts.count ?? 0);
      body.double(2, parts.sum ?? 0);
      for (const [bound, count] of parts.points) {
        if (bound === Infinity) continue;
        entry.reset();
        writeCount(entry, 1, 4, count);
        entry.double(2, bound);
        body.message(3, entry);
      }
      metric.message(7, body);
      break;
    }
    case 'summary': {
      // A summary has no `_float` count field.
      body.uint(1, Math.max(0, Math.round(parts.count ?? 0)));
      body.double(2, parts.sum ?? 0);
      for (const [quantile, value] of parts.points) {
        entry.reset();
        entry.double(1, quantile);
        entry.double(2, value);
        body.message(3, entry);
      }
      metric.message(4, body);
      break;
    }
    default:
      body.double(1, parts.value ?? 0);
      metric.message(type === 'counter' ? 3 : type === 'gauge' ? 2 : 5, body);
  }
  return metric;
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The delimited protobuf for a text exposition (format 0.0.4, as rendered by this package).
 * Gives the event loop back every `sliceMs` (checked every 256 series), so a large registry's
 * protobuf scrape never stalls other requests; `checkpoint` runs at each pause (a cancelled
 * scrape throws there).
 */
export async function textToDelimitedProtobuf(text: string, sliceMs = 5, checkpoint: () => void = () => {}): Promise<Buffer> {
  const out = new ProtoWriter();
  const scratch: Scratch = { metric: new ProtoWriter(), body: new ProtoWriter(), entry: new ProtoWriter(), family: new ProtoWriter() };
  let sliceStart = performance.now();
  let count = 0;
  // Undefined (no promise, no await) until 256 steps have passed and the slice is used up.
  const maybePause = (): Promise<void> | undefined => {
    if (++count < 256) return undefined;
    count = 0;
    if (performance.now() - sliceStart < sliceMs) return undefined;
    return yieldToEventLoop().then(() => {
      checkpoint();
      sliceStart = performance.now();
    });
  };
  for (const family of await parseText(text, maybePause)) {
    const type = family.type in METRIC_TYPES ? family.type : 'untyped';
    const byLabels = new Map<string, MetricParts>();
    for (const sample of family.samples) {
      const pointLabel = type === 'histogram' && sample.suffix === '_bucket' ? 'le' : type === 'summary' && sample.suffix === '' ? 'quantile' : undefined;
      const labels = pointLabel === undefined ? sample.labels : sample.labels.filter(([name]) => name !== pointLabel);
      const key = labels.length === 0 ? '' : JSON.stringify(labels);
      let parts = byLabels.get(key);
      if (parts === undefined) byLabels.set(key, (parts = { labels, points: [] }));
      if (pointLabel !== undefined) {
        const bound = sample.labels.find(([name]) => name === pointLabel)?.[1] ?? '';
        parts.points.push([parseValue(bound), sample.value]);
      } else if (sample.suffix === '_sum') parts.sum = sample.value;
      else if (sample.suffix === '_count') parts.count = sample.value;
      else parts.value = sample.value;
    }
    if (byLabels.size === 0) continue;
    const message = scratch.family.reset();
    message.string(1, family.name);
    message.string(2, family.help);
    message.uint(3, METRIC_TYPES[type]!);
    for (const parts of byLabels.values()) {
      message.message(4, encodeMetric(type, parts, scratch));
      const pause = maybePause();
      if (pause !== undefined) await pause;
    }
    out.varint(message.length);
    out.raw(message.take());
  }
  return Buffer.from(out.take());
}
