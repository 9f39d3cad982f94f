// Server CPU per new mutual-TLS connection (TLS 1.3, one GET each, no keep-alive), for this
// package's server against raw node:https and, when given, a Go net/http server; plus raw
// variants that each add one piece of what the package does, to show where the time goes;
// `ours-real-cas` is this package's server with its client-CA stand-ins off (OpenSSL given the
// real CA, as raw-mtls is), so the stand-ins' saving is measured in the same run.
//
//   node packages/ops-tls-auth/bench/new-connection.bench.mjs [--connections 2000] [--concurrency 16] [--rounds 2] [--go <binary>] [--only <regexp>]
//
// Needs dist/ (node scripts/build.mjs --if-stale) and openssl. The Go server, when given, is
// run as `<binary> <json options>` ({certFile,keyFile,caFile}) and prints its port on stdout.
// Server CPU is read from /proc/<pid>/stat (user + system), so it counts every thread of the
// server (verifier threads included) and nothing of the client.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    connections: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '16' },
    rounds: { type: 'string', default: '2' },
    go: { type: 'string' },
    only: { type: 'string', default: '' },
  },
});
const CONNECTIONS = Number(values.connections);
const CONCURRENCY = Number(values.concurrency);
const ROUNDS = Number(values.rounds);
const DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

function makePki(dir, intermediates) {
  const f = (name) => join(dir, name);
  const ssl = (...args) => execFileSync('openssl', args, { stdio: 'ignore' });
  const key = (name) => ssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', f(`${name}.key`));
  const ext = (name, lines) => writeFileSync(f(`${name}.ext`), lines.join('\n') + '\n');
  key('ca');
  ssl('req', '-x509', '-new', '-key', f('ca.key'), '-subj', '/CN=bench-ca', '-days', '30', '-sha256', '-out', f('ca.pem'));
  const issue = (name, issuer, subject, extLines) => {
    key(name);
    ssl('req', '-new', '-key', f(`${name}.key`), '-subj', subject, '-out', f(`${name}.csr`));
    ext(name, ['authorityKeyIdentifier=keyid', ...extLines]); // as Go and Fabric's tools write them
    ssl(
      'x509',
      '-req',
      '-in',
      f(`${name}.csr`),
      '-CA',
      f(`${issuer}.pem`),
      '-CAkey',
      f(`${issuer}.key`),
      '-CAcreateserial',
      '-days',
      '30',
      '-sha256',
      '-extfile',
      f(`${name}.ext`),
      '-out',
      f(`${name}.pem`),
    );
  };
  issue('server', 'ca', '/CN=localhost', ['subjectAltName=IP:127.0.0.1,DNS:localhost', 'extendedKeyUsage=serverAuth']);
  issue('client', 'ca', '/O=Org1/CN=operator', ['extendedKeyUsage=clientAuth']);
  let issuer = 'ca';
  const chain = [];
  for (let i = 0; i < intermediates; i++) {
    issue(`int${i}`, issuer, `/CN=bench-intermediate-${i}`, ['basicConstraints=critical,CA:true', 'keyUsage=critical,keyCertSign']);
    chain.unshift(readFileSync(f(`int${i}.pem`), 'utf8'));
    issuer = `int${i}`;
  }
  issue('long', issuer, '/O=Org1/CN=long-chain-operator', ['extendedKeyUsage=clientAuth']);
  const read = (name) => readFileSync(f(name), 'utf8');
  return {
    files: { certFile: f('server.pem'), keyFile: f('server.key'), caFile: f('ca.pem') },
    ca: read('ca.pem'),
    clients: {
      short: { cert: read('client.pem'), key: read('client.key') },
      long: { cert: read('long.pem') + chain.join(''), key: read('long.key') },
    },
  };
}

