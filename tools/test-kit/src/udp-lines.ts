import { createSocket } from 'node:dgram';
import type { Defer } from './cleanup.ts';

/**
 * A UDP socket on a free loopback port that keeps every non-empty line of every datagram (what a
 * StatsD daemon would be sent), in arrival order; closed when `defer`'s test ends.
 */
export async function udpLinesOnLoopback(defer: Defer): Promise<{ readonly port: number; readonly lines: string[] }> {
  const socket = createSocket('udp4');
  const lines: string[] = [];
  socket.on('message', (msg) => lines.push(...msg.toString().split('\n').filter(Boolean)));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  defer(() => new Promise<void>((resolve) => socket.close(() => resolve())));
  return { port: socket.address().port, lines };
}
