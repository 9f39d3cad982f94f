import { request as httpRequest, type Agent, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest, type Agent as HttpsAgent } from 'node:https';

export interface Reply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface SendOptions {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
  /** Use HTTPS; TLS options (ca, cert, key, ...) go here. */
  readonly tls?: {
    ca?: string | Buffer;
    cert?: string | Buffer;
    key?: string | Buffer;
    servername?: string;
    minVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
    maxVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
  };
  readonly agent?: Agent | HttpsAgent | false;
  readonly timeoutMs?: number;
}

/** One request to `host:port` + path; rejects on network errors, never on HTTP statuses. */
export function send(address: string, path: string, options: SendOptions = {}): Promise<Reply> {
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon).replace(/^\[|\]$/g, '') || '127.0.0.1';
  const port = Number(address.slice(colon + 1));
  const request = options.tls ? httpsRequest : httpRequest;
  return new Promise<Reply>((resolve, reject) => {
    const req = request(
      {
        host: host === '::' || host === '0.0.0.0' ? '127.0.0.1' : host,
        port,
        path,
        method: options.method ?? 'GET',
        headers: options.headers,
        agent: options.agent ?? false,
        ...(options.tls ?? {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(options.timeoutMs ?? 10_000, () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end(options.body);
  });
}
