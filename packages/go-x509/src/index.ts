export { createClientTrustPool, verifyClientChain, verifyClientChainUntil } from './internal/x509/client-chain.ts';
export type { ClientChainVerdict, ClientTrustPool, TimedClientChainVerdict } from './internal/x509/client-chain.ts';
export { certificateMessageLength, clientCertificateMessageProblem, MAX_HANDSHAKE_MESSAGE_BYTES } from './internal/certificate-message.ts';
