// Load generator, run as its own process: node load.mjs '<json>'; prints one JSON line.
//   mode "keepalive": `connections` connections, each sending the next request as soon as the
//                     previous response is complete (no pipelining, like wrk).
//   mode "connect":   `connections` loops of connect (+ full TLS handshake) → one request → close.
//   mode "resume":    as "connect", offering the last TLS session ticket (resumption).
// `tls` holds `ca` and, for mutual TLS, `cert` and `key`; without `tls` it speaks plain HTTP.
// `tls.fleet` ([{ cert, key }]) instead gives each new connection the next certificate in turn, so
// a server's verdict cache answers no connection (a fleet of clients, not one reconnecting).
// `method` (GET) and `body` (none) shape the request; `requests` stops after that many in all,
// `seconds` after that long, whichever comes first.
// With `gate: true` it opens its keep-alive connections first, prints "ready" and starts the
// measured window only when a line arrives on stdin, so the caller can sample the server's CPU
// around exactly the measured requests (the handshakes stay outside).
// Latencies are recorded per request into 10 µs buckets, so memory stays fixed however long it runs.
import { connect as tcpConnect } from 'node:net';
import { connect as tlsConnect, createSecureContext } from 'node:tls';

const { host, port, path, mode, connections, seconds, tls, method = 'GET', body = '', requests = Infinity, gate = false } = JSON.parse(process.argv[2]);
const keepAlive = mode === 'keepalive';
const payload = Buffer.from(body);
const request = Buffer.concat([
  Buffer.from(
    `${method} ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\n${keepAlive ? '' : 'Connection: close\r\n'}${payload.length > 0 ? `Content-Type: application/json\r\nContent-Length: ${payload.length}\r\n` : ''}\r\n`,
  ),
  payload,
]);
// One context for every connection: building one per connect (parsing key and CA) would make the
// client, not the server, the bottleneck of the handshake figures.
const secureContexts = tls ? (tls.fleet ?? [tls]).map(({ cert, key }) => createSecureContext({ ca: tls.ca, cert, key })) : [];
const secureContext = secureContexts[0];
let nextContext = 0;
let deadline = Infinity;
let sent = 0;
const more = () => sent < requests && performance.now() < deadline;

const BUCKET_US = 10;
const buckets = new Uint32Array(200_000); // up to 2 s; slower lands in the last bucket
let completed = 0;
let failed = 0;
let handshakes = 0;
let resumed = 0;
let lastSession;
const statuses = {};

function record(startedAt, status) {
  const us = (performance.now() - startedAt) * 1_000;
  buckets[Math.min(buckets.length - 1, Math.floor(us / BUCKET_US))]++;
  completed++;
  statuses[status] = (statuses[status] ?? 0) + 1;
}

function open() {
  if (!secureContext) return tcpConnect({ host, port });
  const context = secureContexts[nextContext++ % secureContexts.length];
  const socket = tlsConnect({ host, port, secureContext: context, servername: 'localhost', ...(mode === 'resume' && lastSession ? { session: lastSession } : {}) });
  socket.once('secureConnect', () => {
    handshakes++;
    if (socket.isSessionReused()) resumed++;
  });
  if (mode === 'resume') socket.on('session', (session) => (lastSession = session));
  return socket;
}

/** Calls onResponse(status) for each complete response (Content-Length framed) on the socket. */
function onResponses(socket, onResponse) {
  let buffered = null;
  socket.on('data', (chunk) => {
    buffered = buffered === null ? chunk : Buffer.concat([buffered, chunk]);
    for (;;) {
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buffered.toString('latin1', 0, end);
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (buffered.length < end + 4 + length) return;
      buffered = buffered.length === end + 4 + length ? null : buffered.subarray(end + 4 + length);
      onResponse(Number(head.slice(9, 12)));
      if (buffered === null) return;
    }
  });
}

/** Opens one keep-alive connection; resolves a function that runs requests on it until the end. */
function keepAliveConnection() {
  return new Promise((ready) => {
    const socket = open();
    let startedAt = 0;
    let waiting = false;
    let finished;
    const done = new Promise((resolve) => (finished = resolve));
    const next = () => {
      if (!more()) {
        socket.destroy();
        finished();
        return;
      }
      sent++;
      waiting = true;
      startedAt = performance.now();
      socket.write(request);
    };
    onResponses(socket, (status) => {
      waiting = false;
      record(startedAt, status);
      next();
    });
    socket.once(secureContext ? 'secureConnect' : 'connect', () => ready(() => (next(), done)));
    // An error, or the server closing the connection under an unanswered request, ends this connection's loop.
    let errored = false;
    socket.on('error', () => (errored = true));
    socket.on('close', () => {
      if (waiting || errored) failed++;
      finished();
      ready(() => done);
    });
  });
}

async function connectLoop() {
  while (more()) {
    sent++;
    await new Promise((resolve) => {
      const startedAt = performance.now();
      const socket = open();
      let done = false;
      const finish = (ok, status) => {
        if (done) return;
        done = true;
        if (ok) record(startedAt, status);
        else failed++;
        socket.destroy();
        resolve();
      };
      socket.once(secureContext ? 'secureConnect' : 'connect', () => socket.write(request));
      onResponses(socket, (status) => finish(true, status));
      socket.on('error', () => finish(false));
      socket.on('close', () => finish(false));
    });
  }
}

function percentile(q) {
  const target = Math.ceil(completed * q);
  let seen = 0;
  for (let i = 0; i < buckets.length; i++) {
    seen += buckets[i];
    if (seen >= target) return ((i + 1) * BUCKET_US) / 1_000;
  }
  return Number.NaN;
}

const starters = keepAlive ? await Promise.all(Array.from({ length: connections }, keepAliveConnection)) : Array.from({ length: connections }, () => connectLoop);
if (gate) {
  process.stdout.write('ready\n');
  await new Promise((resolve) => process.stdin.once('data', resolve));
  process.stdin.pause();
}
const began = performance.now();
deadline = began + seconds * 1_000;
await Promise.all(starters.map((start) => start()));
const elapsed = (performance.now() - began) / 1_000;
process.stdout.write(`${JSON.stringify({ completed, failed, statuses, handshakes, resumed, seconds: elapsed, rps: completed / elapsed, p50ms: percentile(0.5), p99ms: percentile(0.99) })}\n`);
