// Unauthenticated clients presenting chains that are cheap to send and expensive to
// check (bench/lib/constraint-chain.mjs) must never keep a legitimate client out, during the
// attack or after it, and a reload must close the window in which removed trust still admits.
// Real servers, real verifier threads, real chains; every legitimate client uses a certificate
// of its own, so no cached verdict answers for it.
import { connect as connectTls, type TLSSocket } from 'node:tls';
import { createTestPki, type PemPair, type TestPki } from '@fabric-ops/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { constraintChain } from '../../../../bench/lib/constraint-chain.mjs';
import { getBody, useTestServers, type StartedServer } from '../../test/servers.ts';
import { loadTlsCredentials } from './credentials.ts';
import type { TlsServerInternals } from './server.ts';
import type { ChainJudge } from '@fabric-ops/go-x509/verifier';

let pki: TestPki;
let chain: ReturnType<typeof constraintChain>;
let operators: PemPair[];
let rogues: PemPair[];
beforeAll(async () => {
  pki = await createTestPki();
  chain = constraintChain(pki.dir);
  operators = await Promise.all(Array.from({ length: 16 }, (_, i) => pki.ca.issue(`attack-operator-${i}`, { subject: { O: 'Org1', CN: `operator-${i}` }, extendedKeyUsage: ['clientAuth'] })));
  rogues = await Promise.all(Array.from({ length: 6 }, (_, i) => pki.rogueCa.issue(`attack-rogue-${i}`, { subject: { O: 'Org1', CN: `rogue-${i}` }, extendedKeyUsage: ['clientAuth'] })));
}, 60_000);
afterAll(() => pki?.cleanup());

const startServer = useTestServers();

async function start(handshakeTimeoutMs = 5_000, internals: TlsServerInternals = {}): Promise<StartedServer & { refusals: () => number }> {
  let refusals = 0;
  const credentials = loadTlsCredentials({ certFile: pki.server.certFile, keyFile: pki.server.keyFile, clientRootCAs: [pki.ca.certFile] });
  const started = await startServer({
    credentials,
    handshakeTimeoutMs,
    internals,
    logger: { warn: (_fields, message) => void (/failed to verify certificate/.test(message ?? '') && (refusals += 1)) },
  });
  return { ...started, refusals: () => refusals };
}

function get(port: number, client: PemPair, maxVersion?: 'TLSv1.2'): Promise<string> {
  return getBody(port, { ca: pki.ca.cert, cert: client.cert, key: client.key, ...(maxVersion ? { maxVersion } : {}) });
}

/** Attacking loops: each presents the chain in a new order; `polite` ones wait for the verdict, the others hang up at once. */
function attack(port: number, connections: number, polite: boolean): { handshakes: () => number; stop: () => Promise<number> } {
  let stopped = false;
  let handshakes = 0;
  const loop = async (): Promise<void> => {
    while (!stopped) {
      await new Promise<void>((resolve) => {
        const socket = connectTls({ host: '127.0.0.1', port, cert: chain.shuffled(), key: chain.key, rejectUnauthorized: false, maxVersion: 'TLSv1.2' });
        socket.on('error', () => {});
        socket.once('secureConnect', () => {
          handshakes += 1;
          if (!polite) socket.destroy();
        });
        socket.once('close', () => resolve());
        socket.resume();
      });
    }
  };
  const loops = Array.from({ length: connections }, loop);
  return {
    handshakes: () => handshakes,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
      return handshakes;
    },
  };
}

