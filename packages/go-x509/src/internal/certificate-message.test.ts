import { describe, expect, it } from 'vitest';
import { certificateMessageLength, clientCertificateMessageProblem, oversizeReason } from './certificate-message.ts';

describe('the Certificate-message rule', () => {
  it('counts TLS 1.3 request context and per-entry extensions', () => {
    const list = [new Uint8Array(1000), new Uint8Array(500)];
    expect(certificateMessageLength(list, false)).toBe(3 + 3 + 1000 + 3 + 500);
    expect(certificateMessageLength(list, true)).toBe(1 + 3 + 3 + 1000 + 2 + 3 + 500 + 2);
  });
  it("answers with Go's error text past the limit", () => {
    expect(oversizeReason(300_000)).toBe('tls: handshake message of length 300000 bytes exceeds maximum of 262144 bytes');
    expect(clientCertificateMessageProblem([new Uint8Array(262_144 - 8)], 'TLSv1.3')).toBeDefined();
    expect(clientCertificateMessageProblem([new Uint8Array(262_144 - 6)], 'TLSv1.2')).toBeUndefined();
  });
  it('admits a 64-256 KiB message, which Go 1.19 refused (Go 1.25 raised the Certificate limit to 256 KiB)', () => {
    expect(clientCertificateMessageProblem([new Uint8Array(100_000)], 'TLSv1.3')).toBeUndefined();
  });
});
