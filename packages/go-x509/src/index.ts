export { clientTrustPoolSteps, createClientTrustPool, verifyClientChain, verifyClientChainUntil, verifyClientChainWithin } from './internal/x509/client-chain.ts';
export type { ClientChainVerdict, ClientTrustPool, SignatureLimits, TimedClientChainVerdict } from './internal/x509/client-chain.ts';
export { certificateMessageLength, clientCertificateMessageProblem, MAX_HANDSHAKE_MESSAGE_BYTES } from './internal/certificate-message.ts';
export { parseCertificate } from './internal/x509/certificate.ts';
export type { Certificate } from './internal/x509/certificate.ts';
