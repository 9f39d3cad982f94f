// Raw node:https with requestCert and the given client CA file, answering GET /version and nothing
// else, reading nothing of the client's certificate list: the baseline beside the peer in the
// chain benches. Run as a script: node raw-version-server.mjs <certFile> <keyFile> <caFile>;
// prints "listening on <port>" and exits on SIGTERM.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';

const [certFile, keyFile, caFile] = process.argv.slice(2);
const body = JSON.stringify({ Version: 'raw', CommitSHA: 'raw' }) + '\n';
const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile), ca: readFileSync(caFile), requestCert: true, rejectUnauthorized: false, minVersion: 'TLSv1.2' }, (req, res) => {
  res.writeHead(req.url === '/version' ? 200 : 404, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }).end(body);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on ${server.address().port}\n`));
process.on('SIGTERM', () => process.exit(0));
