// Go's wording and Go's readings, for the fabric-ops packages that print or parse what Fabric's
// Go code does: Duration and host:port texts, a request target read as Go's URL.Path/RawQuery,
// and the server's answers to requests Node's parser refuses. A separate entry so that the index
// stays what an embedder's handlers call; none of it loads node:http.
export { formatGoDuration, formatHostPort, formatRemoteAddress, goErrnoText, splitHostPort } from './internal/go-text.ts';
export type { HostPort, HostPortProblem } from './internal/go-text.ts';
export { parseRequestTarget } from './internal/path.ts';
export { answerClientErrorAsGo } from './internal/go-errors.ts';
