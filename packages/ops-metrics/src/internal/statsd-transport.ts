import type * as Dgram from 'node:dgram';
import type { Socket as UdpSocket } from 'node:dgram';
import type * as DnsPromises from 'node:dns/promises';
import { createRequire } from 'node:module';
import { isIP, connect, type Socket } from 'node:net';
import { formatHostPort } from '@fabric-ops/ops-http/go';
import { backoffDelayMs, packLines } from './statsd-aggregate.ts';
import type { MetricsLogger } from './types.ts';

export const DEFAULT_MAX_PENDING_LINES = 10_000;
export const DEFAULT_MAX_SOCKET_BUFFER_BYTES: number = 256 * 1024;
/** Fits one Ethernet-MTU datagram with IP/UDP headers to spare. */
const UDP_PACKET_BYTES = 1_432;
const TCP_WRITE_BYTES = 64 * 1024;
/** Longest line accepted (UTF-16 units, so at most 3× in bytes: still below a UDP datagram's 65 507). */
const MAX_LINE_LENGTH = 16 * 1024;
/** How long a resolved daemon address is used before it is looked up again. */
const DNS_TTL_MS = 60_000;
/** At most one "lines dropped" warning per this interval. */
const DROP_WARNING_INTERVAL_MS = 60_000;

// node:dgram and node:dns/promises are loaded when a StatsD transport first needs them, not when
// ops-metrics is imported: a Prometheus process never holds their code and bindings.
const requireBuiltin = createRequire(import.meta.url);
const dgram = (): typeof Dgram => requireBuiltin('node:dgram') as typeof Dgram;
const dns = (): typeof DnsPromises => requireBuiltin('node:dns/promises') as typeof DnsPromises;

export interface StatsdTransportOptions {
  readonly network: 'udp' | 'tcp';
  readonly host: string;
  readonly port: number;
  readonly logger?: MetricsLogger;
  /** Lines held while the daemon is unreachable or not reading; the oldest are dropped beyond it. Default 10 000. */
  readonly maxPendingLines?: number;
  /** TCP: bytes allowed in the socket's write queue; further lines wait in the bounded queue. Default 256 KiB. */
  readonly maxSocketBufferBytes?: number;
  /** How long one TCP connection attempt may take. Default 5 000 ms. */
  readonly connectTimeoutMs?: number;
  /** First reconnect delay (then doubling). Default 1 000 ms. */
  readonly initialBackoffMs?: number;
  /** Longest reconnect delay. Default 60 000 ms. */
  readonly maxBackoffMs?: number;
}

export interface StatsdTransportStats {
  /** UDP: the daemon's address is resolved; TCP: a connection is up. */
  readonly connected: boolean;
  readonly pendingLines: number;
  readonly sentLines: number;
  readonly droppedLines: number;
  readonly reconnects: number;
  /** TCP: bytes waiting in the socket's write queue (bounded by maxSocketBufferBytes plus one write). */
  readonly socketBufferedBytes: number;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== undefined && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
  }
  return String(error);
}

/**
 * Delivers StatsD lines on sockets of its own (node:dgram, node:net) and survives the
 * daemon. Every buffer toward it is bounded: lines wait in one queue of at most
 * `maxPendingLines` (the oldest dropped and counted beyond it), and over TCP no more
 * than `maxSocketBufferBytes` are handed to the socket until it drains, so a daemon
 * that accepts and never reads costs a fixed amount of memory. Over TCP it reconnects
 * with exponential backoff (1 s doubling to 1 min); a failed send puts its lines back
 * in the queue. No error escapes to the process.
 */
export class StatsdTransport {
  private readonly maxPending: number;
  private readonly maxSocketBuffer: number;
  private pending: string[] = [];
  private udp: UdpSocket | undefined;
  private udpAddress: { address: string; family: 4 | 6; resolvedAt: number } | undefined;
  private resolving = false;
  private socket: Socket | undefined;
  private connected = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private stopped = true;
  private inFlight = 0;
  private idle: (() => void)[] = [];
  private lastWarning = '';
  private lastDropWarningAt = -Infinity;
  private droppedSinceWarning = 0;
  private sent = 0;
  private dropped = 0;
  private droppedReported = 0;
  private reconnects = 0;

