import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { dialHost, parseDialAddress } from './address.ts';
import type { ConnectionOptions } from './args.ts';
import { OpsctlError } from './errors.ts';
import { MAX_PEM_FILE_BYTES, readBoundedFile } from './read-file.ts';

export interface OpsResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface OpsClient {
  /**
   * One request; rejects with an OpsctlError (one readable line) when no answer arrives.
   * `limits.timeoutMs` replaces --timeout for this request.
   */
  request(method: 'GET' | 'PUT', path: string, body?: string, limits?: { readonly timeoutMs?: number }): Promise<OpsResponse>;
  /** `http(s)://host:port`, for messages. */
  readonly origin: string;
}

/** Large enough for a busy /metrics page, small enough that a runaway server cannot exhaust memory. */
export const MAX_RESPONSE_BYTES: number = 32 * 1024 * 1024;

/** The PEM bytes of one credential set, read once and shared by every request that uses it. */
export interface TlsMaterial {
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
}

/** Limits beyond --timeout, which always counts from the start of a request to the end of its answer. */
export interface RequestLimits {
  /** Aborts every request in flight (the overall --deadline). */
  readonly signal?: AbortSignal;
  /** Refuse answers larger than this; default MAX_RESPONSE_BYTES. */
  readonly maxResponseBytes?: number;
  /** How the CA file was given (`--cacert x.pem`, `label __opsctl_cacert x.pem`), for an untrusted certificate. */
  readonly caName?: string;
}

async function readPem(option: string, file: string | undefined): Promise<Buffer | undefined> {
  if (file === undefined) return undefined;
  return readBoundedFile(option, file, MAX_PEM_FILE_BYTES);
}

/**
 * Reads the PEM files of one credential set. `names` says how each file was given (`--cacert`,
 * or a target label), for the error message.
 */
export async function readTlsMaterial(
  files: { readonly caFile?: string; readonly certFile?: string; readonly keyFile?: string },
  names: { readonly ca: string; readonly cert: string; readonly key: string } = { ca: '--cacert', cert: '--cert', key: '--key' },
): Promise<TlsMaterial> {
  const [ca, cert, key] = await Promise.all([readPem(names.ca, files.caFile), readPem(names.cert, files.certFile), readPem(names.key, files.keyFile)]);
  return { ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}) };
}

/** `write EPROTO 80…:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/…` → `wrong version number`. */
function opensslReason(message: string): string {
  return /SSL routines:[^:]*:([^:]+)/.exec(message)?.[1] ?? message;
}

// Node reports some OpenSSL failures as a bare EPROTO; the reason is only in the message.
const EPROTO_REASONS: readonly [RegExp, string][] = [
  [/wrong version number|packet length too long/i, 'ERR_SSL_WRONG_VERSION_NUMBER'],
  [/alert certificate required/i, 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED'],
  [/alert unknown ca/i, 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA'],
  [/alert certificate expired/i, 'ERR_SSL_SSLV3_ALERT_CERTIFICATE_EXPIRED'],
  [/alert bad certificate|alert unsupported certificate/i, 'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE'],
  [/alert handshake failure/i, 'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE'],
  [/alert protocol version|unsupported protocol/i, 'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION'],
];

/** The server's certificate does not chain to a trusted CA. */
const UNTRUSTED_CODES: ReadonlySet<string> = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
]);

/** OpenSSL's and Node's codes for a TLS failure, turned into what an operator should do. */
export function describeTlsFailure(code: string | undefined, message: string): string | undefined {
  if (code === 'EPROTO') code = EPROTO_REASONS.find(([pattern]) => pattern.test(message))?.[1] ?? 'ERR_SSL_EPROTO';
  switch (code) {
    case 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED':
    case 'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE':
      return 'client certificate required: the server demands one at the TLS layer (pass --cert and --key)';
    case 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA':
      return "the server rejected the client certificate: unknown certificate authority (it must chain to the server's clientRootCAs)";
    case 'ERR_SSL_SSLV3_ALERT_CERTIFICATE_EXPIRED':
      return 'the server rejected the client certificate: certificate expired';
    case 'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE':
    case 'ERR_SSL_SSLV3_ALERT_UNSUPPORTED_CERTIFICATE':
    case 'ERR_SSL_TLSV1_ALERT_DECRYPT_ERROR':
      return 'the server rejected the client certificate (bad certificate: wrong CA, not yet valid, or no clientAuth usage)';
    case 'ERR_SSL_WRONG_VERSION_NUMBER':
    case 'ERR_SSL_PACKET_LENGTH_TOO_LONG':
      return 'TLS handshake failed: the server does not speak TLS (drop --tls/--cacert/--cert)';
    case 'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION':
    case 'ERR_SSL_UNSUPPORTED_PROTOCOL':
      return 'TLS handshake failed: no TLS version in common (the server requires TLS 1.2 or later)';
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'UNABLE_TO_GET_ISSUER_CERT':
      return `server certificate not trusted (${message}); pass the operations CA with --cacert`;
    case 'CERT_HAS_EXPIRED':
      return 'server certificate expired';
    case 'CERT_NOT_YET_VALID':
      return 'server certificate is not yet valid';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `server certificate does not match the address (${message}); use --server-name`;
    default:
      if (code?.startsWith('ERR_SSL_') || code?.startsWith('ERR_TLS_')) return `TLS handshake failed: ${opensslReason(message)}`;
      return undefined;
  }
}

