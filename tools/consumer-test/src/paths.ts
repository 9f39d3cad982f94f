import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is tools/consumer-test/src/paths.ts). */
export const repoRoot: string = fileURLToPath(new URL('../../../', import.meta.url));

export interface PublishablePackage {
  /** Relative to the root, e.g. `packages/ops-http`. */
  readonly dir: string;
  readonly name: string;
  readonly version: string;
}

/** Every non-private package under packages/ and apps/, the set npm gets. */
export function publishablePackages(): PublishablePackage[] {
  const found: PublishablePackage[] = [];
  for (const parent of ['packages', 'apps']) {
    for (const entry of readdirSync(join(repoRoot, parent), { withFileTypes: true })) {
      const file = join(repoRoot, parent, entry.name, 'package.json');
      if (!entry.isDirectory() || !existsSync(file)) continue;
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name: string; version: string; private?: boolean };
      if (pkg.private !== true) found.push({ dir: `${parent}/${entry.name}`, name: pkg.name, version: pkg.version });
    }
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}
