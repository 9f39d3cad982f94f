/**
 * The bytes of a pino 10 JSON line, written without pino: the lean engine (lean.ts) must
 * produce exactly what `createLogging` produces, so that switching engines changes no line a
 * log shipper parses. Each function states the pino behaviour it matches; lean.test.ts runs one
 * table of entries through both engines and compares the bytes.
 */

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/**
 * A string as a JSON value, as pino quotes it: from Node 25 by JSON.stringify; before, short
 * strings with no control character only have `"` and `\` escaped (so a lone surrogate stays
 * as it is, where JSON.stringify would write `\udXXX`).
 */
export const quoteString: (text: string) => string = NODE_MAJOR >= 25 ? (text) => JSON.stringify(text) : quoteShortString;

function quoteShortString(text: string): string {
  if (text.length > 100) return JSON.stringify(text);
  let escaped = '';
  let copiedUpTo = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 32) return JSON.stringify(text);
    if (code === 34 || code === 92) {
      escaped += `${text.slice(copiedUpTo, i)}\\`;
      copiedUpTo = i;
    }
  }
  return copiedUpTo === 0 && escaped === '' ? `"${text}"` : `"${escaped}${text.slice(copiedUpTo)}"`;
}

// pino's fallback when JSON.stringify throws (a cycle, a BigInt): keys sorted, at most 5 levels
// and 100 entries deep and wide, a cycle written as "[Circular]", a BigInt as its digits.
const FALLBACK_MAX_DEPTH = 5;
const FALLBACK_MAX_BREADTH = 100;
const NEEDS_JSON_ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;

function fallbackQuote(text: string): string {
  return text.length < 5000 && !NEEDS_JSON_ESCAPE.test(text) ? `"${text}"` : JSON.stringify(text);
}

function itemCount(n: number): string {
  return n === 1 ? '1 item' : `${n} items`;
}

function isTypedArrayWithItems(value: object): value is ArrayLike<number | bigint> {
  return ArrayBuffer.isView(value) && !(value instanceof DataView) && (value as unknown as ArrayLike<unknown>).length !== 0;
}

function fallbackArray(value: readonly unknown[], stack: object[]): string {
  if (value.length === 0) return '[]';
  if (stack.length + 1 > FALLBACK_MAX_DEPTH) return '"[Array]"';
  stack.push(value);
  const shown = Math.min(value.length, FALLBACK_MAX_BREADTH);
  const parts: string[] = [];
  for (let i = 0; i < shown; i++) parts.push(fallbackStringify(String(i), value[i], stack) ?? 'null');
  let text = parts.join(',');
  if (value.length - 1 > FALLBACK_MAX_BREADTH) text += `,"... ${itemCount(value.length - FALLBACK_MAX_BREADTH - 1)} not stringified"`;
  stack.pop();
  return `[${text}]`;
}

function fallbackObject(value: object, stack: object[]): string {
  let keys = Object.keys(value);
  const keyCount = keys.length;
  if (keyCount === 0) return '{}';
  if (stack.length + 1 > FALLBACK_MAX_DEPTH) return '"[Object]"';
  let text = '';
  let separator = '';
  let toShow = Math.min(keyCount, FALLBACK_MAX_BREADTH);
  if (isTypedArrayWithItems(value)) {
    const items = Math.min(value.length, FALLBACK_MAX_BREADTH);
    const shownItems: string[] = [];
    for (let i = 0; i < items; i++) shownItems.push(`"${i}":${String(value[i])}`);
    text = shownItems.join(',');
    keys = keys.slice(value.length);
    toShow -= value.length;
    separator = ',';
  }
  // Plain code-unit order, as `<` compares strings.
  keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  stack.push(value);
  for (let i = 0; i < toShow; i++) {
    const key = keys[i]!;
    const item = fallbackStringify(key, (value as Record<string, unknown>)[key], stack);
    if (item !== undefined) {
      text += `${separator}${fallbackQuote(key)}:${item}`;
      separator = ',';
    }
  }
  if (keyCount > FALLBACK_MAX_BREADTH) text += `${separator}"...":"${itemCount(keyCount - FALLBACK_MAX_BREADTH)} not stringified"`;
  stack.pop();
  return `{${text}}`;
}

