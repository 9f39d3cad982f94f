import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { Duplex } from 'node:stream';
import { connect, createServer, type Server, type TLSSocket } from 'node:tls';
import { BASIC_CONSTRAINTS_CA, oid, pem, sequence, signedCertificate, tlv, utcTime } from './der-write.ts';
import { captureChainsEarly, type CapturedChain } from './peer-chain.ts';

// Does the server of this process read a client's chain (leaf, intermediate, root, in issuing
// order) in full? nativePeerChain reads Node's issuer path, which some Node lines shorten on the
// server (nodejs/node#65579); asking the running process once is sounder than a table of versions.

function commonName(name: string): Buffer {
  // SEQUENCE { SET { SEQUENCE { OID 2.5.4.3, UTF8String } } }
  return sequence(tlv(0x31, sequence(oid('2.5.4.3'), tlv(0x0c, Buffer.from(name, 'utf8')))));
}

interface Issued {
  readonly name: string;
  readonly der: Buffer;
  readonly pem: string;
  readonly key: string;
  readonly privateKey: KeyObject;
}

/** A minimal v3 certificate (P-256), valid for a day either side of now; self-signed without an issuer. */
function issue(name: string, serial: number, issuer?: Issued, ca = false): Issued {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const now = Date.now();
  const der = signedCertificate({
    serial: Buffer.from([serial]),
    issuer: commonName(issuer?.name ?? name),
    subject: commonName(name),
    validity: sequence(utcTime(new Date(now - 86_400_000)), utcTime(new Date(now + 86_400_000))),
    spki: publicKey.export({ type: 'spki', format: 'der' }),
    extensions: ca ? [BASIC_CONSTRAINTS_CA] : [],
    signer: issuer?.privateKey ?? privateKey,
  });
  return { name, der, pem: pem(der), key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, privateKey };
}

/** Two in-memory stream ends: what one writes, the other reads. */
export function duplexPair(): [Duplex, Duplex] {
  let left: Duplex | undefined;
  let right: Duplex | undefined;
  const end = (other: () => Duplex | undefined): Duplex =>
    new Duplex({
      read() {},
      write(chunk, _encoding, done) {
        other()?.push(chunk);
        done();
      },
      final(done) {
        other()?.push(null);
        done();
      },
    });
  left = end(() => right);
  right = end(() => left);
  return [left, right];
}

async function capturedList(server: Server, read: (socket: TLSSocket) => CapturedChain | undefined, version: 'TLSv1.2' | 'TLSv1.3', sent: readonly Issued[]): Promise<boolean> {
  const [serverEnd, clientEnd] = duplexPair();
  const client = connect({ socket: clientEnd, cert: sent.map((issued) => issued.pem).join(''), key: sent[0]!.key, rejectUnauthorized: false, minVersion: version, maxVersion: version });
  client.on('error', () => {});
  let serverSocket: TLSSocket | undefined;
  try {
    return await new Promise<boolean>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('self-probe handshake did not finish')), 10_000).unref();
      // One handshake at a time: the next secure connection is this one.
      const onSecure = (socket: TLSSocket): void => {
        server.off('secureConnection', onSecure);
        serverSocket = socket;
        clearTimeout(timer);
        const got = read(socket);
        const list = got !== undefined && 'list' in got ? (got.list ?? []) : [];
        resolve(socket.getProtocol() === version && list.length === sent.length && list.every((der, i) => Buffer.from(der).equals(sent[i]!.der)));
      };
      server.on('secureConnection', onSecure);
      client.once('error', (error) => (clearTimeout(timer), reject(error)));
      server.emit('connection', serverEnd);
    });
  } finally {
    client.destroy();
    serverSocket?.destroy();
  }
}

let probed: Promise<boolean> | undefined;

/**
 * True when, in this process, the early capture (captureChainsEarly) reads every certificate of
 * a chain sent in issuing order (leaf, intermediate, root), on TLS 1.2 and 1.3, both when
 * OpenSSL's own verification succeeds and when it fails. Asked once per process, through a
 * real tls.Server over in-memory streams, with throwaway certificates made here.
 * Any failure of the probe itself answers false.
 */
export function nativeChainIsFaithful(): Promise<boolean> {
  probed ??= (async () => {
    try {
      const ca = issue('probe-ca', 1, undefined, true);
      const serverCertificate = issue('probe-server', 2, ca);
      const intermediate = issue('probe-intermediate', 3, ca, true);
      const verified = issue('probe-leaf', 4, intermediate);
      const strangerCa = issue('probe-stranger-ca', 5, undefined, true);
      const strangerIntermediate = issue('probe-stranger-intermediate', 6, strangerCa, true);
      const unverified = issue('probe-stranger', 7, strangerIntermediate);
      const server = createServer({ cert: serverCertificate.pem, key: serverCertificate.key, ca: [ca.pem], requestCert: true, rejectUnauthorized: false, minVersion: 'TLSv1.2' });
      const read = captureChainsEarly(server);
      const results = [];
      for (const version of ['TLSv1.2', 'TLSv1.3'] as const) {
        // Once under a CA the server trusts, once not.
        results.push(await capturedList(server, read, version, [verified, intermediate, ca]));
        results.push(await capturedList(server, read, version, [unverified, strangerIntermediate, strangerCa]));
      }
      return results.every(Boolean);
    } catch {
      return false;
    }
  })();
  return probed;
}
