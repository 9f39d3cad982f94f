import { splitHostPort, type HostPort } from '@fabric-ops/ops-http/go';
import { ConfigError } from './errors.ts';

export type { HostPort } from '@fabric-ops/ops-http/go';

/**
 * ops-http's `splitHostPort` (Go's `net.SplitHostPort` and port rules, Go's error texts) as a
 * setting needs it: throws a ConfigError whose one problem is Go's text.
 */
export function parseHostPort(address: string): HostPort {
  const split = splitHostPort(address);
  if ('problem' in split) throw new ConfigError('CONFIG_INVALID', [split.problem]);
  return split;
}
