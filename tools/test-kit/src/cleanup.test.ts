import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { describe, expect, it } from 'vitest';
import { listenOnLoopback, scratchDir, useCleanup } from './cleanup.ts';

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

describe('listenOnLoopback', () => {
  const defer = useCleanup();
  let server: Server | undefined;

  it('serves on a free loopback port until the test ends', async () => {
    server = createServer((_req, res) => res.end('hello'));
    const port = await listenOnLoopback(defer, server);
    expect(server.address()).toMatchObject({ address: '127.0.0.1', port });
    expect(await fetch(`http://127.0.0.1:${port}/`).then((r) => r.text())).toBe('hello');
  });

  it('closed it when the test ended', () => {
    expect(server?.listening).toBe(false);
  });
});
