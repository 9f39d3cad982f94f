import { execFileSync } from 'node:child_process';
import type { Options } from 'tsup';

function commitSha(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short=7', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

/** One build recipe for every package: ESM + CJS + declarations, dependencies left external. */
export function packageBuild(entry: Record<string, string> = { index: 'src/index.ts' }, extra: Partial<Options> = {}): Options {
  return {
    entry,
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node20',
    platform: 'node',
    splitting: false,
    treeshake: true,
    // import.meta.url in the CommonJS build (apps locate their sample config with it)
    shims: true,
    define: { __FABRIC_OPS_COMMIT_SHA__: JSON.stringify(process.env['FABRIC_OPS_BUILD_COMMIT'] ?? commitSha()) },
    ...extra,
  };
}
