// The Node baseline: raw node:https with the same certificates, answering each request with the
// exact bytes (status, content type, body) the operations server answered. Run as its own process:
// node raw-target.mjs '<json>'; prints "listening on <port>". The responses file maps
// "METHOD /path tls|mtls" to { status, contentType, body (base64) }; "mtls" is chosen when the client
// presented a verified certificate. A PUT body is read and parsed as JSON, as /logspec does.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';

const { certFile, keyFile, caFile, responsesFile } = JSON.parse(process.argv[2]);
const responses = JSON.parse(readFileSync(responsesFile, 'utf8'));
const table = new Map(
  Object.entries(responses).map(([key, r]) => {
    const body = Buffer.from(r.body, 'base64');
    const headers = r.contentType ? { 'Content-Type': r.contentType, 'Content-Length': body.length } : { 'Content-Length': body.length };
    return [key, { status: r.status, headers, body }];
  }),
);

function answer(req, res) {
  const r = table.get(`${req.method} ${req.url} ${req.socket.authorized ? 'mtls' : 'tls'}`);
  if (!r) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(r.status, r.headers);
  res.end(r.body);
}

const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile), ca: readFileSync(caFile), requestCert: true, rejectUnauthorized: false, minVersion: 'TLSv1.2' }, (req, res) => {
  if (req.method !== 'PUT') {
    answer(req, res);
    return;
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    try {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400).end();
      return;
    }
    answer(req, res);
  });
});
server.keepAliveTimeout = 10_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on ${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
