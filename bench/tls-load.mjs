// Load generator for tls.bench.mjs, run as its own process so the client's CPU is not the
// server's. Usage: node tls-load.mjs '<json options>'; prints one JSON line with the counts.
//   mode "keepalive": `connections` TLS connections, each sending the next GET as soon as the
//                     previous response is complete (no pipelining, like wrk).
//   mode "connect":   `connections` loops of connect → full mTLS handshake → one GET → close.
//   mode "resume":    as "connect", offering the last session ticket (TLS 1.3 resumption).
import { connect, createSecureContext } from 'node:tls';

const options = JSON.parse(process.argv[2]);
const { host, port, path, mode, connections, seconds, ca, cert, key } = options;
const request = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\n${mode === 'keepalive' ? '' : 'Connection: close\r\n'}\r\n`);
const deadline = performance.now() + seconds * 1_000;
let completed = 0;
let failed = 0;
let resumed = 0;
let handshakes = 0;
// One context for every connection: building one per connect (parsing the key and CA) would
// make the client, not the server, the bottleneck of the handshake figures.
const tlsOptions = { host, port, secureContext: createSecureContext({ ca, cert, key }) };

/** Calls `onResponse(status)` for each complete response on the socket. */
function responses(socket, onResponse) {
  let buffered = null;
  socket.on('data', (chunk) => {
    buffered = buffered === null ? chunk : Buffer.concat([buffered, chunk]);
    for (;;) {
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buffered.toString('latin1', 0, end);
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      const total = end + 4 + length;
      if (buffered.length < total) return;
      buffered = buffered.length === total ? null : buffered.subarray(total);
      onResponse(Number(head.slice(9, 12)));
      if (buffered === null) return;
    }
  });
}

function keepAliveLoop() {
  return new Promise((resolve) => {
    const socket = connect(tlsOptions, () => socket.write(request));
    handshakes++;
    responses(socket, (status) => {
      if (status === 200) completed++;
      else failed++;
      if (performance.now() < deadline) socket.write(request);
      else socket.end();
    });
    socket.on('error', () => failed++);
    socket.on('close', resolve);
  });
}

let lastSession;
function connectOnce() {
  return new Promise((resolve) => {
    const socket = connect({ ...tlsOptions, ...(mode === 'resume' && lastSession ? { session: lastSession } : {}) }, () => {
      handshakes++;
      if (socket.isSessionReused()) resumed++;
      socket.write(request);
    });
    socket.on('session', (session) => (lastSession = session));
    let ok = false;
    responses(socket, (status) => (ok = status === 200));
    socket.on('error', () => {});
    socket.on('close', () => {
      if (ok) completed++;
      else failed++;
      resolve();
    });
  });
}

async function connectLoop() {
  while (performance.now() < deadline) await connectOnce();
}

const started = performance.now();
const loops = Array.from({ length: connections }, () => (mode === 'keepalive' ? keepAliveLoop() : connectLoop()));
await Promise.all(loops);
const elapsed = (performance.now() - started) / 1_000;
process.stdout.write(`${JSON.stringify({ completed, failed, resumed, handshakes, seconds: elapsed })}\n`);
