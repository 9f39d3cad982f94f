import { randomFillSync } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';

// Ids are cut from one block of random bytes, refilled every IDS_PER_BLOCK ids and formatted into one
// string at refill time. A request then takes a slice of that string, which V8 makes without copying
// (a few tens of nanoseconds, against about twenty times that for randomUUID(), which concatenates
// twenty small strings per call). A slice keeps its block's 9 KiB string alive while it lives, which
// for an id that lives as long as its request is nothing.
const IDS_PER_BLOCK = 256;
const UUID_LENGTH = 36;
const random = Buffer.allocUnsafe(16 * IDS_PER_BLOCK);
const text = Buffer.allocUnsafe(UUID_LENGTH * IDS_PER_BLOCK);
const HEX = Buffer.from('0123456789abcdef', 'latin1');
// Byte offsets of the 16 random bytes inside `xxxxxxxx-xxxx-4xxx-Nxxx-xxxxxxxxxxxx` (two characters each).
const LAYOUT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
let next = IDS_PER_BLOCK;
let block = '';

function refill(): void {
  randomFillSync(random);
  for (let id = 0; id < IDS_PER_BLOCK; id++) {
    const from = id * 16;
    const to = id * UUID_LENGTH;
    // RFC 9562: version 4 in the high nibble of byte 6, variant 10xx in the high bits of byte 8.
    random[from + 6] = (random[from + 6]! & 0x0f) | 0x40;
    random[from + 8] = (random[from + 8]! & 0x3f) | 0x80;
    for (let i = 0; i < 16; i++) {
      const byte = random[from + i]!;
      const at = to + LAYOUT[i]!;
      text[at] = HEX[byte >> 4]!;
      text[at + 1] = HEX[byte & 0x0f]!;
    }
    text[to + 8] = text[to + 13] = text[to + 18] = text[to + 23] = 0x2d; // '-'
  }
  block = text.toString('latin1');
  next = 0;
}

/** A fresh random lower-case UUIDv4. */
export function newRequestId(): string {
  if (next === IDS_PER_BLOCK) refill();
  const at = next++ * UUID_LENGTH;
  return block.slice(at, at + UUID_LENGTH);
}

/**
 * The client's `X-Request-Id` (the first one when several were sent, as Go's `Header.Get`),
 * or a fresh UUIDv4; stored on the request headers for handlers and loggers.
 */
export function takeRequestId(req: IncomingMessage): string {
  const header = req.headers[REQUEST_ID_HEADER];
  // Node joins repeated headers with ", "; only then pay for the per-header view to take the first.
  const given = typeof header === 'string' && header.includes(',') ? req.headersDistinct[REQUEST_ID_HEADER]?.[0] : header;
  if (typeof given === 'string' && given !== '') {
    if (given !== header) req.headers[REQUEST_ID_HEADER] = given;
    return given;
  }
  const id = newRequestId();
  req.headers[REQUEST_ID_HEADER] = id;
  return id;
}

/** The id assigned to a routed request, if any. */
export function requestIdOf(req: IncomingMessage): string | undefined {
  const value = req.headers[REQUEST_ID_HEADER];
  return typeof value === 'string' ? value : undefined;
}
