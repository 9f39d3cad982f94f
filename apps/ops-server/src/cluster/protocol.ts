// The messages the primary and its workers exchange over the IPC channel node:cluster and
// child_process.fork give every worker. Each carries a tag so that the application's own IPC
// messages on the same channel are left alone.

import type { SeriesFamily } from '@fabric-ops/ops-metrics/cluster';
import type { WireStatsdInterval } from './statsd-merge.ts';

export const PROTOCOL_TAG = 'fabric-ops/cluster/v1';

export type WorkerOperation = 'metrics' | 'health' | 'logspec' | 'statsd';

/** The primary's metrics provider, which decides how a worker keeps its metrics. */
export type ClusterMetricsKind = 'prometheus' | 'statsd' | 'disabled';

/**
 * What the primary asks a worker for. `metrics` names the layout the primary holds of the worker's
 * series (absent: none), so the worker sends its layout only when it differs, and the values it
 * holds (`values`: the `seq` of the reply they came whole or patched in; absent: none), so the
 * worker may send only the values changed since. `statsd` takes the worker's StatsD interval (the worker
 * forgets it once handed over).
 */
export type WorkerRequest =
  { readonly op: 'metrics'; readonly layout?: number; readonly values?: number } | { readonly op: 'health' } | { readonly op: 'logspec'; readonly spec: string } | { readonly op: 'statsd' };

/** Primary → worker. `metrics` is absent from a primary of an earlier version (read: prometheus). */
export type PrimaryMessage =
  | { readonly tag: typeof PROTOCOL_TAG; readonly type: 'init'; readonly spec: string; readonly metrics?: ClusterMetricsKind }
  | ({ readonly tag: typeof PROTOCOL_TAG; readonly type: 'request'; readonly id: number } & WorkerRequest);

/**
 * A worker's series on the wire: the numbers of its snapshot, and its layout (ops-metrics'
 * SeriesFamily list) whenever the primary asked with another layout id than `layoutId`. `values`
 * is the base64 of one Float64Array (what workers send: nothing printed or parsed per number),
 * or a list of numbers (non-finite ones as `NaN`, `+Inf`, `-Inf`, which JSON cannot carry), as
 * earlier workers sent.
 */
export interface WireSeries {
  readonly layoutId: number;
  readonly layout?: readonly SeriesFamily[];
  readonly values: string | readonly (number | string)[];
  /** This reply's values, numbered by the worker (absent from earlier workers). */
  readonly seq?: number;
  /**
   * Present when only changed values are sent: `changed` is the base64 of one Uint32Array of their
   * indices (ascending) and `values` holds their floats, in the same order; the others are those of
   * reply `base`, which the primary named in its request as the values it holds.
   */
  readonly base?: number;
  readonly changed?: string;
}

export interface WorkerHealth {
  readonly healthy: boolean;
  readonly failed: readonly { readonly component: string; readonly reason: string }[];
}

/** Worker → primary. */
export type WorkerMessage =
  | { readonly tag: typeof PROTOCOL_TAG; readonly type: 'hello' }
  | { readonly tag: typeof PROTOCOL_TAG; readonly type: 'ready'; readonly spec: string }
  | {
      readonly tag: typeof PROTOCOL_TAG;
      readonly type: 'reply';
      readonly id: number;
      readonly ok: true;
      /** A WireSeries as JSON: its size is known before anything of it is parsed. */
      readonly metrics?: string;
      readonly health?: WorkerHealth;
      readonly spec?: string;
      readonly statsd?: WireStatsdInterval;
    }
  /** A worker that is closing hands over its last StatsD interval unasked, so a clean stop loses nothing. */
  | { readonly tag: typeof PROTOCOL_TAG; readonly type: 'statsd-final'; readonly statsd: WireStatsdInterval }
  | { readonly tag: typeof PROTOCOL_TAG; readonly type: 'reply'; readonly id: number; readonly ok: false; readonly error: string };

export function isProtocolMessage(value: unknown): value is { tag: typeof PROTOCOL_TAG; type: string } {
  return typeof value === 'object' && value !== null && (value as { tag?: unknown }).tag === PROTOCOL_TAG;
}

/** The part of a cluster worker or forked child the primary talks to. */
export interface WorkerChannel {
  /** A send to a worker whose channel has closed reports through `callback` (else as an 'error' event). */
  send(message: PrimaryMessage, callback?: (error: Error | null) => void): unknown;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  on(event: 'exit', listener: (code: number | null, signal: NodeJS.Signals | null) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  off?(event: 'message', listener: (message: unknown) => void): unknown;
}
