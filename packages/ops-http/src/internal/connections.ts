import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Most requests a connection may have waiting behind one still being handled. Go reads the next
 * request only once the previous one is answered, so a deeper pipeline just waits in TCP there;
 * here the parser has already read them, so past this many the connection is closed rather than
 * holding an unbounded number of parsed requests.
 */
export const MAX_QUEUED_REQUESTS = 64;

/** What the router keeps per connection: one object for its whole life, nothing per request. */
export interface Connection {
  readonly socket: Socket;
  /** The response being served (or last served), and when it must be finished by (ms epoch). */
  res: ServerResponse | undefined;
  due: number;
  /** A handler's promise is still pending: later requests on this connection wait in `queue`. */
  busy: boolean;
  /** Waiting requests, as request/response pairs; empty unless the client pipelines. */
  readonly queue: (IncomingMessage | ServerResponse)[];
  /** The request being handled asynchronously (its handler's promise is pending). */
  req: IncomingMessage | undefined;
  /** Bound once per connection, so that settling a handler's promise allocates nothing per request. */
  readonly settled: () => void;
  readonly failed: (error: unknown) => void;
  /** A response's 'finish' listener (one per connection): lets go of the response once it is written. */
  readonly release: (this: ServerResponse) => void;
}

const CONNECTION = Symbol('fabric-ops.connection');
type TrackedSocket = Socket & { [CONNECTION]?: Connection };

/**
 * The connections that have carried a request, with one sweeper enforcing the write deadline
 * (Go's WriteTimeout): a response not completely written by `due` has its connection destroyed.
 * As in Go's server the deadline belongs to the connection and is re-armed when each request
 * starts being served; an idle keep-alive connection has nothing to write and is left alone.
 */
export class ConnectionTable {
  readonly #open = new Set<Connection>();
  readonly #writeTimeoutMs: number;
  readonly #onSettled: (connection: Connection) => void;
  readonly #onFailed: (connection: Connection, error: unknown) => void;
  #sweeper: NodeJS.Timeout | undefined;
  readonly #forget = (socket: TrackedSocket): void => {
    const connection = socket[CONNECTION];
    if (connection === undefined) return;
    this.#open.delete(connection);
    connection.queue.length = 0;
    if (this.#open.size === 0) this.#stopSweeper();
  };

  constructor(writeTimeoutMs: number, onSettled: (connection: Connection) => void, onFailed: (connection: Connection, error: unknown) => void) {
    this.#writeTimeoutMs = writeTimeoutMs;
    this.#onSettled = onSettled;
    this.#onFailed = onFailed;
  }

  /** The connection `req` arrived on, tracked from its first request until its socket closes. */
  of(req: IncomingMessage): Connection {
    const socket = req.socket as TrackedSocket;
    const known = socket[CONNECTION];
    if (known !== undefined) return known;
    const connection: Connection = {
      socket,
      res: undefined,
      due: 0,
      busy: false,
      queue: [],
      req: undefined,
      settled: () => this.#onSettled(connection),
      failed: (error) => this.#onFailed(connection, error),
      release(this: ServerResponse) {
        if (connection.res === this) connection.res = undefined;
      },
    };
    socket[CONNECTION] = connection;
    this.#open.add(connection);
    socket.once('close', () => this.#forget(socket));
    if (this.#sweeper === undefined) {
      this.#sweeper = setInterval(() => this.#sweep(), Math.max(10, Math.min(1_000, this.#writeTimeoutMs / 4)));
      this.#sweeper.unref();
    }
    return connection;
  }

  /** Starts the write deadline of `res`, the response now being served on `connection`. */
  serving(connection: Connection, res: ServerResponse): void {
    connection.res = res;
    connection.due = Date.now() + this.#writeTimeoutMs;
    // A written response has nothing left for the deadline to guard. Held until the next request
    // instead, it would outlive the young-generation collections in between on every busy
    // keep-alive connection (Node itself lets go of it at 'finish'), and that survival is what
    // makes V8 grow its young generation under load.
    res.on('finish', connection.release);
  }

  /** Responses being served and not yet completely written. */
  *inFlight(): IterableIterator<ServerResponse> {
    for (const { res } of this.#open) if (res !== undefined && !res.writableFinished) yield res;
  }

  #sweep(): void {
    const now = Date.now();
    for (const connection of this.#open) {
      const { res } = connection;
      if (res === undefined) continue;
      // Drop closed responses so that an idle connection does not keep its last request alive.
      if (res.destroyed) connection.res = undefined;
      else if (connection.due <= now && !res.writableFinished) connection.socket.destroy();
    }
  }

  #stopSweeper(): void {
    if (this.#sweeper !== undefined) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  }
}
