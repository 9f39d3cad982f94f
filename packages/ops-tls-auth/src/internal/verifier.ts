// The one place the TLS server's worker takes its verifier from: Go 1.19's crypto/tls +
// crypto/x509 decision on the whole list the client sent (see x509/).
export { createClientTrustPool, verifyClientChain } from './x509/client-chain.ts';
export type { ClientChainVerdict as ChainVerdict, ClientTrustPool } from './x509/client-chain.ts';
