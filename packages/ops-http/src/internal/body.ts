import type { IncomingMessage } from 'node:http';
import { OpsHttpError } from './errors.ts';

export const DEFAULT_BODY_LIMIT: number = 1024 * 1024;

const ROUTED_BODY_LIMIT = Symbol('fabric-ops.bodyLimit');
type LimitedRequest = IncomingMessage & { [ROUTED_BODY_LIMIT]?: number };

/** Makes `limit` the default of `readBody` for `req` (the router's `bodyLimitBytes`). */
export function setBodyLimit(req: IncomingMessage, limit: number): void {
  (req as LimitedRequest)[ROUTED_BODY_LIMIT] = limit;
}

export interface ReadBodyOptions {
  /** Largest body accepted, in bytes. Default: the router's `bodyLimitBytes`, else 1 MiB. */
  readonly limit?: number;
}

/**
 * Reads a request body into memory, refusing more than `limit` bytes. A declared
 * Content-Length over the limit is refused before a byte is read; an undeclared
 * one is refused as soon as it crosses the limit, and the rest is never buffered.
 */
export function readBody(req: IncomingMessage, options: ReadBodyOptions = {}): Promise<Buffer> {
  const limit = options.limit ?? (req as LimitedRequest)[ROUTED_BODY_LIMIT] ?? DEFAULT_BODY_LIMIT;
  const tooLarge = () => new OpsHttpError('BODY_TOO_LARGE', `request body is larger than ${limit} bytes`);
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return Promise.reject(tooLarge());
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));

  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        // Stop the flow; the response will carry `Connection: close`.
        req.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (cause: Error) => {
      cleanup();
      reject(new OpsHttpError('BODY_ABORTED', 'request body could not be read', { cause }));
    };
    const onAborted = () => onError(new Error('client aborted the request'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}
