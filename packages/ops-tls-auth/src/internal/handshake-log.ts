import type { WarnLogger } from './authorize.ts';

/** `names`: fields that identify the client (a refused certificate's Subject and Issuer). */
export type HandshakeLog = (remoteAddress: string, reason: string, names?: Readonly<Record<string, string>>) => void;

/** `text` cut to `max` characters, the cut marked with "…": what a client chooses reaches a log line bounded. */
export const cut = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max)}…` : text);

/**
 * `logger.warn` within a budget of `maxPerSecond` lines a second. Lines past it are not written
 * but counted; the count is handed to the next line that is written (`suppressed`, and
 * "(N more `what` not logged)" after its message), so nothing disappears without a trace.
 */
export function createBudgetedWarn(logger: WarnLogger, maxPerSecond: number, what: string, clock: () => number = Date.now): (fields: Record<string, unknown>, message: string) => void {
  let windowStart = Number.NEGATIVE_INFINITY;
  let written = 0;
  let suppressed = 0;
  return (fields, message) => {
    const now = clock();
    if (now - windowStart >= 1_000) {
      windowStart = now;
      written = 0;
    }
    if (written >= maxPerSecond) {
      suppressed += 1;
      return;
    }
    written += 1;
    if (suppressed === 0) logger.warn(fields, message);
    else logger.warn({ ...fields, suppressed }, `${message} (${suppressed} more ${what} not logged)`);
    suppressed = 0;
  };
}

/**
 * One WARN per failed handshake, Go's words (`http: TLS handshake error from <addr>: <reason>`),
 * at most `maxPerSecond` lines a second: anyone who can open a TCP connection can cause
 * these lines, so beyond the budget they are counted, and the count rides on the next line written.
 */
export function createHandshakeLog(logger: WarnLogger | undefined, maxPerSecond: number, clock: () => number = Date.now): HandshakeLog {
  if (logger === undefined) return () => {};
  const warn = createBudgetedWarn(logger, maxPerSecond, 'handshake errors', clock);
  return (remoteAddress, reason, names) => warn({ RemoteAddr: remoteAddress, reason, ...names }, `http: TLS handshake error from ${remoteAddress}: ${reason}`);
}
