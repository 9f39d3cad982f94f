// Go's wording, for the fabric-ops packages that print what Fabric's Go code prints. A separate
// entry so that the index stays what an embedder's handlers call.
export { formatGoDuration, formatHostPort, formatRemoteAddress, goErrnoText, splitHostPort } from './internal/go-text.ts';
export type { HostPort, HostPortProblem } from './internal/go-text.ts';