/** How far a request got when it failed, for saying what the failure was. */
export interface FailureContext {
  readonly tls: boolean;
  /** A client certificate was presented. */
  readonly presentedCertificate?: boolean;
  /** The TLS handshake (or, without TLS, the connection) was complete. */
  readonly afterHandshake?: boolean;
  /** Bytes of the answer had arrived; the status, when its headers were complete. */
  readonly answerStarted?: boolean;
  readonly status?: number;
  /** Where the trusted CAs came from (`--cacert ops-ca.pem`), named when the server is not trusted. */
  readonly trustSource?: string;
}

/** Maps a socket-level failure to one line naming the address. */
export function describeFailure(error: NodeJS.ErrnoException, origin: string, context: FailureContext): OpsctlError {
  const { tls, presentedCertificate = false, afterHandshake = false } = context;
  if ((error.code === 'ECONNRESET' || error.code === 'EPIPE') && context.answerStarted) {
    // The server had begun to answer: neither TLS nor a client certificate is the problem.
    const when = context.status !== undefined ? `after its status line (${context.status}), before the end of the answer` : 'in the middle of its status line and headers';
    return new OpsctlError('UNREACHABLE', `${origin}: the server closed the connection ${when}; the answer is incomplete`, { cause: error });
  }
  if (context.trustSource !== undefined && UNTRUSTED_CODES.has(error.code ?? '')) {
    return new OpsctlError('TLS', `${origin}: server certificate not trusted by ${context.trustSource} (${error.message}); is that the CA that signed the operations server's certificate?`, {
      cause: error,
    });
  }
  const tlsText = describeTlsFailure(error.code, error.message);
  if (tlsText !== undefined) return new OpsctlError('TLS', `${origin}: ${tlsText}`, { cause: error });
  switch (error.code) {
    case 'ECONNREFUSED':
      return new OpsctlError('UNREACHABLE', `${origin}: connection refused (is the operations server running on that address?)`, { cause: error });
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new OpsctlError('UNREACHABLE', `${origin}: cannot resolve the host name`, { cause: error });
    case 'ETIMEDOUT':
    case 'OPSCTL_TIMEOUT':
    case 'OPSCTL_DEADLINE':
      return new OpsctlError('UNREACHABLE', `${origin}: ${error.message}`, { cause: error });
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return new OpsctlError('UNREACHABLE', `${origin}: host unreachable`, { cause: error });
    case 'ECONNRESET':
    case 'EPIPE':
      // A Fabric-style server drops the connection, without an alert, when a presented client
      // certificate fails verification.
      if (tls && presentedCertificate) {
        return new OpsctlError(
          'TLS',
          `${origin}: the server rejected the client certificate (it closed the connection; the certificate must chain to its clientRootCAs, be within its validity period and allow clientAuth; the server's "TLS handshake error" line names the certificate and the reason)`,
          { cause: error },
        );
      }
      // Our server, judging certificates as Go does, ends the connection right after the
      // handshake when it demands a certificate and none came.
      if (tls && afterHandshake) {
        return new OpsctlError('TLS', `${origin}: client certificate required: the server closed the connection after the TLS handshake (pass --cert and --key)`, { cause: error });
      }
      return tls
        ? new OpsctlError('TLS', `${origin}: the server closed the connection during TLS`, { cause: error })
        : new OpsctlError('UNREACHABLE', `${origin}: the server closed the connection (does it require TLS? pass --cacert)`, { cause: error });
    case 'HPE_INVALID_CONSTANT':
    case 'HPE_INVALID_VERSION':
      return new OpsctlError('TLS', `${origin}: the answer is not HTTP; the server probably requires TLS (pass --cacert)`, { cause: error });
    default:
      return new OpsctlError('UNREACHABLE', `${origin}: ${error.message}`, { cause: error });
  }
}

/** Reads the TLS files once and returns a client for one operations server. */
export async function createOpsClient(options: ConnectionOptions, limits: RequestLimits = {}): Promise<OpsClient> {
  const material = options.tls ? await readTlsMaterial(options) : {};
  return openOpsClient(options, material, limits);
}

