// The Containerfile, checked as far as this machine goes without a registry or podman: it builds
// the image the manifest names, with the peer bin as entry point and opsctl installed; the commit
// comes in as a build argument the build really reads; the base image is a build argument (the
// offline path: a local image and --pull=never, README "The image without a registry"). The
// image's ENV with each manifest container's env and mounts is run and probed in
// manifest-probes.test.ts.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { containerfile, containersOf, imageEnv, manifestDocuments } from './kit-files.ts';
import { repoRoot } from './peer.ts';

const run = promisify(execFile);
const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const stages = containerfile.split(/^(?=FROM )/m).slice(1);

describe('Containerfile', () => {
  it('builds the image the manifest names, with the peer bin as its entry point and opsctl installed', () => {
    expect(containerfile).toContain('podman build -t registry.example.com/fabric-ops-peer:0.1');
    for (const doc of manifestDocuments) for (const container of containersOf(doc)) expect(container.image).toBe('registry.example.com/fabric-ops-peer:0.1');
    const peerBins = Object.keys((JSON.parse(readFileSync(join(repoRoot, 'apps', 'peer', 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin);
    expect(containerfile).toMatch(new RegExp(`^ENTRYPOINT \\["${peerBins[0]}"\\]$`, 'm'));
    // Every packed package is installed globally, apps/opsctl (the exec probes' command) among them.
    expect(containerfile).toContain('pack --pack-destination /tmp/fabric-ops');
    expect(containerfile).toContain("--filter './apps/*'");
    expect(containerfile).toContain('npm install -g /tmp/fabric-ops/*.tgz');
    expect(imageEnv()['CORE_VM_ENDPOINT']).toBe('');
  });

  it('takes the commit as the build argument FABRIC_OPS_COMMIT_SHA and bakes it in as the build reads it', () => {
    const [build] = stages;
    expect(build).toMatch(/^ARG FABRIC_OPS_COMMIT_SHA=/m);
    // The variable tsup's define reads (tsup.shared.ts) is set from the argument for the install that builds dist/.
    const tsupShared = readFileSync(join(repoRoot, 'tsup.shared.ts'), 'utf8');
    const [, buildVariable] = /__FABRIC_OPS_COMMIT_SHA__: JSON\.stringify\(process\.env\['(\w+)'\]/.exec(tsupShared) ?? [];
    expect(buildVariable).toBe('FABRIC_OPS_BUILD_COMMIT');
    expect(build).toMatch(new RegExp(`^RUN ${buildVariable}="\\$\\{FABRIC_OPS_COMMIT_SHA\\}" pnpm install --frozen-lockfile`, 'm'));
    expect(containerfile).toContain('--build-arg FABRIC_OPS_COMMIT_SHA=');
  });

  it('names its base image by a build argument in every stage, and the README gives the offline path', () => {
    expect(containerfile).toMatch(/^ARG BASE_IMAGE=\S+$/m);
    expect(stages.map((stage) => stage.split('\n')[0])).toEqual(['FROM ${BASE_IMAGE} AS build', 'FROM ${BASE_IMAGE}']);
    const section = readme.slice(readme.indexOf('### The image without a registry'));
    expect(section.length).toBeLessThan(readme.length);
    for (const step of ['podman load', '--pull=never', '--build-arg BASE_IMAGE=', 'pack --pack-destination', 'npm install -g']) expect(section, step).toContain(step);
  });

  it('leaves private keys out of the build context and out of git: dev-pki/ (its CA key) and every *-key.pem', async () => {
    const containerignore = readFileSync(join(repoRoot, '.containerignore'), 'utf8');
    expect(readFileSync(join(repoRoot, '.dockerignore'), 'utf8')).toBe(containerignore);
    const patterns = containerignore.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
    expect(patterns).toEqual(expect.arrayContaining(['dev-pki', '**/*-key.pem']));
    // What git makes of scripts/dev-pki.sh's default output, asked of git itself.
    const { stdout } = await run('git', ['check-ignore', '--no-index', 'dev-pki/ca-key.pem', 'dev-pki/ca.pem', 'apps/peer/tls/server-key.pem'], { cwd: repoRoot });
    expect(stdout.trim().split('\n')).toEqual(['dev-pki/ca-key.pem', 'dev-pki/ca.pem', 'apps/peer/tls/server-key.pem']);
  });
});
