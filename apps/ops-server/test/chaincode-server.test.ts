// examples/chaincode-server as a real process: a fabric-shim chaincode-as-a-service server with
// the operations service beside it. A real gRPC exchange (examples/chaincode-server/peer-call.mjs,
// standing in for a peer) makes the chaincode and the shim log; PUT /logspec changes, per name,
// what they print.
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ERROR_CASES, freeTcpPort, send, SPEC_CASES } from '@fabric-ops/test-kit';
import { repoRoot, useExample } from './example-process.ts';

const run = promisify(execFile);
const ports = { ops: 0, chaincode: 0 };
const opsAddress = () => `127.0.0.1:${ports.ops}`;
const chaincodeAddress = () => `127.0.0.1:${ports.chaincode}`;
const example = useExample('chaincode-server/index.mjs', () => ({ OPS_ADDRESS: opsAddress(), CHAINCODE_SERVER_ADDRESS: chaincodeAddress(), CHAINCODE_ID: 'basic_1.0:test' }), {
  opsAddress,
  path: '/healthz',
});
// Picked while the file loads, before any hook starts the example.
ports.ops = await freeTcpPort();
ports.chaincode = await freeTcpPort();

const putSpec = (spec: string) => send(opsAddress(), '/logspec', { method: 'PUT', body: JSON.stringify({ spec }) });

/** One invoke through a real gRPC stream, then the lines the server printed for it. */
async function invoke(...args: string[]): Promise<string[]> {
  const from = example.output().length;
  const { stdout } = await run(process.execPath, [join(repoRoot, 'examples', 'chaincode-server', 'peer-call.mjs'), ...args], {
    env: { ...process.env, CHAINCODE_SERVER_ADDRESS: chaincodeAddress() },
    timeout: 30_000,
  });
  expect(stdout).toBe(`status 200: pong ${args.slice(1).join(' ')}\n`);
  const printed = await example.waitFor(() => {
    const text = example.output().slice(from);
    return text.includes('Calling chaincode Invoke() succeeded') ? text : undefined;
  }, 'the shim’s line for the completed invoke');
  // `<time> <level> [c-api:<name>] <message>`: keep level, name and message.
  return printed
    .split('\n')
    .map((line) => /^\S+ (\w+)\s+\[c-api:([^\]]+)\]\s+(.*?)\s*$/.exec(line))
    .flatMap((m) => (m === null ? [] : [`${m[1]} ${m[2]} ${m[3]}`]));
}

// Each invoke starts a node process for the stand-in peer: slow on a loaded machine.
describe('examples/chaincode-server', { timeout: 60_000 }, () => {
  it('listens for the peer on CHAINCODE_SERVER_ADDRESS and names the chaincode it serves', async () => {
    const socket = connect(ports.chaincode, '127.0.0.1');
    await once(socket, 'connect');
    socket.destroy();
    expect(example.output()).toContain(`chaincode basic_1.0:test on ${chaincodeAddress()} (gRPC)`);
  });

  it('answers /healthz, /version and /metrics as the peer does', async () => {
    const health = await send(opsAddress(), '/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toMatch(/^\{"status":"OK","time":"[^"]+"\}\n?$/);
    const version = await send(opsAddress(), '/version');
    expect(version.status).toBe(200);
    expect(JSON.parse(version.body)).toEqual({ CommitSHA: 'example', Version: expect.stringMatching(/^2\.\d+\.\d+$/) });
    const metrics = await send(opsAddress(), '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatch(/^# TYPE logging_entries_checked counter$/m);
  });

  it('answers /logspec as the peer does: Fabric’s normalised specs and error texts', async () => {
    for (const [input, normalised] of SPEC_CASES) {
      expect((await putSpec(input)).status).toBe(204);
      expect((await send(opsAddress(), '/logspec')).body).toBe(`${JSON.stringify({ spec: normalised })}\n`);
    }
    const [bad, message] = ERROR_CASES[0] ?? ['', ''];
    const refused = await putSpec(bad);
    expect(refused.status).toBe(400);
    expect(refused.body).toBe(`${JSON.stringify({ error: message })}\n`);
    expect((await putSpec('info')).status).toBe(204);
  });

  it('at info, the chaincode and the shim print their info lines only', async () => {
    const lines = await invoke('ping', 'a');
    expect(lines).toContain('info basic invoke ping');
    expect(lines).toContain('info lib/handler.js Successfully registered with peer node. State transferred to "established"');
    expect(lines.filter((l) => l.startsWith('debug '))).toEqual([]);
  });

  it('PUT /logspec sets the chaincode’s and the shim’s loggers live, per name', async () => {
    // The chaincode's own logger at debug; of the shim's, only the handler.
    expect((await putSpec('basic=debug:shim.handler=debug:info')).status).toBe(204);
    let lines = await invoke('ping', 'b', 'c');
    expect(lines).toContain('debug basic invoke ping params=["b","c"] tx=peer-call-tx');
    expect(lines).toContain('debug lib/handler.js [mychannel-peer-cal] Calling chaincode Invoke(), response status: 200');
    // shim.server stayed at info: its connect line is debug.
    expect(lines.some((l) => l.startsWith('debug lib/server.js'))).toBe(false);

    // Now the shim's server logger alone at debug, and the chaincode at warn.
    expect((await putSpec('shim.server=debug:basic=warn:info')).status).toBe(204);
    lines = await invoke('ping', 'd');
    expect(lines).toContain('debug lib/server.js ChaincodeServer.connect called.');
    expect(lines.some((l) => l.includes(' basic '))).toBe(false);
    expect(lines.some((l) => l.startsWith('debug lib/handler.js'))).toBe(false);
    expect(lines).toContain('info lib/handler.js Successfully registered with peer node. State transferred to "established"');
  });

  it('stops both servers on SIGTERM and exits 0', async () => {
    const exited = once(example.process, 'exit');
    example.process.kill('SIGTERM');
    expect(await exited).toEqual([0, null]);
    const refused = connect(ports.chaincode, '127.0.0.1');
    const [error] = (await once(refused, 'error')) as [NodeJS.ErrnoException];
    expect(error.code).toBe('ECONNREFUSED');
    expect((await send(opsAddress(), '/healthz').catch((e: NodeJS.ErrnoException) => ({ status: e.code }))).status).toBe('ECONNREFUSED');
  });
});
