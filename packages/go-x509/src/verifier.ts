// What a TLS server's verifier runs around the decision: verdicts on client chains taken on the
// calling thread when cheap, else on worker threads started when needed (a bounded queue ranked
// so no unauthenticated sender gets ahead, budgets, a verdict cache); which PEM certificates
// OpenSSL can load, on a short-lived thread (a CA reload's parse).
// No I/O beyond node:worker_threads; the worker script ships beside this entry (dist/verifier-worker.*).
export { createChainJudge, DEFAULT_INLINE_LIMITS } from './internal/verifier/judge.ts';
export type { ChainJudge, ChainJudgeOptions, InlineLimits, JudgeRequest, Verdict } from './internal/verifier/judge.ts';
export { sha256Base64 } from './internal/verifier/verdict-cache.ts';
export { certificateLoads, loadableCertificates } from './internal/verifier/loadable.ts';
