import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readRegularFileSync, shownPath } from '@fabric-ops/ops-http/fs';

const dir = mkdtempSync(join(tmpdir(), 'ops-http-fs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fifo(name: string): string {
  const path = join(dir, name);
  execFileSync('mkfifo', [path]);
  return path;
}

describe('readRegularFileSync', () => {
  it('reads a regular file whole, also one exactly at the bound', () => {
    const path = join(dir, 'ok.pem');
    writeFileSync(path, 'x'.repeat(100));
    const read = readRegularFileSync(path, { maxBytes: 100 });
    expect(read.ok && read.bytes.toString()).toBe('x'.repeat(100));
    const big = join(dir, 'big');
    writeFileSync(big, Buffer.alloc(300_000, 'y'));
    const whole = readRegularFileSync(big);
    expect(whole.ok && whole.bytes.length).toBe(300_000);
  });

  it('refuses a FIFO without waiting for a writer, through a symlink too', () => {
    const path = fifo('pipe');
    const link = join(dir, 'pipe-link');
    symlinkSync(path, link);
    for (const target of [path, link]) {
      expect(readRegularFileSync(target)).toEqual({ ok: false, problem: 'not-regular', message: `open ${target}: not a regular file (a named pipe (FIFO))` });
    }
  });

  it('refuses /dev/zero (and a symlink to it) instead of reading forever', () => {
    const link = join(dir, 'zero-link');
    symlinkSync('/dev/zero', link);
    expect(readRegularFileSync('/dev/zero')).toEqual({ ok: false, problem: 'not-regular', message: 'open /dev/zero: not a regular file (a character device)' });
    expect(readRegularFileSync(link)).toMatchObject({ ok: false, message: `open ${link}: not a regular file (a character device)` });
  });

  it('names a directory, a missing file, a symlink loop and a file too large as Go would', () => {
    const sub = join(dir, 'sub');
    mkdirSync(sub);
    expect(readRegularFileSync(sub)).toEqual({ ok: false, problem: 'not-regular', message: `read ${sub}: is a directory` });
    expect(readRegularFileSync(join(dir, 'none'))).toEqual({ ok: false, problem: 'missing', message: `open ${join(dir, 'none')}: no such file or directory` });
    const loop = join(dir, 'loop');
    symlinkSync(loop, loop);
    expect(readRegularFileSync(loop)).toEqual({ ok: false, problem: 'unreadable', message: `open ${loop}: too many levels of symbolic links` });
    const sparse = join(dir, 'sparse');
    writeFileSync(sparse, '');
    truncateSync(sparse, 2 ** 31);
    expect(readRegularFileSync(sparse, { maxBytes: 1024 })).toEqual({ ok: false, problem: 'too-large', message: `read ${sparse}: larger than 1024 bytes` });
    const justOver = join(dir, 'over');
    writeFileSync(justOver, 'z'.repeat(101));
    expect(readRegularFileSync(justOver, { maxBytes: 100 })).toMatchObject({ ok: false, problem: 'too-large' });
  });

  it('reads a /proc file, whose size says 0, whole', () => {
    const read = readRegularFileSync('/proc/self/status');
    expect(read.ok).toBe(true);
    expect(read.ok && read.bytes.toString()).toMatch(/^Name:/);
  });

  it('refuses a /proc file that says 0 but holds more than the bound, having read at most bound + 1 bytes', () => {
    expect(readRegularFileSync('/proc/self/status', { maxBytes: 16 })).toEqual({ ok: false, problem: 'too-large', message: 'read /proc/self/status: larger than 16 bytes' });
  });

  it('cuts a long path and quotes one with control characters', () => {
    const long = `/${'a'.repeat(100_000)}`;
    const result = readRegularFileSync(long);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message.length).toBeLessThan(400);
    expect(!result.ok && result.message).toMatch(/^open "\/a+…": file name too long$/);
    expect(shownPath('/tmp/a\nb')).toBe('"/tmp/a\\nb"');
  });
});
