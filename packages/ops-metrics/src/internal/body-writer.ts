/** What a writer starts with: the default families of a bin render to ~6–9 KB. */
export const INITIAL_BODY_BYTES: number = 16 * 1024;
/**
 * The largest scratch buffer kept between scrapes. A registry whose body is larger still
 * renders (the writer grows as needed), but that writer is dropped after its scrape, so a
 * one-off huge scrape does not pin its size for the life of the process.
 */
export const MAX_RETAINED_BODY_BYTES: number = 1024 * 1024;

/**
 * Renders an exposition straight into bytes: strings are written as they are produced
 * instead of being joined into one large string and encoded afterwards, so a scrape leaves
 * almost nothing on the JavaScript heap (a scrape caught by a scavenge half-way would
 * otherwise have its growing body string copied, and sometimes promoted to old space).
 */
export class BodyWriter {
  private buffer: Buffer;
  private length = 0;

  constructor(capacity: number = INITIAL_BODY_BYTES) {
    this.buffer = Buffer.allocUnsafeSlow(capacity);
  }

  get capacity(): number {
    return this.buffer.length;
  }

  /** Appends `text` as UTF-8. */
  write(text: string): void {
    const count = text.length;
    // Three bytes per UTF-16 unit covers every string (a surrogate pair is 4 bytes for 2 units).
    if (this.length + count * 3 > this.buffer.length) this.grow(count * 3);
    const buffer = this.buffer;
    const start = this.length;
    let at = start;
    for (let i = 0; i < count; i++) {
      const code = text.charCodeAt(i);
      if (code >= 0x80) {
        this.length = start + buffer.write(text, start, 'utf8');
        return;
      }
      buffer[at++] = code;
    }
    this.length = at;
  }

  /**
   * Appends a safe integer's digits, as `String(value)` would print them, without making the
   * string: V8 keeps every number it turns into a string in its number-string cache, which lives
   * in old space, so the strings of values that change every scrape (byte counts, CPU time)
   * would survive scavenges and be promoted. False (nothing written) for any other number.
   */
  integer(value: number): boolean {
    if (!Number.isSafeInteger(value)) return false;
    if (this.length + 17 > this.buffer.length) this.grow(17);
    const buffer = this.buffer;
    let rest = value;
    if (rest < 0) {
      buffer[this.length++] = 0x2d;
      rest = -rest;
    }
    let digits = 1;
    for (let scale = 10; scale <= rest; scale *= 10) digits++;
    let at = this.length + digits;
    this.length = at;
    do {
      buffer[--at] = 0x30 + (rest % 10);
      rest = Math.floor(rest / 10);
    } while (rest > 0);
    return true;
  }

  /**
   * Appends a sample value as Prometheus prints it (`NaN`, `+Inf`, `-Inf`, otherwise what
   * `String(value)` gives). Integers are written digit by digit; other finite numbers go through
   * `JSON.stringify`, which prints the same digits (both are the spec's Number::toString) but,
   * unlike `String()`, does not put the result in V8's number-string cache.
   */
  number(value: number): void {
    if (this.integer(value)) return;
    if (Number.isFinite(value)) this.write(JSON.stringify(value));
    else this.write(Number.isNaN(value) ? 'NaN' : value > 0 ? '+Inf' : '-Inf');
  }

  /** Appends `source[start, end)` as they are (text encoded once and kept). */
  bytes(source: Uint8Array, start: number, end: number): void {
    if (this.length + end - start > this.buffer.length) this.grow(end - start);
    const buffer = this.buffer;
    let at = this.length;
    for (let i = start; i < end; i++) buffer[at++] = source[i]!;
    this.length = at;
  }

  /** Appends one ASCII byte (a space, a newline). */
  byte(code: number): void {
    if (this.length === this.buffer.length) this.grow(1);
    this.buffer[this.length++] = code;
  }

  /**
   * The body so far as a buffer of its own. The scratch buffer is reused by the next scrape,
   * and a socket may still hold what `res.end()` was given until the write completes, so the
   * body handed out is always a copy (off the JavaScript heap: a few hundred bytes of handle).
   */
  take(): Buffer {
    const body = Buffer.allocUnsafe(this.length);
    this.buffer.copy(body, 0, 0, this.length);
    return body;
  }

  reset(): void {
    this.length = 0;
  }

  private grow(needed: number): void {
    let capacity = this.buffer.length * 2;
    while (capacity < this.length + needed) capacity *= 2;
    const next = Buffer.allocUnsafeSlow(capacity);
    this.buffer.copy(next, 0, 0, this.length);
    this.buffer = next;
  }
}
