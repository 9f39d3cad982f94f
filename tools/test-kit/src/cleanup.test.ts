import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { scratchDir, useCleanup } from './cleanup.ts';

// The second test reads what the hook did after the first one (vitest runs a file's tests in order).
describe('useCleanup', () => {
  const defer = useCleanup();
  const ran: string[] = [];
  let dir = '';

  it('defers work to the end of the test', async () => {
    dir = scratchDir(defer, 'test-kit-cleanup-');
    defer(() => void ran.push('first deferred'));
    defer(async () => {
      await new Promise((r) => setTimeout(r, 5));
      ran.push('second deferred');
    });
    expect(existsSync(dir)).toBe(true);
    expect(ran).toEqual([]);
  });

  it('ran it newest first, each awaited, and removed the scratch directory', () => {
    expect(ran).toEqual(['second deferred', 'first deferred']);
    expect(existsSync(dir)).toBe(false);
  });
});
