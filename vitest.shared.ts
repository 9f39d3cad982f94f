import { execFileSync } from 'node:child_process';
import { defineProject } from 'vitest/config';

// Tests resolve workspace packages through this export condition, which points at
// `src/`, so nothing needs to be built before a test run.
const sourceConditions = ['@fabric-ops/source', 'node', 'import', 'module', 'default'];

function commitSha(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short=7', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

/** Build-time constants that tsup injects into `dist/`; tests get the same values. */
export const buildDefines = {
  __FABRIC_OPS_COMMIT_SHA__: JSON.stringify(commitSha()),
};

export function packageProject(name: string, options: { testTimeout?: number; include?: string[] } = {}) {
  return defineProject({
    define: buildDefines,
    resolve: { conditions: sourceConditions },
    ssr: { resolve: { conditions: sourceConditions, externalConditions: ['@fabric-ops/source'] } },
    test: {
      name,
      environment: 'node',
      include: options.include ?? ['src/**/*.test.ts', 'test/**/*.test.ts'],
      testTimeout: options.testTimeout ?? 10_000,
      hookTimeout: 60_000,
    },
  });
}