describe('createTlsServer under the name-constraint attack', () => {
  it('leaves no backlog: after a burst of hang-up-at-once attackers, new clients are admitted within the handshake deadline', async () => {
    const target = await start();
    const attackers = attack(target.port, 4, false);
    // Each chain costs a verifier thread a third of a second or more: 20 is more work than one
    // thread does within a handshake deadline. Counted, not timed, so a loaded machine only slows it.
    await expect.poll(() => attackers.handshakes(), { timeout: 20_000, interval: 50 }).toBeGreaterThanOrEqual(20);
    await attackers.stop();
    for (const operator of operators.slice(0, 4)) expect(await get(target.port, operator)).toMatch(/^CN=operator-\d+,O=Org1$/);
  }, 30_000);

  it('admits new clients while 32 connections keep presenting the chain and waiting for their verdicts', async () => {
    const target = await start();
    const attackers = attack(target.port, 32, true);
    try {
      // Every attacking connection has presented its chain and waits for a verdict.
      await expect.poll(() => attackers.handshakes(), { timeout: 15_000, interval: 50 }).toBeGreaterThanOrEqual(32);
      for (const operator of operators.slice(4, 8)) expect(await get(target.port, operator)).toMatch(/^CN=operator-\d+,O=Org1$/);
    } finally {
      await attackers.stop();
    }
  }, 30_000);

  it('admits new clients on the verifier threads while refused clients use up the inline time budget', async () => {
    let judge: ChainJudge | undefined;
    // A budget one check spends: from then on in each second every chain goes to a thread.
    const target = await start(5_000, { verifierInline: { maxSignatureChecks: 3, maxRsaBits: 4096, maxMsPerSecond: 0.001 }, observeJudge: (observed) => (judge = observed) });
    let stopped = false;
    let refused = 0;
    const loops = rogues.map(async (rogue) => {
      while (!stopped) {
        await get(target.port, rogue).then(
          () => {
            throw new Error('a rogue client was admitted');
          },
          () => void (refused += 1),
        );
      }
    });
    try {
      await expect.poll(() => refused, { timeout: 15_000, interval: 20 }).toBeGreaterThanOrEqual(rogues.length * 2);
      for (const operator of operators.slice(12, 16)) expect(await get(target.port, operator)).toMatch(/^CN=operator-\d+,O=Org1$/);
      // The budget was spent, so some chain was decided on a thread.
      expect(judge?.threads).toBeGreaterThanOrEqual(1);
    } finally {
      stopped = true;
      await Promise.all(loops);
    }
  }, 30_000);

  it("admits nobody on trust a completed reload removed, and shows embedders' listeners admitted connections only", async () => {
    const target = await start();
    const seen: string[] = [];
    let reloaded = false;
    // An embedder's own listener, added after the server was made.
    target.tls.server.on('secureConnection', (socket: TLSSocket) => {
      seen.push(`${socket.getPeerCertificate().subject?.CN ?? 'none'}${reloaded ? ' after the reload' : ''}`);
    });
    const attackers = attack(target.port, 2, true);
    try {
      await expect.poll(() => attackers.handshakes(), { timeout: 15_000, interval: 50 }).toBeGreaterThanOrEqual(2);
      // TLS 1.2: the client's handshake ends after the server has its certificate, so its check is under way.
      const operator = operators[8]!;
      const outcome = new Promise<string>((resolve) => {
        const socket = connectTls({ host: '127.0.0.1', port: target.port, ca: pki.ca.cert, cert: operator.cert, key: operator.key, maxVersion: 'TLSv1.2' });
        socket.on('error', () => {});
        socket.once('secureConnect', () => {
          target.tls.setCredentials(loadTlsCredentials({ certFile: pki.server.certFile, keyFile: pki.server.keyFile, clientRootCAs: [pki.rogueCa.certFile] }));
          reloaded = true;
          socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
        });
        let answer = '';
        socket.on('data', (c: Buffer) => (answer += c.toString()));
        socket.once('close', () => resolve(answer));
      });
      const answer = await outcome;
      expect(seen.filter((line) => line.endsWith('after the reload'))).toEqual([]);
      if (answer !== '') expect(seen).toEqual(['operator-8']); // admitted before the reload completed
      await expect(get(target.port, operators[9]!)).rejects.toThrow();
    } finally {
      await attackers.stop();
    }
    expect(seen.every((line) => line.startsWith('operator-'))).toBe(true);
  }, 30_000);
});
