/**
 * Why a scrape stops early (its time limit, or the client going away), in the shape of the
 * part of AbortSignal the renderer uses. Not an AbortController: on Node 20 every AbortSignal
 * made leaves ~500 B in old space (measured with `--trace-gc-nvp` in a loop with other
 * garbage in between), which at one per scrape was most of what a scrape promoted.
 */
export class ScrapeCancel {
  reason: Error | undefined = undefined;
  private onAbort: ((reason: Error) => void) | undefined = undefined;

  get aborted(): boolean {
    return this.reason !== undefined;
  }

  abort(reason: Error): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    this.onAbort?.(reason);
  }

  throwIfAborted(): void {
    if (this.reason !== undefined) throw this.reason;
  }

  /** A promise that rejects with the reason once aborted (one per cancel). */
  rejection(): Promise<never> {
    return new Promise<never>((_, reject) => {
      if (this.reason !== undefined) reject(this.reason);
      else this.onAbort = reject;
    });
  }
}

/** What a render needs to know about cancellation. */
export type CancelToken = Pick<ScrapeCancel, 'aborted' | 'throwIfAborted'>;

/** For renders nobody cancels (the worker's exposition, tests). */
export const NEVER_CANCELLED: CancelToken = { aborted: false, throwIfAborted() {} };
