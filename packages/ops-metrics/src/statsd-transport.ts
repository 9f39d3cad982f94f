import { connect, type Socket } from 'node:net';
import type HotShotsClient from 'hot-shots';
import { MetricsError } from './errors.ts';
import { backoffDelayMs, packLines } from './statsd-aggregate.ts';
import type { MetricsLogger } from './types.ts';

export const DEFAULT_MAX_PENDING_LINES = 10_000;
/** Fits one Ethernet-MTU datagram with IP/UDP headers to spare. */
const UDP_PACKET_BYTES = 1_432;
const TCP_WRITE_BYTES = 64 * 1024;
/** Longest line accepted (UTF-16 units, so at most 3× in bytes: still below a UDP datagram's 65 507). */
const MAX_LINE_LENGTH = 16 * 1024;

type HotShotsConstructor = typeof HotShotsClient;
let hotShots: Promise<HotShotsConstructor> | undefined;

/** hot-shots is an optional peer dependency: loaded only when a StatsD provider starts. */
function loadHotShots(): Promise<HotShotsConstructor> {
  hotShots ??= import('hot-shots').then(
    (module) => ((module as { default?: HotShotsConstructor }).default ?? (module as unknown as HotShotsConstructor)),
    (cause: unknown) => {
      hotShots = undefined;
      throw new MetricsError('DEPENDENCY_MISSING', 'the statsd metrics provider needs the hot-shots package (npm install hot-shots)', { cause });
    },
  );
  return hotShots;
}

/** The part of a hot-shots client used here: raw lines with a delivery callback. */
interface LineClient {
  send(message: string, tags: undefined, callback: (error?: Error | null) => void): void;
  close(callback?: (error?: Error) => void): void;
}

export interface StatsdTransportOptions {
  readonly network: 'udp' | 'tcp';
  readonly host: string;
  readonly port: number;
  readonly logger?: MetricsLogger;
  /** Lines held while the daemon is unreachable; the oldest are dropped beyond it. Default 10 000. */
  readonly maxPendingLines?: number;
  /** How long one TCP connection attempt may take. Default 5 000 ms. */
  readonly connectTimeoutMs?: number;
  /** First reconnect delay (then doubling). Default 1 000 ms. */
  readonly initialBackoffMs?: number;
  /** Longest reconnect delay. Default 60 000 ms. */
  readonly maxBackoffMs?: number;
}

export interface StatsdTransportStats {
  /** UDP: always true once started; TCP: a connection is up. */
  readonly connected: boolean;
  readonly pendingLines: number;
  readonly sentLines: number;
  readonly droppedLines: number;
  readonly reconnects: number;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== undefined && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
  }
  return String(error);
}

/**
 * Delivers StatsD lines through hot-shots, and survives the daemon: over TCP it
 * connects itself, keeps lines in a bounded queue while the daemon is away and
 * reconnects with exponential backoff (1 s doubling to 1 min); a failed send over
 * either network puts its lines back in the queue. No error escapes to the process.
 */
export class StatsdTransport {
  private readonly maxPending: number;
  private pending: string[] = [];
  private client: LineClient | undefined;
  private socket: Socket | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private stopped = true;
  private inFlight = 0;
  private idle: (() => void)[] = [];
  private lastWarning = '';
  private sent = 0;
  private dropped = 0;
  private droppedReported = 0;
  private reconnects = 0;

  constructor(private readonly options: StatsdTransportOptions) {
    this.maxPending = options.maxPendingLines ?? DEFAULT_MAX_PENDING_LINES;
  }

  private HotShots: HotShotsConstructor | undefined;

  /** Loads hot-shots (rejecting with a MetricsError when it is not installed) and starts sending. */
  async start(): Promise<void> {
    if (!this.stopped) return;
    this.HotShots = await loadHotShots();
    this.stopped = false;
    if (this.options.network === 'udp') this.client = this.udpClient();
    else this.connectTcp();
  }

  /** Queues lines and sends whatever the connection allows right now. */
  send(lines: readonly string[]): void {
    if (lines.length > 0) {
      for (const line of lines) {
        // A line no datagram can carry would fail and return to the queue forever.
        if (line.length > MAX_LINE_LENGTH) this.dropped++;
        else this.pending.push(line);
      }
      this.trim();
    }
    this.deliver();
  }

