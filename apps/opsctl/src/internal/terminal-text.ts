// What a server sends reaches the operator's terminal only as visible text: a node being checked
// may be the compromised one, and ESC, CSI or OSC sequences in a Version or a failed check's
// reason would clear the screen, set the window title, write the clipboard (OSC 52) or move the
// cursor to rewrite a FAILED row as OK. As git and kubectl do, such characters are shown, not
// obeyed; and one long value is cut, so it cannot widen every row of a table.

/** C0 controls, DEL and C1 controls; newline and tab are matched too and let through on request. */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROLS_GLOBAL = /[\u0000-\u001f\u007f-\u009f]/g;

function escaped(char: string): string {
  const code = char.charCodeAt(0);
  if (char === '\n') return '\\n';
  if (char === '\r') return '\\r';
  if (char === '\t') return '\\t';
  return code < 0x80 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * `text` with every C0 control, DEL and C1 control written as an escape (`\x1b`, `\x7f`,
 * `\u009b`, `\n`). `keepLines` lets newlines and tabs through, for a block of several lines
 * (a metrics page, a verbose health answer); a carriage return is always shown, since it
 * moves the cursor back over what was printed.
 */
export function visibleText(text: string, keepLines = false): string {
  if (!CONTROLS.test(text)) return text;
  return text.replace(CONTROLS_GLOBAL, (char) => (keepLines && (char === '\n' || char === '\t') ? char : escaped(char)));
}

/** Cuts `text` to at most `max` characters, the last one `…`, never between a surrogate pair. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

/**
 * A server-supplied value as one table cell: at most `max` characters once its controls are
 * made visible. The value is cut before escaping as well, so a megabyte costs `max` of work.
 */
export function cellText(text: string, max: number): string {
  return cutText(visibleText(cutText(text, max)), max);
}

const JSON_UNSAFE = /[\u007f-\u009f\u2028\u2029]/;
const JSON_UNSAFE_GLOBAL = /[\u007f-\u009f\u2028\u2029]/g;

/**
 * `JSON.stringify(value)`, with DEL, the C1 controls and the two Unicode line separators
 * written as `\u` escapes: JSON.stringify escapes only C0, and `--json` output is read on
 * terminals too. The same JSON value; parsers see no difference.
 */
export function jsonText(value: unknown): string {
  const text = JSON.stringify(value);
  return JSON_UNSAFE.test(text) ? text.replace(JSON_UNSAFE_GLOBAL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`) : text;
}

/**
 * A copy of `text` that shares no memory with the string it came from. V8 represents a slice
 * of a long string, and a string JSON.parse found in a long answer, as a view that keeps the
 * whole answer alive: a row keeping a 20-character status would keep the megabyte it came in.
 */
export function detached(text: string): string {
  return text.length === 0 ? '' : Buffer.from(text, 'utf16le').toString('utf16le');
}
