import type { WarnLogger } from './authorize.ts';

export type HandshakeLog = (remoteAddress: string, reason: string) => void;

/**
 * One WARN per failed handshake, Go's words (`http: TLS handshake error from <addr>: <reason>`),
 * at most `maxPerSecond` lines a second: anyone who can open a TCP connection can cause
 * these lines, so beyond the budget they are counted, and the count rides on the next line written.
 */
export function createHandshakeLog(logger: WarnLogger | undefined, maxPerSecond: number, clock: () => number = Date.now): HandshakeLog {
  if (logger === undefined) return () => {};
  let windowStart = Number.NEGATIVE_INFINITY;
  let written = 0;
  let suppressed = 0;
  return (remoteAddress, reason) => {
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
    const dropped = suppressed;
    suppressed = 0;
    logger.warn(
      dropped > 0 ? { RemoteAddr: remoteAddress, reason, suppressed: dropped } : { RemoteAddr: remoteAddress, reason },
      `http: TLS handshake error from ${remoteAddress}: ${reason}${dropped > 0 ? ` (${dropped} more handshake errors not logged)` : ''}`,
    );
  };
}
