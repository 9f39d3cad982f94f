// The baseline: raw node:https with the same certificates, answering each path with the exact
// bytes (status, content type, body) the operations server answered. Run as its own process:
// node raw-target.mjs '<json>'; prints "listening on <port>".
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';

const { certFile, keyFile, caFile, responsesFile } = JSON.parse(process.argv[2]);
const responses = JSON.parse(readFileSync(responsesFile, 'utf8'));
const table = new Map(Object.entries(responses).map(([path, r]) => [path, { ...r, body: Buffer.from(r.body, 'base64') }]));
const server = createServer(
  { cert: readFileSync(certFile), key: readFileSync(keyFile), ca: readFileSync(caFile), requestCert: true, rejectUnauthorized: false, minVersion: 'TLSv1.2' },
  (req, res) => {
    const r = table.get(req.url ?? '/');
    if (!r) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(r.status, { 'Content-Type': r.contentType, 'Content-Length': r.body.length });
    res.end(r.body);
  },
);
server.keepAliveTimeout = 10_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on ${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
