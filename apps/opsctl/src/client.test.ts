import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { describeFailure, describeTlsFailure, openOpsClient } from './client.ts';

const failure = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('describeTlsFailure', () => {
  it('turns TLS alerts into what the operator should do', () => {
    expect(describeTlsFailure('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', '')).toContain('client certificate required');
    expect(describeTlsFailure('ERR_SSL_TLSV1_ALERT_UNKNOWN_CA', '')).toContain('unknown certificate authority');
    expect(describeTlsFailure('SELF_SIGNED_CERT_IN_CHAIN', 'self-signed certificate in certificate chain')).toBe(
      'server certificate not trusted (self-signed certificate in certificate chain); pass the operations CA with --cacert',
    );
    expect(describeTlsFailure('ERR_TLS_CERT_ALTNAME_INVALID', "IP: 10.0.0.1 is not in the cert's list")).toContain('use --server-name');
  });

  it('reads the reason of a bare EPROTO from its OpenSSL message', () => {
    const message = 'write EPROTO 80CC8B46C77F0000:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/openssl/openssl/ssl/record/ssl3_record.c:350:';
    expect(describeTlsFailure('EPROTO', message)).toBe('TLS handshake failed: the server does not speak TLS (drop --tls/--cacert/--cert)');
    expect(describeTlsFailure('EPROTO', 'error:0A00045C:SSL routines::tlsv13 alert certificate required')).toContain('client certificate required');
    expect(describeTlsFailure('EPROTO', 'error:0A000999:SSL routines:some_function:something new:x.c:1:')).toBe('TLS handshake failed: something new');
  });

  it('leaves non-TLS failures alone', () => {
    expect(describeTlsFailure('ECONNREFUSED', 'connect ECONNREFUSED')).toBeUndefined();
  });
});

describe('describeFailure', () => {
  const origin = 'https://127.0.0.1:9443';

  it('maps each failure to one line and a code', () => {
    expect(describeFailure(failure('ECONNREFUSED'), origin, { tls: true })).toMatchObject({
      code: 'UNREACHABLE',
      message: `${origin}: connection refused (is the operations server running on that address?)`,
    });
    expect(describeFailure(failure('ENOTFOUND'), origin, { tls: false })).toMatchObject({ code: 'UNREACHABLE', message: `${origin}: cannot resolve the host name` });
    expect(describeFailure(failure('OPSCTL_TIMEOUT', 'no answer within 2s'), origin, { tls: false })).toMatchObject({ code: 'UNREACHABLE', message: `${origin}: no answer within 2s` });
    expect(describeFailure(failure('ERR_SSL_TLSV1_ALERT_UNKNOWN_CA'), origin, { tls: true }).code).toBe('TLS');
    expect(describeFailure(failure('HPE_INVALID_CONSTANT'), origin, { tls: false })).toMatchObject({
      code: 'TLS',
      message: `${origin}: the answer is not HTTP; the server probably requires TLS (pass --cacert)`,
    });
  });

  it('blames the client certificate for a dropped TLS connection only when one was presented', () => {
    expect(describeFailure(failure('ECONNRESET'), origin, { tls: true, presentedCertificate: true }).message).toContain(
      'the server rejected the client certificate (it closed the connection; the certificate must chain to its clientRootCAs, be within its validity period and allow clientAuth; the server\'s "TLS handshake error" line names the certificate and the reason)',
    );
    expect(describeFailure(failure('ECONNRESET'), origin, { tls: true }).message).toBe(`${origin}: the server closed the connection during TLS`);
    expect(describeFailure(failure('ECONNRESET'), origin, { tls: true, afterHandshake: true })).toMatchObject({
      code: 'TLS',
      message: `${origin}: client certificate required: the server closed the connection after the TLS handshake (pass --cert and --key)`,
    });
    expect(describeFailure(failure('ECONNRESET'), origin, { tls: false })).toMatchObject({
      code: 'UNREACHABLE',
      message: `${origin}: the server closed the connection (does it require TLS? pass --cacert)`,
    });
  });
});

describe('openOpsClient limits', () => {
  async function dripServer(): Promise<{ address: string; close(): Promise<void> }> {
    const timers = new Set<NodeJS.Timeout>();
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      // Keeps the socket busy forever: an idle timeout never fires, a whole-request one must.
      const timer = setInterval(() => res.write(' '), 20);
      timers.add(timer);
      res.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      address: `127.0.0.1:${(server.address() as { port: number }).port}`,
      close: () => {
        for (const timer of timers) clearInterval(timer);
        server.closeAllConnections();
        return new Promise((resolve) => server.close(() => resolve()));
      },
    };
  }

  it('counts --timeout over the whole request, and caps the answer size', async () => {
    const server = await dripServer();
    try {
      const client = openOpsClient({ address: server.address, tls: false, timeoutMs: 300 }, {});
      await expect(client.request('GET', '/healthz')).rejects.toMatchObject({ code: 'UNREACHABLE', message: `http://${server.address}: no complete answer within 0.3s` });
      const capped = openOpsClient({ address: server.address, tls: false, timeoutMs: 5_000 }, {}, { maxResponseBytes: 10 });
      await expect(capped.request('GET', '/healthz')).rejects.toMatchObject({ code: 'UNEXPECTED_RESPONSE', message: `http://${server.address}/healthz: response larger than 10 bytes` });
    } finally {
      await server.close();
    }
  });

  it('gives up when the signal aborts', async () => {
    const server = await dripServer();
    try {
      const deadline = new AbortController();
      const pending = openOpsClient({ address: server.address, tls: false, timeoutMs: 5_000 }, {}, { signal: deadline.signal }).request('GET', '/healthz');
      setTimeout(() => deadline.abort(), 50);
      await expect(pending).rejects.toMatchObject({ message: `http://${server.address}: --deadline passed before the answer` });
    } finally {
      await server.close();
    }
  });
});
