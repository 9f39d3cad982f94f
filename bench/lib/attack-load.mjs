// Attacking connections for tls-attack.bench.mjs, in their own process: `connections` loops,
// each opening a TLS connection that presents the leaf + CAs (in a new order each time, so no
// cached verdict answers it) and then either waiting for the server to close it (polite) or
// hanging up as soon as its own handshake is done (`hangUp`: the cheapest attack to send), and
// starting again, for `seconds`. Prints {"handshakes": n, "attempts": n} on exit (a server that
// refuses the chain inside the handshake, as Go's does, completes none of them). Usage: node attack-load.mjs <json-file>
import { readFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { shuffledChain } from './self-issued-chain.mjs';

const { port, connections, seconds, key, leaf, cas, hangUp = false } = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const until = Date.now() + seconds * 1000;
let handshakes = 0;
let attempts = 0;
const shuffled = () => shuffledChain(leaf, cas);
async function loop() {
  while (Date.now() < until) {
    await new Promise((resolve) => {
      // TLS 1.2: the client's handshake ends once the server has its certificate (in TLS 1.3 it
      // ends before the server has read it, and hanging up then would send nothing to check).
      attempts += 1;
      const socket = connect({ host: '127.0.0.1', port, cert: shuffled(), key, rejectUnauthorized: false, maxVersion: 'TLSv1.2' });
      socket.on('error', () => {});
      socket.once('secureConnect', () => {
        handshakes += 1;
        if (hangUp) socket.destroy();
      });
      socket.once('close', resolve);
      socket.resume();
    });
  }
}
await Promise.all(Array.from({ length: connections }, loop));
process.stdout.write(JSON.stringify({ handshakes, attempts }));
