// One request on a new connection to a bench target on loopback, recorded as the raw and Go twins
// replay it: status, content type and body (base64). `credentials` holds `ca` and, for mutual
// TLS, `cert` and `key`.
import { request } from 'node:https';

export function fetchOnce(port, { method, path, body }, credentials) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent: false, ...credentials, servername: 'localhost' }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, contentType: res.headers['content-type'] ?? '', body: Buffer.concat(chunks).toString('base64') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
