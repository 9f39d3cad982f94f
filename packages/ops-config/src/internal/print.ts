import { formatGoDuration } from '@fabric-ops/ops-http/go';
import { dialectFor, type KeySpec, type SettingValue } from './keys.ts';
import type { ResolvedConfig } from './load.ts';
import type { ValueSource } from './resolve.ts';

function shown(spec: KeySpec, value: SettingValue): string {
  switch (spec.kind) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return String(value);
    case 'duration':
      return JSON.stringify(formatGoDuration(value as number));
    case 'list':
      return `[${(value as readonly string[]).map((entry) => JSON.stringify(entry)).join(', ')}]`;
  }
}

function describeSource(source: ValueSource | undefined): string {
  if (source === undefined || source.from === 'default') return 'default';
  return source.from === 'file' ? 'file' : `env ${source.variable}`;
}

/**
 * The effective configuration as YAML in the file's own layout, each value followed by a
 * comment saying where it came from (`# default`, `# file`, `# env CORE_…`). Values are shown
 * as the keys hold them (an address as text, a duration as Go writes it), so the output
 * loads back as the same configuration.
 */
export function renderEffectiveConfig({ loaded, resolution }: ResolvedConfig<unknown>): string {
  const dialect = dialectFor(loaded.app);
  const lines = [`# effective ${loaded.app} configuration, read from ${loaded.file}`, '# each value is followed by where it came from: default, file, or env <VARIABLE>'];
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
    const value = resolution.values.get(spec.role)!;
    lines.push(`${'  '.repeat(parents.length)}${name}: ${shown(spec, value)}  # ${describeSource(loaded.sources[spec.key])}`);
  }
  return `${lines.join('\n')}\n`;
}
