/**
 * Go's `maxHandshakeCertificateMsg` (Go 1.25+; 256 KiB): a client Certificate message body longer
 * than this fails the handshake (every other handshake message keeps the 64 KiB `maxHandshake`).
 */
export const MAX_HANDSHAKE_MESSAGE_BYTES = 262_144;

/**
 * The body length of the client's Certificate message carrying `list` (TLS 1.3 adds a request
 * context byte and an empty extensions field per entry). Used where only the certificates, not
 * the message, are at hand.
 */
export function certificateMessageLength(list: readonly Uint8Array[], tls13: boolean): number {
  let length = tls13 ? 1 + 3 : 3;
  for (const der of list) length += 3 + der.length + (tls13 ? 2 : 0);
  return length;
}

/**
 * crypto/tls's rule before any certificate is parsed: a client Certificate message whose body
 * is longer than 262,144 bytes fails the handshake. `list` is what the client sent, leaf first;
 * the answer is Go's error text, or undefined when the message is within the limit.
 */
export function clientCertificateMessageProblem(list: readonly Uint8Array[], protocol: 'TLSv1.2' | 'TLSv1.3'): string | undefined {
  const length = certificateMessageLength(list, protocol === 'TLSv1.3');
  return length > MAX_HANDSHAKE_MESSAGE_BYTES ? oversizeReason(length) : undefined;
}

/** Go's error for an oversized handshake message. */
export function oversizeReason(length: number): string {
  return `tls: handshake message of length ${length} bytes exceeds maximum of ${MAX_HANDSHAKE_MESSAGE_BYTES} bytes`;
}
