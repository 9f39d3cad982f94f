import { useTestPki, type PemPair } from '@fabric-ops/test-kit';
import { describe, expect, it, vi } from 'vitest';
import { loadTlsCredentials } from './credentials.ts';
import { getBody, useTestServers, type StartedServer } from '../../test/servers.ts';

// The probe of how this Node reads client chains (self-probe.ts) makes keys and runs handshakes;
// here it only counts its calls and answers "not faithful", so the warning shows when it ran.
const probe = vi.hoisted(() => ({ calls: 0 }));
vi.mock('./self-probe.ts', () => ({
  nativeChainIsFaithful: () => {
    probe.calls++;
    return Promise.resolve(false);
  },
}));

const pkiOf = useTestPki();

const startServer = useTestServers();

function get(target: StartedServer, client?: PemPair): Promise<string> {
  return getBody(target.port, { host: target.host, ca: pkiOf().ca.cert, ...(client === undefined ? {} : { cert: client.cert, key: client.key }) });
}

const WARNING = /does not hand the server every certificate a client sends/;

describe('createTlsServer: the chain-reading probe', () => {
  it('runs at the first client certificate, once, not at start or for clients without one', async () => {
    const credentials = loadTlsCredentials({ certFile: pkiOf().server.certFile, keyFile: pkiOf().server.keyFile, clientRootCAs: [pkiOf().ca.certFile] });
    const started = await startServer({ credentials });
    expect(probe.calls).toBe(0);

    expect(await get(started)).toBe('anonymous');
    expect(probe.calls).toBe(0);
    expect(started.lines.some((line) => WARNING.test(line.message))).toBe(false);

    expect(await get(started, pkiOf().clients.good)).not.toBe('anonymous');
    expect(await get(started, pkiOf().clients.good)).not.toBe('anonymous');
    expect(probe.calls).toBe(1);
    await vi.waitFor(() => expect(started.lines.filter((line) => WARNING.test(line.message))).toHaveLength(1));
  });
});
