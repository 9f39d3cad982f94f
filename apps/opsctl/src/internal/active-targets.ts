// Prometheus's `/api/v1/targets` answer, read as it arrives: only the elements of
// `data.activeTargets` are kept, one at a time, each parsed on its own. A huge or deeply nested
// answer (64 MiB of nested empty lists held 1.6 GB as one JSON.parse) costs its bytes' time and
// one element's memory, and a wrong element stops the read at once.

/** Deeper than any target list; a document nested further is refused, not followed. */
export const MAX_JSON_DEPTH: number = 64;
/** One target with its discovered labels (Kubernetes annotations included); a larger element is refused. */
export const MAX_TARGET_ENTRY_CHARS: number = 1024 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const KEY_CHARS = 64;

interface Level {
  readonly kind: 'object' | 'list';
  expectKey: boolean;
  /** The key being read or last read, at the two outer levels only (`data`, `activeTargets`). */
  key: string;
}

/** Feeds text in pieces; calls `onEntry` with each parsed element of `data.activeTargets`. Throws `Error` with the reason. */
export class ActiveTargetsScanner {
  private readonly levels: Level[] = [];
  private inString = false;
  private escaped = false;
  private readingKey = false;
  private keyText = '';
  private sawRoot = false;
  private sawTargets = false;
  /** Depth of the activeTargets list while inside it, else 0. */
  private targetsDepth = 0;
  /** An element being collected: its pieces so far, and where it starts in the current piece (-1: not collecting). */
  private entryParts: string[] = [];
  private entryLength = 0;
  private entryStart = -1;
  private entryIsPrimitive = false;
  private entries = 0;

  constructor(private readonly onEntry: (entry: unknown, index: number) => void) {}

  write(text: string): void {
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (code === BACKSLASH) this.escaped = true;
        else if (code === QUOTE) {
          this.inString = false;
          if (this.readingKey) this.endKey();
          else if (this.entryIsPrimitive && this.entryStart >= 0) this.endEntry(text, i + 1);
        }
        if (this.readingKey && this.keyText.length <= KEY_CHARS) this.keyText += text[i];
        continue;
      }
      const char = text[i]!;
      if (char === ' ' || char === '\n' || char === '\r' || char === '\t') {
        if (this.entryIsPrimitive && this.entryStart >= 0) this.endEntry(text, i);
        continue;
      }
      if (char === ',' || char === ']' || char === '}') {
        if (this.entryIsPrimitive && this.entryStart >= 0) this.endEntry(text, i);
      }
      if (!this.sawRoot) {
        if (char !== '{') throw new Error(/^[[\d"tfn-]$/.test(char) ? 'the answer has no data.activeTargets list' : 'the answer is not JSON');
        this.sawRoot = true;
      } else if (this.levels.length === 0) {
        throw new Error('the answer is not JSON (text after its end)');
      }
      const atEntryStart = this.targetsDepth > 0 && this.levels.length === this.targetsDepth && this.entryStart < 0 && char !== ',' && char !== ']';
      if (atEntryStart) {
        this.entryStart = i;
        this.entryIsPrimitive = char !== '{' && char !== '[';
      }
      switch (char) {
        case '"': {
          this.inString = true;
          const level = this.levels.at(-1);
          this.readingKey = level !== undefined && level.kind === 'object' && level.expectKey && this.levels.length <= 2;
          if (this.readingKey) this.keyText = '"';
          break;
        }
        case '{':
        case '[':
          this.open(char === '{' ? 'object' : 'list');
          break;
        case '}':
        case ']':
          this.close(text, i);
          break;
        case ':':
          if (this.levels.at(-1)?.kind === 'object') this.levels.at(-1)!.expectKey = false;
          break;
        case ',': {
          const level = this.levels.at(-1)!;
          level.expectKey = level.kind === 'object';
          break;
        }
        default:
          break;
      }
    }
    if (this.entryStart >= 0) {
      this.keep(text.slice(this.entryStart));
      this.entryStart = 0;
    }
  }

  /** The end of the answer: it must have been whole JSON with a data.activeTargets list. */
  end(): void {
    if (this.entryIsPrimitive && this.entryStart >= 0) this.endEntry('', 0);
    if (!this.sawRoot || this.levels.length > 0 || this.inString) throw new Error('the answer is not JSON (it ends early)');
    if (!this.sawTargets) throw new Error('the answer has no data.activeTargets list');
  }

  private open(kind: Level['kind']): void {
    if (this.levels.length >= MAX_JSON_DEPTH) throw new Error(`the answer is nested deeper than ${MAX_JSON_DEPTH} levels`);
    const [root, data] = this.levels;
    const isTargets = kind === 'list' && this.levels.length === 2 && root!.kind === 'object' && root!.key === 'data' && data!.kind === 'object' && data!.key === 'activeTargets';
    this.levels.push({ kind, expectKey: kind === 'object', key: '' });
    if (isTargets) {
      this.sawTargets = true;
      this.targetsDepth = this.levels.length;
    }
  }

  private close(text: string, at: number): void {
    const level = this.levels.pop();
    if (level === undefined) throw new Error('the answer is not JSON');
    if (this.targetsDepth > 0 && this.levels.length === this.targetsDepth - 1) this.targetsDepth = 0;
    else if (this.targetsDepth > 0 && this.levels.length === this.targetsDepth && this.entryStart >= 0) this.endEntry(text, at + 1);
  }

  private endKey(): void {
    this.readingKey = false;
    let key = '';
    try {
      key = this.keyText.length <= KEY_CHARS ? String(JSON.parse(`${this.keyText}"`)) : '';
    } catch {
      key = '';
    }
    this.levels.at(-1)!.key = key;
  }

  private keep(piece: string): void {
    this.entryLength += piece.length;
    if (this.entryLength > MAX_TARGET_ENTRY_CHARS) throw new Error(`data.activeTargets[${this.entries}]: larger than ${MAX_TARGET_ENTRY_CHARS} characters`);
    this.entryParts.push(piece);
  }

  private endEntry(text: string, end: number): void {
    this.keep(text.slice(this.entryStart, end));
    const whole = this.entryParts.join('');
    this.entryParts = [];
    this.entryLength = 0;
    this.entryStart = -1;
    this.entryIsPrimitive = false;
    let entry: unknown;
    try {
      entry = JSON.parse(whole);
    } catch {
      throw new Error(`data.activeTargets[${this.entries}]: not JSON`);
    }
    this.onEntry(entry, this.entries++);
  }
}
