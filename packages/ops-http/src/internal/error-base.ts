/**
 * The one base of every fabric-ops error class. Each package keeps its own class (its `name`)
 * and its own literal `code` union; what they share (the code, the cause, the duck check that
 * works across duplicate copies of a package) lives here once.
 */
export abstract class FabricOpsError<Code extends string> extends Error {
  readonly code: Code;

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/**
 * A type guard for one error class: `instanceof`, or, for a copy of the class from a second
 * installed copy of its package, an Error with the class's `name` and the `field` it always has.
 */
export function errorGuard<E extends Error>(errorClass: abstract new (...args: never[]) => E, name: string, field: string = 'code'): (value: unknown) => value is E {
  return (value: unknown): value is E => value instanceof errorClass || (value instanceof Error && value.name === name && field in value);
}
