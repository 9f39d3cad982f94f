import { describe, expect, it } from 'vitest';
import { FABRIC_TLS12_CIPHERS, secureContextOptions, tlsServerOptions } from './options.ts';

const credentials = { cert: 'CERT', key: 'KEY', ca: ['CA1', 'CA2'] };

describe('tlsServerOptions', () => {
  it("is TLS 1.2+ with Go's TLS 1.3 suites and Fabric's six GCM suites in Fabric's order", () => {
    const options = tlsServerOptions(credentials, 10_000);
    expect(options.minVersion).toBe('TLSv1.2');
    expect(options.maxVersion).toBeUndefined();
    expect(options.ciphers).toBe(
      'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:' +
        'ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:AES128-GCM-SHA256:AES256-GCM-SHA384',
    );
    expect(FABRIC_TLS12_CIPHERS).toHaveLength(6);
    expect(options.honorCipherOrder).toBe(true);
  });

  it('offers only http/1.1, always asks for a client certificate, leaves the verdict to JavaScript, bounds the handshake', () => {
    expect(tlsServerOptions(credentials, 7_000)).toMatchObject({ ALPNProtocols: ['http/1.1'], requestCert: true, rejectUnauthorized: false, handshakeTimeout: 7_000 });
  });

  it('passes the credentials, and an empty CA list as a list (never the public roots)', () => {
    expect(secureContextOptions(credentials)).toMatchObject({ cert: 'CERT', key: 'KEY', ca: ['CA1', 'CA2'] });
    expect(secureContextOptions({ ...credentials, ca: [] }).ca).toEqual([]);
  });
});