// Each server is a child process: `node -e <SERVER> <mode> <json files>`; it prints its port.
const SERVER = `
const [mode, filesJson, dist] = process.argv.slice(1);
const files = JSON.parse(filesJson);
const { readFileSync } = require('node:fs');
const https = require('node:https');
const tls = { cert: readFileSync(files.certFile), key: readFileSync(files.keyFile), minVersion: 'TLSv1.2' };
const hello = (req, res) => res.end('hello');
const walk = (socket) => {
  const leaf = socket.getPeerX509Certificate();
  const list = leaf === undefined ? [] : [leaf.raw];
  for (let c = leaf?.issuerCertificate, p = leaf; c !== undefined && c !== p; p = c, c = c.issuerCertificate) list.push(c.raw);
  return list;
};
const start = async () => {
  if (mode === 'ours' || mode === 'ours-real-cas') {
    const { createTlsServer, loadTlsCredentials } = await import(dist);
    const credentials = loadTlsCredentials({ certFile: files.certFile, keyFile: files.keyFile, clientRootCAs: [files.caFile] });
    // ours-real-cas: OpenSSL gets the real client CA (the stand-ins off), as with no stand-ins
    return createTlsServer({ credentials, clientCaStandIns: mode === 'ours' }, hello).server;
  }
  const mtls = { requestCert: true, rejectUnauthorized: false, ca: readFileSync(files.caFile) };
  if (mode === 'raw-plain') return https.createServer(tls, hello);
  if (mode === 'raw-mtls') return https.createServer({ ...tls, ...mtls }, hello);
  if (mode === 'raw-mtls-keylog') {
    const server = https.createServer({ ...tls, ...mtls }, hello);
    server.on('keylog', () => {});
    return server;
  }
  if (mode === 'raw-mtls-walk') return https.createServer({ ...tls, ...mtls }, (req, res) => { walk(req.socket); hello(req, res); });
  if (mode === 'raw-request-no-ca') return https.createServer({ ...tls, requestCert: true, rejectUnauthorized: false }, hello);
  throw new Error('unknown mode ' + mode);
};
start().then((server) => server.listen(0, '127.0.0.1', () => console.log(server.address().port)));
`;

function startServer(mode, files) {
  const child =
    mode === 'go'
      ? spawn(values.go, [JSON.stringify(files)], { stdio: ['ignore', 'pipe', 'inherit'] })
      : spawn(process.execPath, ['-e', SERVER, mode, JSON.stringify(files), DIST], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const port = Number.parseInt(out, 10);
      if (out.includes('\n') && port > 0) resolve({ child, port });
    });
    child.once('exit', (code) => reject(new Error(`${mode} server exited (${code})`)));
  });
}

function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

function once(port, ca, client) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', ca, ...client, agent: false, minVersion: 'TLSv1.3', servername: 'localhost' }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Opens `count` connections; a failed one is counted by its error code (printed beside the figure), never thrown. */
async function load(port, ca, client, count) {
  let next = 0;
  const failures = {};
  const lane = async () => {
    while (next < count) {
      next += 1;
      await once(port, ca, client).catch((error) => (failures[error.code ?? error.message] = (failures[error.code ?? error.message] ?? 0) + 1));
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  return failures;
}

const dir = mkdtempSync(join(tmpdir(), 'ops-tls-newconn-'));
try {
  const pki = makePki(dir, 6);
  const modes = ['raw-plain', 'raw-mtls', 'raw-mtls-keylog', 'raw-mtls-walk', 'raw-request-no-ca', 'ours', 'ours-real-cas', ...(values.go ? ['go'] : [])].filter((m) =>
    new RegExp(values.only).test(m),
  );
  console.log(
    `load average at start: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; ${CONNECTIONS} new TLS 1.3 connections, ${CONCURRENCY} at a time, one GET each; ${process.version}`,
  );
  const results = new Map();
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of modes) {
      for (const [chainName, client] of Object.entries(pki.clients)) {
        if (mode === 'raw-plain' && chainName === 'long') continue;
        const { child, port } = await startServer(mode, pki.files);
        try {
          const clientOptions = mode === 'raw-plain' ? {} : client;
          await load(port, pki.ca, clientOptions, 200); // warm-up (and, for ours, the verifier thread and verdict cache)
          const before = cpuSeconds(child.pid);
          const failures = await load(port, pki.ca, clientOptions, CONNECTIONS);
          const micros = ((cpuSeconds(child.pid) - before) / CONNECTIONS) * 1e6;
          const key = `${mode} (${mode === 'raw-plain' ? 'no client cert' : chainName === 'long' ? 'leaf + 6 intermediates' : 'leaf'})`;
          const failed = Object.entries(failures).map(([code, n]) => `${n}× ${code}`);
          results.set(key, [...(results.get(key) ?? []), `${Math.round(micros)}${failed.length > 0 ? ` (failed: ${failed.join(', ')})` : ''}`]);
        } finally {
          child.kill();
        }
      }
    }
  }
  console.log('\nserver CPU per new connection (µs), one figure per round:');
  for (const [key, figures] of results) console.log(`  ${key.padEnd(48)} ${figures.join('  ')}`);
  console.log(
    `load average at end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
