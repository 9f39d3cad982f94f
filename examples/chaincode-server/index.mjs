// A Fabric chaincode-as-a-service server (fabric-shim) with the operations service beside it.
// @ts-check
//
//   node examples/chaincode-server/index.mjs
//
// Environment: CHAINCODE_SERVER_ADDRESS (the chaincode's gRPC server, where the peer connects;
// default 127.0.0.1:9999), CHAINCODE_ID (the package ID the peer knows it by; default
// basic_1.0:0000), OPS_ADDRESS (the operations server, plain HTTP; default 127.0.0.1:9443),
// FABRIC_LOGGING_SPEC (the initial spec, default info).
//
// /healthz, /version, /metrics and /logspec answer as the peer's do. fabric-shim logs through
// winston and can only set one level for all of its loggers, read once from
// CORE_CHAINCODE_LOGGING_LEVEL; here PUT /logspec sets each logger's level by Fabric's rules,
// live, per name: the chaincode's own logger `basic` (shim.newLogger('basic')) and the shim's
// `shim.server`, `shim.handler`, `shim.chaincode`, `shim.stub`, `shim.iterators`.
//
//   curl -X PUT -d '{"spec":"shim.handler=debug:basic=debug:info"}' 127.0.0.1:9443/logspec
//   node examples/chaincode-server/peer-call.mjs ping hello   # stands in for a peer: one invoke
//
// SIGTERM (or Ctrl-C) stops both servers and exits 0.
import { createRequire } from 'node:module';
import shim from 'fabric-shim';
import { createWinstonLogging } from '@fabric-ops/ops-logspec/winston';
import { createOperationsSystem } from '@fabric-ops/ops-server';

const chaincodeAddress = process.env.CHAINCODE_SERVER_ADDRESS || '127.0.0.1:9999';
const chaincodeId = process.env.CHAINCODE_ID || 'basic_1.0:0000';
const opsAddress = process.env.OPS_ADDRESS || '127.0.0.1:9443';

const require = createRequire(import.meta.url);
const shimVersion = /** @type {{ version: string }} */ (require('fabric-shim/package.json')).version;

const operations = createOperationsSystem({
  listenAddress: opsAddress,
  version: { version: shimVersion, commitSHA: 'example' },
  metrics: { provider: 'prometheus' },
});

// The operations server's pino loggers and the shim's winston loggers follow the same levels.
const winstonLogging = createWinstonLogging({ levels: operations.logging.levels });

// The chaincode's own logger: made once (fabric-shim resets a logger's level to
// CORE_CHAINCODE_LOGGING_LEVEL each time newLogger is called for its name again).
const log = shim.newLogger('basic');
winstonLogging.follow('basic', log);

// fabric-shim's own loggers, one per source file, under `shim.<file>`. Its logger module is
// where it keeps them (getLogger returns the one it made at load time).
/** @type {{ getLogger(name: string): import('winston').Logger }} */
const shimLoggers = require('fabric-shim/lib/logger.js');
for (const file of ['chaincode', 'handler', 'iterators', 'server', 'stub']) {
  winstonLogging.follow(`shim.${file}`, shimLoggers.getLogger(`lib/${file}.js`));
}

/** @type {import('fabric-shim').ChaincodeInterface} */
const chaincode = {
  async Init(stub) {
    log.info(`init on channel ${stub.getChannelID()}`);
    return shim.success();
  },
  async Invoke(stub) {
    const { fcn, params } = stub.getFunctionAndParameters();
    log.debug(`invoke ${fcn} params=${JSON.stringify(params)} tx=${stub.getTxID()}`);
    log.info(`invoke ${fcn}`);
    if (fcn === 'ping') return shim.success(Buffer.from(['pong', ...params].join(' ')));
    log.warn(`unknown function ${fcn}`);
    return shim.error(`unknown function ${fcn}`);
  },
};

// shim.server (fabric-shim 2.2+) is missing from the package's type declarations.
/** @type {{ start(): Promise<void>; _server: { tryShutdown(done: (error?: Error) => void): void; forceShutdown(): void } }} */
const server = /** @type {any} */ (shim).server(chaincode, { ccid: chaincodeId, address: chaincodeAddress });

// /healthz fails until the chaincode's gRPC server is listening.
let listening = false;
operations.registerChecker('chaincode', async () => {
  if (!listening) throw new Error(`chaincode server not listening on ${chaincodeAddress}`);
});

await operations.start();
await server.start();
listening = true;
log.info(`chaincode ${chaincodeId} on ${chaincodeAddress} (gRPC), operations on http://${operations.address()}`);

// fabric-shim's ChaincodeServer has start() but no stop(): its grpc-js server is `_server`.
const grpcServer = server._server;

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  listening = false;
  // A connected peer keeps its stream open: give it a moment, then cut it.
  const forced = setTimeout(() => grpcServer.forceShutdown(), 2_000);
  await Promise.all([new Promise((resolve) => grpcServer.tryShutdown(() => resolve(undefined))), operations.stop()]);
  clearTimeout(forced);
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
