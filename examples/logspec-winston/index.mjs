// Fabric's /logspec for a service that logs with winston.
// @ts-check
//
//   node examples/logspec-winston/index.mjs
//
// Environment: OPS_ADDRESS (the operations server, plain HTTP; default 127.0.0.1:9443),
// APP_PORT (the service, default 8080), FABRIC_LOGGING_SPEC (the initial spec, default info).
//
// GET /log on the service logs one line at each of debug, info, warn and error through two
// winston loggers, app.db and app.http. The operations server's PUT /logspec sets their levels
// by Fabric's rules, per name, before it answers 204:
//
//   curl -X PUT -d '{"spec":"app.db=debug:warn"}' 127.0.0.1:9443/logspec
//   curl 127.0.0.1:8080/log     # app.db's debug line is printed, app.http's info line is not
import { createServer } from 'node:http';
import { createWinstonLogging } from '@fabric-ops/ops-logspec/winston';
import { createOperationsSystem } from '@fabric-ops/ops-server';

const opsAddress = process.env.OPS_ADDRESS || '127.0.0.1:9443';
const appPort = Number(process.env.APP_PORT || 8080);

// The operations server's own loggers are pino's; the service's are winston's. Both follow the
// same levels, so one PUT /logspec drives them all (and Fabric's logging_entries_* counters
// count both).
const operations = createOperationsSystem({
  listenAddress: opsAddress,
  version: { version: '1.0.0', commitSHA: 'example' },
  metrics: { provider: 'prometheus' },
});
const winstonLogging = createWinstonLogging({ levels: operations.logging.levels });
const loggers = [winstonLogging.getLogger('app.db'), winstonLogging.getLogger('app.http')];

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/log') {
    for (const logger of loggers) {
      logger.debug('a debug line');
      logger.info('an info line');
      logger.warn('a warn line');
      logger.error('an error line');
    }
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('logged\n');
    return;
  }
  res.writeHead(404, { 'Content-Type': 'text/plain' });
  res.end('not found\n');
});

await operations.start();
await new Promise((resolve, reject) => {
  server.once('error', reject);
  server.listen(appPort, '127.0.0.1', () => resolve(undefined));
});
const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
console.log(`logspec-winston: service on http://127.0.0.1:${port}, operations on http://${operations.address()}`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await new Promise((resolve) => server.close(() => resolve(undefined)));
  await operations.stop();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
