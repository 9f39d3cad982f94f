/**
 * Calls `probe` every 50 ms until it gives a value (a throw counts as "not yet"), or throws once
 * `timeoutMs` has passed, naming what was awaited and what the process printed so far.
 */
export async function pollUntil<T>(probe: () => T | undefined | Promise<T | undefined>, timeoutMs: number, failure: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await Promise.resolve()
      .then(probe)
      .catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(failure());
    await new Promise((r) => setTimeout(r, 50));
  }
}