function fallbackStringify(key: string, value: unknown, stack: object[]): string | undefined {
  switch (typeof value) {
    case 'string':
      return fallbackQuote(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return String(value);
    case 'object': {
      if (value === null) return 'null';
      let current: unknown = value;
      const toJSON = (value as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') {
        current = (toJSON as (key: string) => unknown).call(value, key);
        if (typeof current !== 'object') return fallbackStringify(key, current, stack);
        if (current === null) return 'null';
      }
      const object = current as object;
      if (stack.includes(object)) return '"[Circular]"';
      return Array.isArray(object) ? fallbackArray(object, stack) : fallbackObject(object, stack);
    }
    default:
      return undefined;
  }
}

/** A field value as pino writes it: JSON.stringify, else the cycle-safe fallback (undefined: leave the field out). */
export function stringifyValue(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    try {
      return fallbackStringify('', value, []);
    } catch {
      return '"[unable to serialize, circular reference is too complex to analyze]"';
    }
  }
}

interface ErrorLike {
  message: string;
  stack?: unknown;
  cause?: unknown;
  errors?: unknown;
}

function isErrorLike(value: unknown): value is ErrorLike {
  return typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string';
}

function causeOf(error: ErrorLike): ErrorLike | undefined {
  const cause = typeof error.cause === 'function' ? (error.cause as () => unknown)() : error.cause;
  return isErrorLike(cause) ? cause : undefined;
}

function messageWithCauses(error: ErrorLike, seen: Set<unknown>, skipOwn = false): string {
  const own = skipOwn ? '' : error.message || '';
  if (seen.has(error)) return `${own}: ...`;
  const cause = causeOf(error);
  if (cause === undefined) return own;
  seen.add(error);
  const causeByCall = typeof error.cause === 'function';
  return own + (causeByCall ? '' : ': ') + messageWithCauses(cause, seen, causeByCall);
}

function stackWithCauses(error: ErrorLike, seen: Set<unknown>): string {
  // As pino: whatever `stack` holds (or ''), joined to the causes' as text.
  const stack = (error.stack || '') as string;
  if (seen.has(error)) return `${stack}\ncauses have become circular...`;
  const cause = causeOf(error);
  if (cause === undefined) return stack;
  seen.add(error);
  return `${stack}\ncaused by: ${stackWithCauses(cause, seen)}`;
}

/**
 * pino's `err` serializer (pino-std-serializers 7): type, message and stack with their causes,
 * `aggregateErrors`, then every other enumerable property (error-valued ones serialized the
 * same way, except `cause`). Anything that is not error-like is returned as it is.
 */
export function serializeError(value: unknown, inProgress: Set<object> = new Set()): unknown {
  if (!isErrorLike(value)) return value;
  inProgress.add(value);
  const constructorName = (value as { constructor?: unknown }).constructor;
  const out: Record<string, unknown> = {
    type: typeof constructorName === 'function' ? (constructorName as { name: string }).name : (value as { name?: unknown }).name,
    message: messageWithCauses(value, new Set()),
    stack: stackWithCauses(value, new Set()),
  };
  if (Array.isArray(value.errors)) out['aggregateErrors'] = value.errors.map((inner) => serializeError(inner, inProgress));
  for (const key in value) {
    // pino's serialized error keeps the original behind a non-enumerable `raw`, which hides this key.
    if (key === 'raw' || out[key] !== undefined) continue;
    const inner = (value as unknown as Record<string, unknown>)[key];
    if (isErrorLike(inner)) {
      if (key !== 'cause' && !inProgress.has(inner)) out[key] = serializeError(inner, inProgress);
    } else out[key] = inner;
  }
  inProgress.delete(value);
  return out;
}

function formatObject(value: unknown): string {
  try {
    return JSON.stringify(value) as string;
  } catch {
    return stringifyValue(value) as string;
  }
}

/**
 * The message pino writes for `(message, ...formatArgs)`: printf-style `%s %d %i %f %j %o %O %%`
 * as pino's formatter reads them (a missing argument leaves its directive as it is; extra
 * arguments are dropped). An object message is JSON with the arguments after it.
 */
