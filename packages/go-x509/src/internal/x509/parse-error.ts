// The parser's failures carry Go's error text; parseCertificate turns them into a returned string.

export class ParseError extends Error {}

export function fail(message: string): never {
  throw new ParseError(message);
}