/** A client for one operations server with TLS material already read (shared across a fleet). */
export function openOpsClient(options: ConnectionOptions, material: TlsMaterial, limits: RequestLimits = {}): OpsClient {
  const trustSource = material.ca !== undefined ? (limits.caName ?? (options.caFile !== undefined ? `--cacert ${options.caFile}` : undefined)) : undefined;
  const { host, port } = parseDialAddress(options.address);
  const origin = `${options.tls ? 'https' : 'http'}://${options.address}`;
  const send = options.tls ? httpsRequest : httpRequest;
  const maxBytes = limits.maxResponseBytes ?? MAX_RESPONSE_BYTES;

  const request = (method: 'GET' | 'PUT', path: string, body?: string, perRequest: { readonly timeoutMs?: number } = {}): Promise<OpsResponse> =>
    new Promise<OpsResponse>((resolve, reject) => {
      const timeoutMs = perRequest.timeoutMs ?? options.timeoutMs;
      const seconds = `${timeoutMs / 1000}s`;
      let settled = false;
      let stage: 'connection' | 'TLS handshake' | 'answer' = 'connection';
      let answering = false;
      let answerBytes = 0;
      let status: number | undefined;
      let wholeTimer: NodeJS.Timeout | undefined;
      const onAbort = () => req.destroy(Object.assign(new Error('--deadline passed before the answer'), { code: 'OPSCTL_DEADLINE' }));
      const finish = () => {
        settled = true;
        if (wholeTimer !== undefined) clearTimeout(wholeTimer);
        limits.signal?.removeEventListener('abort', onAbort);
      };
      const fail = (error: NodeJS.ErrnoException) => {
        if (settled) return;
        finish();
        reject(
          describeFailure(error, origin, {
            tls: options.tls,
            presentedCertificate: material.cert !== undefined,
            afterHandshake: stage === 'answer',
            answerStarted: answerBytes > 0,
            ...(status !== undefined ? { status } : {}),
            ...(trustSource !== undefined ? { trustSource } : {}),
          }),
        );
      };
      const req = send(
        {
          host: dialHost(host),
          port,
          path,
          method,
          agent: false,
          headers: {
            'User-Agent': 'opsctl',
            ...(body !== undefined ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } : {}),
          },
          ...(options.tls ? { ...material, minVersion: 'TLSv1.2' as const, ...(options.serverName !== undefined ? { servername: options.serverName } : {}) } : {}),
        },
        (res) => {
          answering = true;
          status = res.statusCode;
          // With a Content-Length the answer goes straight into one buffer of that size, so the
          // chunks are garbage as soon as they are copied and no second copy is made at the end.
          // Bounded by maxBytes; pages of an unfilled allocUnsafe buffer are never made resident.
          const declared = Number(res.headers['content-length']);
          let whole = Number.isSafeInteger(declared) && declared > 0 && declared <= maxBytes ? Buffer.allocUnsafe(declared) : undefined;
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            if (size + chunk.length > maxBytes) {
              req.destroy();
              if (!settled) {
                finish();
                reject(new OpsctlError('UNEXPECTED_RESPONSE', `${origin}${path}: response larger than ${maxBytes} bytes`));
              }
              return;
            }
            if (whole !== undefined && size + chunk.length <= whole.length) chunk.copy(whole, size);
            else {
              // More than declared (HTTP parsers refuse that), or no length given: keep the chunks.
              if (whole !== undefined) chunks.push(whole.subarray(0, size));
              whole = undefined;
              chunks.push(chunk);
            }
            size += chunk.length;
          });
          res.on('end', () => {
            if (settled) return;
            finish();
            const bytes = whole !== undefined ? whole.subarray(0, size) : Buffer.concat(chunks, size);
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: bytes.toString('utf8') });
          });
          res.on('error', fail);
        },
      );
      req.on('socket', (socket) => {
        socket.once('connect', () => {
          if (stage === 'connection') stage = options.tls ? 'TLS handshake' : 'answer';
        });
        socket.once('secureConnect', () => (stage = 'answer'));
        // Any byte of the answer (decrypted, with TLS): a reset after it is not a TLS problem.
        const counted = (chunk: Buffer) => {
          answerBytes += chunk.length;
          if (answerBytes > 0) socket.off('data', counted);
        };
        socket.on('data', counted);
      });
      // One bound from connecting to the last byte, not socket idle time: a server that drips its
      // answer (or its TLS handshake) a byte at a time never goes idle.
      wholeTimer = setTimeout(() => {
        req.destroy(Object.assign(new Error(`no ${stage === 'answer' && answering ? 'complete answer' : stage} within ${seconds}`), { code: 'OPSCTL_TIMEOUT' }));
      }, timeoutMs);
      if (limits.signal !== undefined) {
        if (limits.signal.aborted) onAbort();
        else limits.signal.addEventListener('abort', onAbort, { once: true });
      }
      req.on('error', fail);
      req.end(body);
    });

  return { request, origin };
}
