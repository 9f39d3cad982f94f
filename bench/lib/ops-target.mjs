// The peer's operations system composed as apps/peer does (TLS with client certificates,
// prometheus, the docker checker), plus `extraSeries` labelled counter series, so /metrics can be
// measured at 1,000 and 10,000 more series. Run as its own process: node ops-target.mjs '<json>'.
import { DOCKER_COMPONENT, dockerChecker } from '@fabric-ops/ops-health';
import { createOperationsSystem } from '@fabric-ops/ops-server';

const { certFile, keyFile, caFile, runtimeEndpoint, extraSeries } = JSON.parse(process.argv[2]);
const system = createOperationsSystem({
  listenAddress: '127.0.0.1:0',
  version: { version: '0.0.0-bench', commitSHA: 'bench00' },
  tls: { enabled: true, certFile, keyFile, clientAuthRequired: false, clientRootCAs: [caFile] },
  metrics: { provider: 'prometheus', statsd: { network: 'udp', address: '127.0.0.1:8125', writeIntervalMs: 10_000, prefix: '' }, prometheus: { maxSeriesPerMetric: 100_000 } },
});
system.registerChecker(DOCKER_COMPONENT, dockerChecker(runtimeEndpoint));
const families = 10;
const counters = Array.from({ length: families }, (_, i) =>
  system.metrics.newCounter({ namespace: 'bench', subsystem: 'extra', name: `requests_${i}`, help: 'Synthetic series for the scrape benchmark.', labelNames: ['channel', 'chaincode'] }),
);
for (let i = 0; i < extraSeries; i++) {
  counters[i % families].with('channel', `channel${i % 97}`, 'chaincode', `cc${i}`).add(i);
}
await system.start();
process.stdout.write(`listening on ${system.address()}\n`);
process.on('SIGTERM', () => system.stop().then(() => process.exit(0)));
