// @ts-check
// Runs the embedding example until Ctrl-C or SIGTERM:
//   node examples/embedding/main.mjs
// PORT (default 8080) is the service's port, OPERATIONS_ADDRESS (default 127.0.0.1:9443) the
// operations server's; 0 picks a free port.
import { startService } from './service.mjs';

const service = await startService({
  port: Number(process.env['PORT'] ?? 8080),
  operationsAddress: process.env['OPERATIONS_ADDRESS'] ?? '127.0.0.1:9443',
});
process.stdout.write(`orders service on ${service.url}, operations on http://${service.operationsAddress}\n`);

const stop = () => void service.stop().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
