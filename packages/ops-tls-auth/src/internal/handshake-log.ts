import type { WarnLogger } from './authorize.ts';

/** `names`: fields that identify the client (a refused certificate's Subject and Issuer). */
export type HandshakeLog = (remoteAddress: string, reason: string, names?: Readonly<Record<string, string>>) => void;

/**
 * A budget of log lines a second. Lines past it are not written but counted; the count is
 * handed to the next line that is written, so nothing disappears without a trace.
 * Returns the number to report (>= 0) when a line may be written, or -1 when it must not.
 */
export function createLineBudget(maxPerSecond: number, clock: () => number = Date.now): () => number {
  let windowStart = Number.NEGATIVE_INFINITY;
  let written = 0;
  let suppressed = 0;
  return () => {
    const now = clock();
    if (now - windowStart >= 1_000) {
      windowStart = now;
      written = 0;
    }
    if (written >= maxPerSecond) {
      suppressed += 1;
      return -1;
    }
    written += 1;
    const dropped = suppressed;
    suppressed = 0;
    return dropped;
  };
}

/**
 * One WARN per failed handshake, Go's words (`http: TLS handshake error from <addr>: <reason>`),
 * at most `maxPerSecond` lines a second: anyone who can open a TCP connection can cause
 * these lines, so beyond the budget they are counted, and the count rides on the next line written.
 */
export function createHandshakeLog(logger: WarnLogger | undefined, maxPerSecond: number, clock: () => number = Date.now): HandshakeLog {
  if (logger === undefined) return () => {};
  const budget = createLineBudget(maxPerSecond, clock);
  return (remoteAddress, reason, names) => {
    const dropped = budget();
    if (dropped < 0) return;
    logger.warn(
      dropped > 0 ? { RemoteAddr: remoteAddress, reason, ...names, suppressed: dropped } : { RemoteAddr: remoteAddress, reason, ...names },
      `http: TLS handshake error from ${remoteAddress}: ${reason}${dropped > 0 ? ` (${dropped} more handshake errors not logged)` : ''}`,
    );
  };
}
