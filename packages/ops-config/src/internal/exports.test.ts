import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

describe('package exports', () => {
  it('blocks the internals: only the index is importable', () => {
    const require = createRequire(import.meta.url);
    expect(() => require.resolve('@fabric-ops/ops-config/internal/load.js')).toThrow(/not defined by "exports"/);
    expect(require.resolve('@fabric-ops/ops-config')).toMatch(/index\.(ts|cjs)$/);
  });
});
