import type { DestinationStream } from 'pino';

/** pino's numeric levels as Fabric names them in a log line. */
const LEVEL_LABELS: Readonly<Record<number, string>> = {
  10: 'PAYLOAD',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

// Keys every line carries in its fixed columns, or that only matter to JSON consumers.
const FIXED_KEYS = new Set(['level', 'time', 'name', 'msg', 'pid', 'hostname']);

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

/** `2026-11-21 06:05:12.345 UTC`, Fabric's time column, always in UTC. */
export function formatTime(epochMs: number): string {
  const d = new Date(epochMs);
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` + `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)} UTC`
  );
}

// A value needs quoting when it is empty or holds whitespace, quotes, `=` or control characters.
function needsQuoting(text: string): boolean {
  if (text === '') return true;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code <= 0x20 || code === 0x22 || code === 0x3d || code === 0x5c || code === 0x7f) return true;
  }
  return false;
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return needsQuoting(value) ? JSON.stringify(value) : value;
  if (value !== null && typeof value === 'object' && 'message' in value && 'stack' in value) {
    // pino's error serialiser output: the type and message stay on the line, the stack does not.
    const { type, message } = value as { type?: unknown; message?: unknown };
    return JSON.stringify(typeof type === 'string' ? `${type}: ${String(message)}` : String(message));
  }
  if (value === null || typeof value !== 'object') return String(value);
  return JSON.stringify(value);
}

// Keeps a message on one line without quoting ordinary text.
function oneLine(text: string): string {
  return /[\r\n]/.test(text) ? text.replace(/\r/g, '\\r').replace(/\n/g, '\\n') : text;
}

/**
 * One pino JSON line as readable text in Fabric's spirit:
 * `2026-11-21 06:05:12.345 UTC [peer.operations] INFO message key=value ...`.
 * A line that is not JSON passes through unchanged.
 */
export function formatTextLine(jsonLine: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(jsonLine) as Record<string, unknown>;
  } catch {
    return jsonLine.endsWith('\n') ? jsonLine : `${jsonLine}\n`;
  }
  if (record === null || typeof record !== 'object') return jsonLine;
  const time = typeof record['time'] === 'number' ? formatTime(record['time']) : String(record['time'] ?? '');
  const level = typeof record['level'] === 'number' ? (LEVEL_LABELS[record['level']] ?? `LEVEL(${record['level']})`) : String(record['level']);
  let line = `${time} [${typeof record['name'] === 'string' ? record['name'] : ''}] ${level}`;
  if (record['msg'] !== undefined) line += ` ${oneLine(String(record['msg']))}`;
  for (const key of Object.keys(record)) {
    if (FIXED_KEYS.has(key)) continue;
    line += ` ${key}=${formatValue(record[key])}`;
  }
  return `${line}\n`;
}

/**
 * pino's mark of a destination that reads the entry's level beside the line (`pino.multistream`
 * routes each line by it): pino sets `lastLevel` and its siblings on such a destination before
 * each write.
 */
export const PINO_METADATA: unique symbol = Symbol.for('pino.metadata') as never;

/** The fields pino sets on a destination marked with PINO_METADATA before each write. */
const METADATA_FIELDS = ['lastLevel', 'lastTime', 'lastMsg', 'lastObj', 'lastLogger'] as const;

/** True for a destination that routes lines by the level pino hands it beside each one. */
export function wantsMetadata(out: object): boolean {
  return (out as { [PINO_METADATA]?: unknown })[PINO_METADATA] === true;
}

/**
 * A pino destination that writes each JSON line to `out` as text. When `out` wants pino's
 * metadata (a multistream), this wrapper asks pino for it too and hands it on with each line:
 * without it a multistream sees no level and writes the line to none of its streams.
 */
export function textDestination(out: DestinationStream & { flushSync?: () => void }): DestinationStream & { flushSync(): void } {
  const relay = wantsMetadata(out);
  const target = out as unknown as Record<string, unknown>;
  return {
    ...(relay ? { [PINO_METADATA]: true } : {}),
    write(this: Record<string, unknown>, chunk: string) {
      if (relay) for (const field of METADATA_FIELDS) target[field] = this[field];
      // pino writes exactly one newline-terminated line per call.
      out.write(formatTextLine(chunk.endsWith('\n') ? chunk.slice(0, -1) : chunk));
    },
    flushSync() {
      out.flushSync?.();
    },
  };
}
