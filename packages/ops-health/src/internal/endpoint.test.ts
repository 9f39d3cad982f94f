import { describe, expect, it } from 'vitest';
import * as entry from '@fabric-ops/ops-health/endpoint';
import { readDockerEndpoint } from './endpoint.ts';

describe('readDockerEndpoint (vm.endpoint)', () => {
  it.each([
    ['unix:///var/run/docker.sock', { kind: 'unix', socketPath: '/var/run/docker.sock' }],
    ['tcp://127.0.0.1:2375', { kind: 'tcp', host: '127.0.0.1', port: 2375 }],
    ['http://localhost:2375/', { kind: 'tcp', host: 'localhost', port: 2375 }],
    ['TCP://[::1]:2375', { kind: 'tcp', host: '::1', port: 2375 }],
    ['HTTP://localhost:2375', { kind: 'tcp', host: 'localhost', port: 2375 }],
    ['tcp://docker.example.com:2376/', { kind: 'tcp', host: 'docker.example.com', port: 2376 }],
    ['tcp://127.0.0.1:02375', { kind: 'tcp', host: '127.0.0.1', port: 2375 }],
  ] as const)('reads %s', (text, endpoint) => expect(readDockerEndpoint(text)).toEqual({ ok: true, endpoint }));

  it.each([
    ['/var/run/docker.sock', 'no scheme'],
    ['npipe:////./pipe/docker_engine', "unsupported scheme 'npipe'"],
    ['unix://relative.sock', 'the socket path must be absolute'],
    ['tcp://127.0.0.1', 'missing port in address'],
    ['tcp://:2375', 'the host is missing'],
    ['tcp://127.0.0.1:0', 'the port is missing'],
    ['tcp://127.0.0.1:2375/v1.41', 'only host and port may be given'],
    ['tcp://user@127.0.0.1:2375', 'only host and port may be given'],
    ['tcp://127.0.0.1:99999', 'invalid port'],
  ])('refuses %s, saying why', (text, reason) => {
    const reading = readDockerEndpoint(text);
    expect(reading.ok).toBe(false);
    if (!reading.ok) expect(reading.reason).toContain(reason);
  });

  it('is the whole of the ./endpoint entry', () => {
    expect(Object.keys(entry).sort()).toEqual(['DOCKER_ENDPOINT_FORMS', 'readDockerEndpoint']);
  });
});
