// Builds bench/go-hello (standard library only) with the installed Go toolchain, offline, into a
// cache under the system temp dir so later runs rebuild in a second. Resolves the binary's path and
// the Go version, or { error } when Go is missing or the build fails: the bench then runs without Go.
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const source = fileURLToPath(new URL('../go-hello/', import.meta.url));

function run(command, args, options) {
  return new Promise((resolve) => {
    execFile(command, args, { encoding: 'utf8', maxBuffer: 4 << 20, ...options }, (error, stdout, stderr) => resolve({ ok: !error, stdout, stderr, error }));
  });
}

/** Builds the Go baseline into `outDir`. */
export async function buildGoHello(outDir) {
  const home = join(tmpdir(), 'fabric-ops-bench-go');
  mkdirSync(home, { recursive: true });
  const env = {
    ...process.env,
    GOCACHE: join(home, 'cache'),
    GOPATH: join(home, 'gopath'),
    GOPROXY: 'off',
    GOFLAGS: '',
    CGO_ENABLED: '0',
    GO111MODULE: 'on',
  };
  const version = await run('go', ['version'], { env });
  if (!version.ok) {
    return { error: version.error?.code === 'ENOENT' ? 'go is not installed (scripts/bench-deps.sh installs golang-go)' : `go version failed: ${version.stderr.trim()}` };
  }
  const binary = join(outDir, 'go-hello');
  const build = await run('go', ['build', '-trimpath', '-o', binary, '.'], { cwd: source, env });
  if (!build.ok) return { error: `go build failed: ${build.stderr.trim() || build.error?.message}` };
  return { binary, version: version.stdout.trim().replace(/^go version /, '') };
}
