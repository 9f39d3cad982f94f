// `http_request_duration_seconds` for an application's own HTTP server (Express, Fastify, node:http):
// an adapter, so the main entry carries none of it.
export { createRequestMetrics } from './internal/request-metrics.ts';
export type { RequestMetrics, RequestMetricsOptions } from './internal/request-metrics.ts';
