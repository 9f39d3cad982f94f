/**
 * The `code` of the error `action` throws when `isError` recognises it, undefined when `action`
 * returns; any other error is thrown again, so a test never mistakes a crash for a typed refusal.
 */
export function thrownCode<Code extends string>(action: () => unknown, isError: (error: unknown) => error is { readonly code: Code }): Code | undefined {
  try {
    action();
  } catch (error) {
    if (isError(error)) return error.code;
    throw error;
  }
  return undefined;
}
