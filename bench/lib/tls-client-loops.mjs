// Handshaking clients in a process of their own, so that their memory and CPU are not the bench's:
// node tls-client-loops.mjs '{"port":…,"connections":…,"count":…,"seconds":…,"cert":…,"key":…,"ca":…}'
// runs `connections` loops of: connect with one secure context (made once, so the client's own
// cost stays small), send one GET /version, wait for the server to close; again, until `count`
// connections were started or `seconds` have passed (either may be left out; `ca` too). Each
// connection has 10 s of quiet at most. Prints {"made":…,"answered":…,"failed":…} (answered: an HTTP
// response came back, the list was admitted; failed: ended by an error).
import { connect, createSecureContext } from 'node:tls';

const { port, connections, count = Number.POSITIVE_INFINITY, seconds, cert, key, ca } = JSON.parse(process.argv[2]);
const secureContext = createSecureContext({ cert, key, ca });
const until = seconds === undefined ? Number.POSITIVE_INFINITY : Date.now() + seconds * 1000;
let started = 0;
let failed = 0;
let answered = 0;
const once = () =>
  new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, secureContext, rejectUnauthorized: false });
    socket.setTimeout(10_000, () => socket.destroy());
    socket.on('error', () => {
      failed += 1;
    });
    // A request, so that a server that admits the list (raw node) serves it and closes, as one that refuses it closes.
    socket.once('secureConnect', () => socket.end('GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    socket.once('close', resolve);
    socket.once('data', (chunk) => {
      if (chunk.subarray(0, 5).toString('latin1') === 'HTTP/') answered += 1;
    });
    socket.resume();
  });
const loop = async () => {
  while (started < count && Date.now() < until) {
    started += 1;
    await once();
  }
};
await Promise.all(Array.from({ length: connections }, loop));
process.stdout.write(JSON.stringify({ made: started, answered, failed }));
