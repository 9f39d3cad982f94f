import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

/** Defers `cleanup` to the end of the current test. */
export type Defer = (cleanup: () => unknown) => void;

/**
 * Registers the hook that runs, after each test, what the test deferred: newest first (a server
 * closes before the directory it served from goes), each awaited, every one run even when one throws.
 */
export function useCleanup(): Defer {
  const pending: (() => unknown)[] = [];
  afterEach(async () => {
    const failures: unknown[] = [];
    for (const cleanup of pending.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length > 0) throw failures.length === 1 ? failures[0] : new AggregateError(failures, 'test cleanups failed');
  });
  return (cleanup) => void pending.push(cleanup);
}

/** A new temp directory (named `<prefix>…`), removed when `defer`'s test ends. */
export function scratchDir(defer: Defer, prefix = 'fabric-ops-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Starts `server` on a free loopback port and resolves with the port; when `defer`'s test ends,
 * its connections are cut and it is closed.
 */
export async function listenOnLoopback(defer: Defer, server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  defer(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return (server.address() as AddressInfo).port;
}
