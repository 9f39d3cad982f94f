// What reading a client's certificate list costs on the server, per Node line: the peer reads the
// list the client sent (leaf first) once per new mutual-TLS connection, through Node's own
// `getPeerX509Certificate()` and its `issuerCertificate` links (ops-tls-auth, peer-chain.ts), to
// judge it and to key its verdict cache. Node copies every certificate after the leaf into its own
// object, so the cost depends on what the client sends: a Go client (Prometheus, Fabric's tools)
// sends its certificate file as it is, often the leaf alone; a Node or curl client given a file with
// the CA appended sends both.
//
// One node:tls server (plain node, loopback), HANDSHAKES sequential connections per case, each
// read timed inside the server's 'secureConnection' handler with process.hrtime; the first fifth
// is warm-up. Printed: median and p90 µs of
//   - getPeerX509Certificate() alone,
//   - the walk the peer does (the leaf's and every issuer's DER bytes),
//   - getSession() (the serialized session, leaf included: the cheap read that holds only the leaf).
// OpenSSL is given an unrelated client CA, as the peer's stand-ins are (see below).
// Run: node bench/peer-chain-read.bench.mjs, or `node bench/run.mjs peer-chain-read --lines 20,22,24,26`.
//   BENCH_HANDSHAKES (400) connections per case
import './lib/fail.mjs';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createServer } from 'node:tls';
import { createBenchPki } from './lib/pki.mjs';

const HANDSHAKES = Math.max(10, Number(process.env.BENCH_HANDSHAKES ?? 400));
const WALK_GUARD = 16;

/** The peer's walk: the leaf's DER, then each issuer's, in the order the client sent them. */
function walk(socket) {
  const leaf = socket.getPeerX509Certificate();
  if (leaf === undefined) return [];
  const list = [leaf.raw];
  let previous = leaf;
  let current = leaf.issuerCertificate;
  while (current !== undefined && current !== previous && list.length < WALK_GUARD) {
    list.push(current.raw);
    previous = current;
    current = current.issuerCertificate;
  }
  return list;
}

const READS = {
  'getPeerX509Certificate()': (socket) => socket.getPeerX509Certificate(),
  'the walk (every certificate sent)': (socket) => walk(socket),
  'getSession()': (socket) => socket.getSession(),
};

async function measure(pki, openSslCa, clientCert, read) {
  const times = [];
  let listed = 0;
  const server = createServer({ cert: pki.server.cert, key: pki.server.key, ca: openSslCa, requestCert: true, rejectUnauthorized: false }, (socket) => {
    const started = process.hrtime.bigint();
    read(socket);
    times.push(Number(process.hrtime.bigint() - started) / 1000);
    listed = walk(socket).length;
    socket.end('x');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  try {
    for (let i = 0; i < HANDSHAKES; i++) {
      await new Promise((resolve, reject) => {
        // No `ca` on the client: OpenSSL would build the chain from it and send the CA even when the
        // certificate option holds the leaf alone. The server's certificate is not what is measured.
        const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, servername: 'localhost', cert: clientCert, key: pki.client.key });
        socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
        socket.on('data', () => {});
        socket.once('error', reject);
        socket.once('close', resolve);
      });
    }
  } finally {
    server.close();
  }
  const measured = times.slice(Math.floor(HANDSHAKES / 5)).sort((a, b) => a - b);
  const at = (q) => measured[Math.min(measured.length - 1, Math.floor(q * measured.length))];
  return { p50: at(0.5), p90: at(0.9), listed };
}

const dir = mkdtempSync(join(tmpdir(), 'fabric-ops-bench-chain-read-'));
try {
  console.log(`node ${process.version} (${process.versions.openssl}), load average ${loadavg()[0].toFixed(2)} at the start; ${HANDSHAKES} connections per cell`);
  const pki = createBenchPki(dir);
  // OpenSSL is given an unrelated CA, as the peer gives it stand-ins (ops-tls-auth): its own check
  // of the client's chain fails, so Node leaves the list as the client sent it (a check that
  // succeeds makes some lines drop or add certificates, nodejs/node#65579).
  const unrelatedCa = createBenchPki(dir, { name: 'unrelated' }).client.ca;
  const cases = [
    ['the leaf alone', pki.client.cert],
    ['the leaf and its CA', pki.client.cert + pki.client.ca],
  ];
  console.log('| client sends | certificates read | ' + Object.keys(READS).join(' | ') + ' |');
  console.log(
    '|---|---:|' +
      Object.keys(READS)
        .map(() => '---:')
        .join('|') +
      '|',
  );
  for (const [label, cert] of cases) {
    const cells = [];
    let listed = 0;
    for (const read of Object.values(READS)) {
      const r = await measure(pki, unrelatedCa, cert, read);
      listed = r.listed;
      cells.push(`${r.p50.toFixed(1)} µs (p90 ${r.p90.toFixed(1)})`);
    }
    console.log(`| ${label} | ${listed} | ${cells.join(' | ')} |`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