export function formatMessage(message: unknown, args: readonly unknown[]): unknown {
  if (typeof message === 'object' && message !== null) {
    if (args.length === 0) return message;
    // pino's formatter pairs the message with args[1..n] (args[0] is skipped, one past the end is blank).
    const parts = [formatObject(message)];
    for (let i = 1; i <= args.length; i++) parts.push(formatObject(args[i]));
    return parts.join(' ');
  }
  if (typeof message !== 'string' || args.length === 0) return message;
  let out = '';
  let argIndex = 0;
  let copiedFrom = -1;
  const length = message.length;
  for (let i = 0; i < length; i++) {
    if (message.charCodeAt(i) !== 37 || i + 1 >= length) continue;
    if (copiedFrom === -1) copiedFrom = 0;
    const directive = message.charCodeAt(i + 1);
    const arg = args[argIndex];
    let text: string | undefined;
    if (directive === 37) {
      text = '%';
      argIndex--;
    } else if (argIndex < args.length) {
      if ((directive === 100 || directive === 102) && arg != null) text = String(Number(arg));
      else if (directive === 105 && arg != null) text = String(Math.floor(Number(arg)));
      else if ((directive === 79 || directive === 111 || directive === 106) && arg !== undefined) {
        text = typeof arg === 'string' ? `'${arg}'` : typeof arg === 'function' ? (arg as { name?: string }).name || '<anonymous>' : formatObject(arg);
      } else if (directive === 115) text = String(arg);
    }
    if (text !== undefined) {
      if (copiedFrom < i) out += message.slice(copiedFrom, i);
      out += text;
      copiedFrom = i + 2;
      i++;
    }
    argIndex++;
  }
  if (copiedFrom === -1) return message;
  return copiedFrom < length ? out + message.slice(copiedFrom) : out;
}

/** One field, `,"key":value`, as pino writes it in a line (`err` through the error serializer), or '' to leave it out. */
export function fieldText(key: string, raw: unknown): string {
  const value = key === 'err' ? serializeError(raw) : raw;
  let text: string | undefined;
  switch (typeof value) {
    case 'undefined':
    case 'function':
      return '';
    case 'number':
      text = Number.isFinite(value) ? String(value) : 'null';
      break;
    case 'boolean':
      text = String(value);
      break;
    case 'string':
      text = quoteString(value);
      break;
    default:
      text = stringifyValue(value);
  }
  return text === undefined ? '' : `,${quoteString(key)}:${text}`;
}

/**
 * A child's bindings as pino renders them once: each key JSON-quoted, each value by JSON.stringify
 * (strings too), `level` left out (pino reserves it), `err` through the error serializer.
 */
export function bindingsText(bindings: Record<string, unknown>): string {
  let text = '';
  for (const key in bindings) {
    if (!Object.prototype.hasOwnProperty.call(bindings, key)) continue;
    if (key === 'level' || key === 'serializers' || key === 'formatters' || key === 'customLevels') continue;
    const raw = bindings[key];
    if (raw === undefined) continue;
    const value = stringifyValue(key === 'err' ? serializeError(raw) : raw);
    if (value !== undefined) text += `,${quoteString(key)}:${value}`;
  }
  return text;
}

/** The fields and message of one entry, as pino appends them after the level, time and bindings. */
export function entryText(fields: object | null | undefined, message: unknown): string {
  let object: object = fields ?? {};
  let msg = message;
  if (fields instanceof Error) {
    object = { err: fields };
    if (msg === undefined) msg = fields.message;
  } else if (fields !== null && fields !== undefined && msg === undefined) {
    const record = fields as Record<string, unknown>;
    const err = record['err'] as { message?: unknown } | undefined;
    if (record['msg'] === undefined && err) msg = err.message;
  }
  let text = '';
  for (const key in object) {
    if (Object.prototype.hasOwnProperty.call(object, key)) {
      const value = (object as Record<string, unknown>)[key];
      if (value !== undefined) text += fieldText(key, value);
    }
  }
  if (msg === undefined) return text;
  switch (typeof msg) {
    case 'function':
      return text;
    case 'number':
      return `${text},"msg":${Number.isFinite(msg) ? String(msg) : 'null'}`;
    case 'boolean':
      return `${text},"msg":${String(msg)}`;
    case 'string':
      return `${text},"msg":${quoteString(msg)}`;
    default:
      return `${text},"msg":${String(stringifyValue(msg))}`;
  }
}