  constructor(private readonly options: StatsdTransportOptions) {
    this.maxPending = options.maxPendingLines ?? DEFAULT_MAX_PENDING_LINES;
    this.maxSocketBuffer = options.maxSocketBufferBytes ?? DEFAULT_MAX_SOCKET_BUFFER_BYTES;
  }

  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    if (this.options.network === 'udp') this.resolveUdp();
    else this.connectTcp();
  }

  /** Queues lines and sends whatever the connection allows right now. */
  send(lines: readonly string[]): void {
    if (lines.length > 0) {
      for (const line of lines) {
        // A line no datagram can carry would fail and return to the queue forever.
        if (line.length > MAX_LINE_LENGTH) this.drop(1);
        else this.pending.push(line);
      }
      this.trim();
    }
    this.deliver();
  }

  stats(): StatsdTransportStats {
    return {
      connected: this.options.network === 'udp' ? this.udpAddress !== undefined : this.connected,
      pendingLines: this.pending.length,
      sentLines: this.sent,
      droppedLines: this.dropped,
      reconnects: this.reconnects,
      socketBufferedBytes: this.socket?.writableLength ?? 0,
    };
  }

  /** Lines dropped since the last call (for the drop counter metric). */
  takeDroppedCount(): number {
    const delta = this.dropped - this.droppedReported;
    this.droppedReported = this.dropped;
    return delta;
  }

  /** Sends what is queued (waiting at most `graceMs` for it), then closes everything. */
  async stop(graceMs = 1_000): Promise<void> {
    if (this.stopped) return;
    this.deliver();
    if (this.inFlight > 0 || (this.socket?.writableLength ?? 0) > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        timer.unref();
        this.idle.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    this.udp?.close();
    this.udp = undefined;
    this.socket?.destroy();
    this.socket = undefined;
    this.connected = false;
  }

  private drop(count: number): void {
    this.dropped += count;
    this.droppedSinceWarning += count;
    const now = Date.now();
    if (now - this.lastDropWarningAt < DROP_WARNING_INTERVAL_MS) return;
    this.lastDropWarningAt = now;
    const why =
      this.options.network === 'tcp' && this.connected
        ? `tcp ${this.target()} is not reading (${this.socket?.writableLength ?? 0} bytes wait in the socket)`
        : `${this.options.network} ${this.target()} is unreachable`;
    this.options.logger?.warn(`statsd: ${why}; dropped ${this.droppedSinceWarning} lines beyond the ${this.maxPending}-line queue`);
    this.droppedSinceWarning = 0;
  }

  private trim(): void {
    const excess = this.pending.length - this.maxPending;
    if (excess > 0) {
      this.pending.splice(0, excess);
      this.drop(excess);
    }
  }

  private warn(message: string): void {
    // Repeating the same failure every flush would flood the log.
    if (message === this.lastWarning) return;
    this.lastWarning = message;
    this.options.logger?.warn(message);
  }

  private settle(): void {
    if (this.inFlight === 0 && (this.socket?.writableLength ?? 0) === 0) for (const wake of this.idle.splice(0)) wake();
  }

  private deliver(): void {
    if (this.stopped || this.pending.length === 0) return;
    if (this.options.network === 'udp') this.deliverUdp();
    else this.deliverTcp();
  }

  private deliverUdp(): void {
    const resolved = this.udpAddress;
    if (resolved === undefined || Date.now() - resolved.resolvedAt > DNS_TTL_MS) this.resolveUdp();
    if (resolved === undefined) return;
    const socket = (this.udp ??= this.udpSocket(resolved.family));
    const lines = this.pending;
    this.pending = [];
    for (const packet of packLines(lines, UDP_PACKET_BYTES)) {
      this.inFlight++;
      socket.send(packet.join('\n'), this.options.port, resolved.address, (error) => {
        this.inFlight--;
        if (error) this.requeue(packet, error, undefined);
        else this.sent += packet.length;
        this.settle();
      });
    }
  }

  /**
   * Writes while the socket's queue is under its bound; the rest waits in `pending`
   * (itself bounded) until `drain`. Without the check, `write()` would accept every
   * line a non-reading daemon never takes.
   */
  private deliverTcp(): void {
    const socket = this.socket;
    if (!this.connected || socket === undefined) return;
    while (this.pending.length > 0 && socket.writableLength < this.maxSocketBuffer) {
      const [packet = []] = packLines(this.pending.slice(0, 4_096), TCP_WRITE_BYTES);
      this.pending.splice(0, packet.length);
      this.inFlight++;
      socket.write(`${packet.join('\n')}\n`, (error) => {
        this.inFlight--;
        if (error) this.requeue(packet, error, socket);
        else this.sent += packet.length;
        this.settle();
      });
    }
  }

  /** A failed write's lines go back to the front of the queue; its connection (TCP) or address (UDP) is renewed. */
  private requeue(packet: readonly string[], error: Error, socket: Socket | undefined): void {
    this.pending.unshift(...packet);
    this.trim();
    if (this.stopped) return;
    this.warn(`statsd: sending to ${this.options.network} ${this.target()} failed: ${describe(error)}; keeping up to ${this.maxPending} lines`);
    if (socket !== undefined) socket.destroy();
    else if (isIP(this.options.host) === 0) this.udpAddress = undefined;
  }

  private target(): string {
    return formatHostPort(this.options.host, this.options.port);
  }

  private udpSocket(family: 4 | 6): UdpSocket {
    const socket = dgram().createSocket(family === 6 ? 'udp6' : 'udp4');
    socket.on('error', (error) => this.warn(`statsd: udp ${this.target()}: ${describe(error)}`));
    socket.unref();
    return socket;
  }

  /** One lookup per TTL instead of one per datagram; a failure is logged and retried on the next flush. */
  private resolveUdp(): void {
    if (this.resolving || this.stopped) return;
    const family = isIP(this.options.host);
    if (family === 4 || family === 6) {
      this.udpAddress = { address: this.options.host, family, resolvedAt: Infinity };
      return;
    }
    this.resolving = true;
    dns()
      .lookup(this.options.host)
      .then(
        ({ address, family: resolvedFamily }) => {
          this.resolving = false;
          const next = resolvedFamily === 6 ? 6 : 4;
          if (this.udp !== undefined && this.udpAddress?.family !== next) {
            this.udp.close();
            this.udp = undefined;
          }
          this.udpAddress = { address, family: next, resolvedAt: Date.now() };
          this.deliver();
        },
        (error: unknown) => {
          this.resolving = false;
          this.warn(`statsd: cannot resolve udp ${this.target()}: ${describe(error)}; keeping up to ${this.maxPending} lines`);
        },
      );
  }

  private connectTcp(): void {
    if (this.stopped) return;
    const socket = connect({ host: this.options.host, port: this.options.port });
    this.socket = socket;
    socket.setNoDelay(false);
    let failure: unknown;
    const timeoutMs = this.options.connectTimeoutMs ?? 5_000;
    const timeout = setTimeout(() => socket.destroy(new Error(`connection attempt timed out after ${timeoutMs} ms`)), timeoutMs);
    timeout.unref();
    socket.on('error', (error) => (failure = error));
    socket.on('drain', () => {
      this.deliver();
      this.settle();
    });
    socket.once('connect', () => {
      clearTimeout(timeout);
      if (this.failures > 0 || this.reconnects > 0) this.options.logger?.warn(`statsd: connected to tcp ${this.target()}; sending ${this.pending.length} queued lines`);
      this.failures = 0;
      this.lastWarning = '';
      this.connected = true;
      this.deliver();
    });
    socket.once('close', () => {
      clearTimeout(timeout);
      if (this.socket !== socket) return;
      const wasConnected = this.connected;
      this.connected = false;
      this.socket = undefined;
      this.settle();
      if (this.stopped) return;
      if (wasConnected) {
        this.reconnects++;
        this.options.logger?.warn(`statsd: connection to tcp ${this.target()} lost${failure === undefined ? '' : `: ${describe(failure)}`}; keeping up to ${this.maxPending} lines and reconnecting`);
        this.lastWarning = '';
      }
      this.failures++;
      const delay = backoffDelayMs(this.failures, this.options.initialBackoffMs ?? 1_000, this.options.maxBackoffMs ?? 60_000);
      if (!wasConnected) {
        this.warn(`statsd: cannot reach tcp ${this.target()}: ${describe(failure ?? 'connection closed')}; retrying with backoff (next in ${delay} ms)`);
      }
      this.reconnectTimer = setTimeout(() => this.connectTcp(), delay);
      this.reconnectTimer.unref();
    });
    socket.unref();
  }
}
