// Stands in for a Fabric peer for one call: connects to the chaincode server over gRPC as a peer
// does, answers its registration, sends one transaction and prints the chaincode's response.
// @ts-check
//
//   node examples/chaincode-server/peer-call.mjs [function] [args...]     (default: ping)
//
// Environment: CHAINCODE_SERVER_ADDRESS (default 127.0.0.1:9999). Exits 0 when the chaincode
// answers with status 200, 1 otherwise.
import grpc from '@grpc/grpc-js';
import protos from '@hyperledger/fabric-protos';

const { peer } = protos;
const Type = peer.ChaincodeMessage.Type;
const address = process.env.CHAINCODE_SERVER_ADDRESS || '127.0.0.1:9999';
const args = process.argv.length > 2 ? process.argv.slice(2) : ['ping'];

const Client = grpc.makeGenericClientConstructor(peer.ChaincodeService, 'Chaincode');
const client = new Client(address, grpc.credentials.createInsecure());
const stream = /** @type {grpc.ClientDuplexStream<import('@hyperledger/fabric-protos').peer.ChaincodeMessage, import('@hyperledger/fabric-protos').peer.ChaincodeMessage>} */ (
  /** @type {any} */ (client).connect()
);

/**
 * @param {Parameters<import('@hyperledger/fabric-protos').peer.ChaincodeMessage['setType']>[0]} type
 * @param {Uint8Array} [payload]
 */
function message(type, payload) {
  const msg = new peer.ChaincodeMessage();
  msg.setType(type);
  msg.setTxid('peer-call-tx');
  msg.setChannelId('mychannel');
  if (payload !== undefined) msg.setPayload(payload);
  return msg;
}

const deadline = setTimeout(() => {
  console.error(`no answer from the chaincode at ${address} within 10 s`);
  process.exit(1);
}, 10_000);

stream.on('data', (/** @type {import('@hyperledger/fabric-protos').peer.ChaincodeMessage} */ msg) => {
  const type = msg.getType();
  if (type === Type.REGISTER) {
    // The chaincode introduced itself: accept it, tell it to get ready, then invoke.
    stream.write(message(Type.REGISTERED));
    stream.write(message(Type.READY));
    const input = new peer.ChaincodeInput();
    input.setArgsList(args.map((arg) => Buffer.from(arg)));
    stream.write(message(Type.TRANSACTION, input.serializeBinary()));
    return;
  }
  if (type === Type.COMPLETED || type === Type.ERROR) {
    clearTimeout(deadline);
    if (type === Type.ERROR) {
      console.log(`error: ${Buffer.from(msg.getPayload_asU8()).toString()}`);
      process.exitCode = 1;
    } else {
      const response = peer.Response.deserializeBinary(msg.getPayload_asU8());
      console.log(`status ${response.getStatus()}: ${Buffer.from(response.getPayload_asU8()).toString()}`);
      process.exitCode = response.getStatus() === 200 ? 0 : 1;
    }
    stream.end();
    client.close();
  }
});
stream.on('error', (/** @type {Error} */ error) => {
  // The stream ends with CANCELLED once we close it; anything before an answer is a failure.
  if (process.exitCode === undefined) {
    console.error(`gRPC: ${error.message}`);
    process.exit(1);
  }
});
