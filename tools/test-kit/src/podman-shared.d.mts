import type { Socket } from 'node:net';

export function podmanServiceArgs(dir: string, socketPath: string): string[];
export function tieSocketPair(sockets: Set<Socket>, client: Socket, upstream: Socket): void;
