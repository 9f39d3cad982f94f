/**
 * The one base of every fabric-ops error class. Each package keeps its own class (its `name`)
 * and its own literal `code` union; what they share (the code, the cause, the duck check that
 * works across duplicate copies of a package) lives here once.
 */
export abstract class FabricOpsError<Code extends string> extends Error {
  readonly code: Code;
  /**
   * The HTTP status a handler surfacing this error should answer with: 4xx when the request
   * caused it (a body too large is 413), else 500. Express's and Koa's error handling read
   * `status`, Fastify's and http-errors' `statusCode`; both are set, to the same number.
   */
  readonly status: number;
  readonly statusCode: number;

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.status = this.statusFor(code);
    this.statusCode = this.status;
  }

  /** A package's class names the statuses of the codes a client causes; every other code is a 500. */
  protected statusFor(_code: Code): number {
    return 500;
  }
}

/**
 * A type guard for one error class: `instanceof`, or, for a copy of the class from a second
 * installed copy of its package, an Error with the class's `name` and the `field` it always has.
 */
export function errorGuard<E extends Error>(errorClass: abstract new (...args: never[]) => E, name: string, field: string = 'code'): (value: unknown) => value is E {
  return (value: unknown): value is E => value instanceof errorClass || (value instanceof Error && value.name === name && field in value);
}
