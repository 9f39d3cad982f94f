// The page `--print-config` prints, written out once per app with every value at its default, so
// that a test states only what its file and environment change (and the page is still compared
// whole, to the byte).

const PEER_DEFAULTS = [
  'operations:',
  '  listenAddress: "127.0.0.1:9443"  # default',
  '  tls:',
  '    enabled: false  # default',
  '    cert:',
  '      file: ""  # default',
  '    key:',
  '      file: ""  # default',
  '    clientAuthRequired: false  # default',
  '    clientRootCAs:',
  '      files: []  # default',
  '  health:',
  '    checkTimeout: "5s"  # default',
  '    cacheTTL: "0s"  # default',
  '    checkInterval: "0s"  # default',
  'metrics:',
  '  provider: "disabled"  # default',
  '  statsd:',
  '    network: "udp"  # default',
  '    address: "127.0.0.1:8125"  # default',
  '    writeInterval: "10s"  # default',
  '    prefix: ""  # default',
  '  otlp:',
  '    enabled: false  # default',
  '    endpoint: "http://localhost:4318/v1/metrics"  # default',
  '    headers: ""  # default',
  '    timeout: "10s"  # default',
  '    interval: "1m0s"  # default',
  'vm:',
  '  endpoint: "unix:///var/run/docker.sock"  # default',
];

const ORDERER_DEFAULTS = [
  'Operations:',
  '  ListenAddress: "127.0.0.1:8443"  # default',
  '  TLS:',
  '    Enabled: false  # default',
  '    Certificate: ""  # default',
  '    PrivateKey: ""  # default',
  '    ClientAuthRequired: false  # default',
  '    ClientRootCAs: []  # default',
  '  Health:',
  '    CheckTimeout: "5s"  # default',
  '    CacheTTL: "0s"  # default',
  '    CheckInterval: "0s"  # default',
  'Metrics:',
  '  Provider: "disabled"  # default',
  '  Statsd:',
  '    Network: "udp"  # default',
  '    Address: "127.0.0.1:8125"  # default',
  '    WriteInterval: "30s"  # default',
  '    Prefix: ""  # default',
  '  OTLP:',
  '    Enabled: false  # default',
  '    Endpoint: "http://localhost:4318/v1/metrics"  # default',
  '    Headers: ""  # default',
  '    Timeout: "10s"  # default',
  '    Interval: "1m0s"  # default',
];

/**
 * The whole page `--print-config` prints for `app` after reading `file`: each value at its
 * default except those in `changed`, keyed by the dotted path as printed
 * (`operations.tls.clientRootCAs.files`, `Metrics.Statsd.WriteInterval`), each given as the rest
 * of its line (`"127.0.0.1:9443"  # file`). A key the page does not have throws.
 */
export function effectiveConfigPage(app: 'peer' | 'orderer', file: string, changed: Readonly<Record<string, string>> = {}): string {
  const unused = new Set(Object.keys(changed));
  const path: string[] = [];
  const body = (app === 'peer' ? PEER_DEFAULTS : ORDERER_DEFAULTS).map((line) => {
    const depth = (line.length - line.trimStart().length) / 2;
    const key = line.trimStart().slice(0, line.trimStart().indexOf(':'));
    path.length = depth;
    path.push(key);
    const dotted = path.join('.');
    if (line.endsWith(':') || !(dotted in changed)) return line;
    unused.delete(dotted);
    return `${line.slice(0, line.indexOf(':') + 1)} ${changed[dotted]}`;
  });
  if (unused.size > 0) throw new Error(`effectiveConfigPage(${app}): no such key ${[...unused].join(', ')}`);
  return [`# effective ${app} configuration, read from ${file}`, '# each value is followed by where it came from: default, file, or env <VARIABLE>', ...body, ''].join('\n');
}