  stats(): StatsdTransportStats {
    return {
      connected: this.client !== undefined,
      pendingLines: this.pending.length,
      sentLines: this.sent,
      droppedLines: this.dropped,
      reconnects: this.reconnects,
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
    if (this.inFlight > 0) {
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
    const client = this.client;
    this.client = undefined;
    if (client !== undefined && this.options.network === 'udp') {
      // hot-shots reports the close through its callback; never wait on it for long.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        timer.unref();
        safely(
          () => client.close(() => (clearTimeout(timer), resolve())),
          () => (clearTimeout(timer), resolve()),
        );
      });
    }
    // Over TCP the socket is ours: destroying it is the whole close.
    this.socket?.destroy();
    this.socket = undefined;
  }

  private trim(): void {
    const excess = this.pending.length - this.maxPending;
    if (excess > 0) {
      this.pending.splice(0, excess);
      this.dropped += excess;
    }
  }

  private warn(message: string): void {
    // Repeating the same failure every flush would flood the log.
    if (message === this.lastWarning) return;
    this.lastWarning = message;
    this.options.logger?.warn(message);
  }

  private deliver(): void {
    const client = this.client;
    if (client === undefined || this.pending.length === 0) return;
    const lines = this.pending;
    this.pending = [];
    const packets = packLines(lines, this.options.network === 'udp' ? UDP_PACKET_BYTES : TCP_WRITE_BYTES);
    for (const packet of packets) {
      this.inFlight++;
      const done = (error?: Error | null) => {
        this.inFlight--;
        if (error) {
          this.pending.unshift(...packet);
          this.trim();
          this.warn(`statsd: sending to ${this.options.network} ${this.target()} failed: ${describe(error)}; keeping up to ${this.maxPending} lines`);
          if (this.options.network === 'tcp' && client === this.client) this.dropConnection();
        } else {
          this.sent += packet.length;
        }
        if (this.inFlight === 0) for (const wake of this.idle.splice(0)) wake();
      };
      safely(() => client.send(packet.join('\n'), undefined, done), done);
    }
  }

  private target(): string {
    return this.options.host.includes(':') ? `[${this.options.host}]:${this.options.port}` : `${this.options.host}:${this.options.port}`;
  }

  private hotShotsOptions(): ConstructorParameters<HotShotsConstructor>[0] {
    return {
      maxBufferSize: 0,
      telegraf: false,
      datadog: false,
      includeDatadogTelemetry: false,
      errorHandler: (error: Error) => this.warn(`statsd: ${this.options.network} ${this.target()}: ${describe(error)}`),
    };
  }

  private udpClient(): LineClient {
    return new this.HotShots!({
      ...this.hotShotsOptions(),
      protocol: 'udp',
      host: this.options.host,
      port: this.options.port,
      // One lookup per TTL instead of one per send; a failed lookup reaches the send callback.
      cacheDns: true,
    }) as unknown as LineClient;
  }

  private connectTcp(): void {
    if (this.stopped) return;
    const socket = connect({ host: this.options.host, port: this.options.port });
    this.socket = socket;
    socket.setNoDelay(false);
    let failure: unknown;
    const timeout = setTimeout(() => socket.destroy(new Error(`connection attempt timed out after ${this.options.connectTimeoutMs ?? 5_000} ms`)), this.options.connectTimeoutMs ?? 5_000);
    timeout.unref();
    socket.on('error', (error) => (failure = error));
    socket.once('connect', () => {
      clearTimeout(timeout);
      if (this.failures > 0 || this.reconnects > 0) this.options.logger?.warn(`statsd: connected to tcp ${this.target()}; sending ${this.pending.length} queued lines`);
      this.failures = 0;
      this.lastWarning = '';
      this.client = new this.HotShots!({ ...this.hotShotsOptions(), protocol: 'stream', stream: socket }) as unknown as LineClient;
      this.deliver();
    });
    socket.once('close', () => {
      clearTimeout(timeout);
      if (this.socket !== socket) return;
      const wasConnected = this.client !== undefined;
      this.client = undefined;
      this.socket = undefined;
      if (this.stopped) return;
      if (wasConnected) {
        this.reconnects++;
        this.options.logger?.warn(
          `statsd: connection to tcp ${this.target()} lost${failure === undefined ? '' : `: ${describe(failure)}`}; keeping up to ${this.maxPending} lines and reconnecting`,
        );
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

  private dropConnection(): void {
    this.socket?.destroy();
  }
}

function safely(action: () => void, onError: (error: Error) => void): void {
  try {
    action();
  } catch (error) {
    onError(error instanceof Error ? error : new Error(String(error)));
  }
}
