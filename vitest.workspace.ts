// The list of test projects. vitest 4 no longer reads workspace files by itself:
// vitest.config.ts passes this list to `test.projects`.
export const projects: string[] = [
  'packages/go-x509',
  'packages/ops-http',
  'packages/ops-config',
  'packages/ops-logspec',
  'packages/ops-health',
  'packages/ops-metrics',
  'packages/ops-tls-auth',
  'apps/ops-server',
  'apps/peer',
  'apps/orderer',
  'apps/opsctl',
  'tools/consumer-test',
  'tools/docs-test',
  'tools/test-kit',
  'tools/x509-oracle',
];
