// Server CPU per PUT /logspec, measured from the server process itself (process.cpuUsage),
// so the load generator's own cost is not counted. The server is createLogging (default
// destination: stdout, text format) + logspecHandler on node:http; its stdout is a pipe that
// this process reads, as a container runtime would.
//
//   node scripts/put-cost.mjs [module ...]     default module: this package's dist/index.js
//
// With several modules (e.g. a build from before a change), rounds alternate between them
// (A B A B A B) and the medians are printed.
import { fork } from 'node:child_process';
import { Agent, createServer, request } from 'node:http';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROUNDS = 3;
const WARMUP = 2_000;
const MEASURED = 10_000;
const SPECS = ['gossip.privdata=debug:info', 'info', 'peer.operations=warn:gossip=info:debug'];

if (process.argv[2] === '--serve') {
  const { createLogging, logspecHandler } = await import(process.argv[3]);
  const logging = createLogging();
  const handler = logspecHandler(logging);
  const server = createServer((req, res) => void handler(req, res)).listen(0, '127.0.0.1', () => {
    process.send({ port: server.address().port });
  });
  process.on('message', (message) => {
    if (message === 'cpu') process.send({ cpu: process.cpuUsage() });
    if (message === 'stop') server.close(() => process.exit(0));
  });
} else {
  const modules = process.argv.length > 2 ? process.argv.slice(2) : [fileURLToPath(new URL('../dist/index.js', import.meta.url))];
  const results = new Map(modules.map((m) => [m, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const module of modules) results.get(module).push(await measure(module));
  }
  for (const [module, figures] of results) {
    const sorted = [...figures].sort((a, b) => a - b);
    console.log(`${module}: median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} µs server CPU per PUT (rounds: ${figures.map((f) => f.toFixed(1)).join(', ')})`);
  }
}

async function measure(module) {
  const child = fork(fileURLToPath(import.meta.url), ['--serve', pathToFileURL(module).href], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  let logBytes = 0;
  child.stdout.on('data', (chunk) => (logBytes += chunk.length));
  const next = () => new Promise((resolve) => child.once('message', resolve));
  const { port } = await next();
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const put = (spec) =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/logspec', method: 'PUT', agent }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 204 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end(JSON.stringify({ spec }));
    });
  for (let i = 0; i < WARMUP; i++) await put(SPECS[i % SPECS.length]);
  child.send('cpu');
  const before = (await next()).cpu;
  for (let i = 0; i < MEASURED; i++) await put(SPECS[i % SPECS.length]);
  child.send('cpu');
  const after = (await next()).cpu;
  agent.destroy();
  child.send('stop');
  await new Promise((resolve) => child.once('exit', resolve));
  if (logBytes === 0) throw new Error('no audit lines reached stdout');
  return (after.user - before.user + after.system - before.system) / MEASURED;
}
