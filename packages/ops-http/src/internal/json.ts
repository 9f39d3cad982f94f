import type { OutgoingHttpHeader, ServerResponse } from 'node:http';
import { headerArray } from './response.ts';

const HTML_UNSAFE = /[<>&\u2028\u2029]/g;
const ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/**
 * JSON text as Go's `encoding/json` writes it: compact, with `<`, `>`, `&`, U+2028 and
 * U+2029 escaped. Those characters can only occur inside string literals, so
 * escaping them in the serialised text is safe.
 */
export function goJson(value: unknown): string {
  const text = JSON.stringify(value) ?? 'null';
  HTML_UNSAFE.lastIndex = 0;
  return HTML_UNSAFE.test(text) ? text.replace(HTML_UNSAFE, (ch) => ESCAPES[ch] ?? ch) : text;
}

export interface JsonWriteOptions {
  /**
   * Append `\n` as Go's `json.Encoder` does. Fabric's /logspec uses an encoder (newline);
   * /healthz and /version use `json.Marshal` (none).
   */
  readonly trailingNewline?: boolean;
  readonly headers?: Readonly<Record<string, string>>;
}

function withHeaders(list: OutgoingHttpHeader[], headers: Readonly<Record<string, string>> | undefined): OutgoingHttpHeader[] {
  if (headers !== undefined) for (const name in headers) list.push(name, headers[name]!);
  return list;
}

/** Writes a complete `application/json` response. */
export function writeJson(res: ServerResponse, status: number, value: unknown, options: JsonWriteOptions = {}): void {
  const body = options.trailingNewline === true ? goJson(value) + '\n' : goJson(value);
  const headers = withHeaders(headerArray(res), options.headers);
  headers.push('Content-Type', 'application/json', 'Content-Length', Buffer.byteLength(body));
  res.writeHead(status, headers);
  res.end(body);
}

/**
 * Writes a complete `application/json` response whose body is already JSON text (a body built
 * once, or from constant parts): the same bytes and headers as `writeJson` with that value.
 */
export function writeJsonText(res: ServerResponse, status: number, json: string, headers?: Readonly<Record<string, string>>): void {
  const list = withHeaders(headerArray(res), headers);
  list.push('Content-Type', 'application/json', 'Content-Length', Buffer.byteLength(json));
  res.writeHead(status, list);
  res.end(json);
}

/**
 * A status with no body, as Go sends one: `Content-Length: 0` and no Content-Type
 * (204 and 304 carry no Content-Length at all).
 */
export function writeEmpty(res: ServerResponse, status: number, headers?: Readonly<Record<string, string>>): void {
  const list = withHeaders(headerArray(res), headers);
  if (status !== 204 && status !== 304) list.push('Content-Length', '0');
  res.writeHead(status, list);
  res.end();
}

/** A `text/plain; charset=utf-8` response. */
export function writeText(res: ServerResponse, status: number, text: string, headers?: Readonly<Record<string, string>>): void {
  const list = withHeaders(headerArray(res), headers);
  list.push('Content-Type', 'text/plain; charset=utf-8', 'Content-Length', Buffer.byteLength(text));
  res.writeHead(status, list);
  res.end(text);
}
