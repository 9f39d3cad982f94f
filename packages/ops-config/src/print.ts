import { formatGoDuration } from './go-values.ts';
import { dialectFor, type SettingRole } from './keys.ts';
import type { LoadedConfig, OrdererConfig, PeerConfig } from './load.ts';
import type { ValueSource } from './resolve.ts';

function valueOf(config: PeerConfig | OrdererConfig, role: SettingRole): string {
  const { operations, metrics } = config;
  const quoted = (text: string) => JSON.stringify(text);
  switch (role) {
    case 'listenAddress':
      return quoted(operations.listenAddress);
    case 'tls.enabled':
      return String(operations.tls.enabled);
    case 'tls.certFile':
      return quoted(operations.tls.certFile);
    case 'tls.keyFile':
      return quoted(operations.tls.keyFile);
    case 'tls.clientAuthRequired':
      return String(operations.tls.clientAuthRequired);
    case 'tls.clientRootCAs':
      return `[${operations.tls.clientRootCAs.map(quoted).join(', ')}]`;
    case 'metrics.provider':
      return quoted(metrics.provider);
    case 'statsd.network':
      return quoted(metrics.statsd.network);
    case 'statsd.address':
      return quoted(metrics.statsd.address);
    case 'statsd.writeInterval':
      return quoted(formatGoDuration(metrics.statsd.writeIntervalMs * 1e6));
    case 'statsd.prefix':
      return quoted(metrics.statsd.prefix);
    case 'vm.endpoint':
      return quoted('vm' in config ? config.vm.endpoint : '');
  }
}

function describeSource(source: ValueSource | undefined): string {
  if (source === undefined || source.from === 'default') return 'default';
  return source.from === 'file' ? 'file' : `env ${source.variable}`;
}

/**
 * The effective configuration as YAML in the file's own layout, each value followed by a
 * comment saying where it came from (`# default`, `# file`, `# env CORE_…`). Strings are
 * double-quoted, so the output loads back as the same configuration.
 */
export function renderEffectiveConfig(loaded: LoadedConfig<PeerConfig> | LoadedConfig<OrdererConfig>): string {
  const dialect = dialectFor(loaded.app);
  const lines = [
    `# effective ${loaded.app} configuration, read from ${loaded.file}`,
    '# each value is followed by where it came from: default, file, or env <VARIABLE>',
  ];
  const opened: string[] = [];
  for (const spec of dialect.keys) {
    const parents = spec.path.slice(0, -1);
    let depth = 0;
    while (depth < opened.length && depth < parents.length && opened[depth] === parents[depth]) depth += 1;
    opened.length = depth;
    for (; depth < parents.length; depth += 1) {
      lines.push(`${'  '.repeat(depth)}${parents[depth]}:`);
      opened.push(parents[depth]!);
    }
    const name = spec.path[spec.path.length - 1]!;
    lines.push(`${'  '.repeat(parents.length)}${name}: ${valueOf(loaded.config, spec.role)}  # ${describeSource(loaded.sources[spec.key])}`);
  }
  return `${lines.join('\n')}\n`;
}
