/**
 * The quantile estimate behind a Summary: a sliding time window of `ageBuckets` slices, each a
 * log-bucketed sketch (the DDSketch idea: a value goes to bin `ceil(log_γ |v|)`, γ = (1+α)/(1−α)),
 * so any quantile read back is within a relative error α of a value actually observed at that
 * rank. Memory is bounded whatever the observation rate or the values: at most MAX_BINS bins per
 * sign per slice, 8 bytes each (past that the bins nearest zero are folded together, which only
 * coarsens the smallest values).
 * Slices merge exactly (bin counts add up), so an observation is written once, into the current
 * slice, and a read merges the slices of the window.
 */

/** Relative accuracy of every quantile: within 1% of a value observed at that rank. */
export const RELATIVE_ACCURACY = 0.01;
/** Bins per sign per slice; γ^1024 at α = 1% spans about 9 decimal orders of magnitude. */
export const MAX_BINS = 1024;

const GAMMA = (1 + RELATIVE_ACCURACY) / (1 - RELATIVE_ACCURACY);
const LOG_GAMMA = Math.log(GAMMA);
/** Smaller magnitudes count as zero (far below any duration or size worth a quantile). */
const MIN_MAGNITUDE = 1e-9;

function binOf(magnitude: number): number {
  return Math.ceil(Math.log(magnitude) / LOG_GAMMA);
}

/** The value a bin stands for: the point with relative distance α to both of its ends. */
function valueOf(bin: number): number {
  return (2 * Math.pow(GAMMA, bin)) / (GAMMA + 1);
}

/** The ring's first size; it doubles (up to MAX_BINS) as the values spread. */
const INITIAL_CAPACITY = 16;

/** Bin visits made by folding and growing, over all stores: what the tests count, since time varies. */
let binSteps = 0;
export function binStoreSteps(): number {
  return binSteps;
}

/**
 * Counts per bin of one sign over a contiguous range `[lo, hi]` of at most MAX_BINS bins, in a
 * ring (a bin's slot is `bin & (capacity - 1)`). A bin below the range counts in its lowest bin;
 * a bin above it moves the range up, folding the bins that leave into the new lowest one. Each
 * bin is folded once after it entered the range and each doubling copies the range once, so an
 * observation costs O(1) amortised, whatever values an attacker chooses (a long jump visits at
 * most the range's bins, never more). Memory: 8 bytes a bin, at most 8 KiB.
 */
class BinStore {
  private counts: Float64Array | undefined;
  private lo = 0;
  private hi = -1;

  add(bin: number, count: number): void {
    if (this.counts === undefined) {
      this.counts = new Float64Array(INITIAL_CAPACITY);
      this.lo = this.hi = bin;
    } else if (bin < this.lo) {
      if (this.hi - bin < MAX_BINS) {
        this.reserve(this.hi - bin + 1);
        this.lo = bin;
      } else bin = this.lo;
    } else if (bin > this.hi) {
      const lowest = bin - MAX_BINS + 1;
      if (lowest > this.lo) this.foldBelow(lowest);
      this.reserve(bin - this.lo + 1);
      this.hi = bin;
    }
    this.counts![bin & (this.counts!.length - 1)]! += count;
  }

  /** Every bin below `lowest` counted in `lowest`, which becomes the range's first bin. */
  private foldBelow(lowest: number): void {
    const counts = this.counts!;
    const mask = counts.length - 1;
    const last = Math.min(this.hi, lowest - 1);
    let moved = 0;
    for (let bin = this.lo; bin <= last; bin++) {
      binSteps++;
      moved += counts[bin & mask]!;
      counts[bin & mask] = 0;
    }
    if (this.hi < lowest) this.hi = lowest;
    this.lo = lowest;
    counts[lowest & mask]! += moved;
  }

  /** Room for `span` bins from `lo`: the ring doubles and the range is copied to its new slots. */
  private reserve(span: number): void {
    const old = this.counts!;
    if (span <= old.length) return;
    let capacity = old.length;
    while (capacity < span) capacity *= 2;
    const counts = new Float64Array(Math.min(capacity, MAX_BINS));
    for (let bin = this.lo; bin <= this.hi; bin++) {
      binSteps++;
      counts[bin & (counts.length - 1)] = old[bin & (old.length - 1)]!;
    }
    this.counts = counts;
  }

  /** Bins in use: what a test checks against MAX_BINS. */
  get size(): number {
    return this.counts === undefined ? 0 : this.hi - this.lo + 1;
  }

  /** `[bin, count]` for every bin that holds a count, lowest first. */
  *entries(): Generator<[bin: number, count: number]> {
    const counts = this.counts;
    if (counts === undefined) return;
    const mask = counts.length - 1;
    for (let bin = this.lo; bin <= this.hi; bin++) {
      const count = counts[bin & mask]!;
      if (count > 0) yield [bin, count];
    }
  }
}

/** One slice of the window: what was observed during it. */
class Slice {
  positive = new BinStore();
  negative = new BinStore();
  zero = 0;
  count = 0;

  observe(value: number): void {
    this.count++;
    const magnitude = Math.abs(value);
    if (magnitude < MIN_MAGNITUDE) this.zero++;
    else if (value > 0) this.positive.add(binOf(Math.min(magnitude, Number.MAX_VALUE)), 1);
    else this.negative.add(binOf(Math.min(magnitude, Number.MAX_VALUE)), 1);
  }

  clear(): void {
    if (this.count === 0) return;
    this.positive = new BinStore();
    this.negative = new BinStore();
    this.zero = 0;
    this.count = 0;
  }
}

export interface WindowOptions {
  readonly maxAgeMs: number;
  readonly ageBuckets: number;
  /** A monotonic clock in milliseconds (tests hand their own). */
  readonly now?: () => number;
}

/**
 * Observations of the last `maxAgeMs` (to within one slice, `maxAgeMs / ageBuckets`): a slice
 * older than the window is cleared when the clock next moves past it, on a write or a read.
 */
export class QuantileWindow {
  private readonly slices: Slice[];
  private readonly sliceMs: number;
  private readonly now: () => number;
  /** Index of the slice period (`floor(now / sliceMs)`) the current slice belongs to. */
  private period: number;

  constructor(options: WindowOptions) {
    this.slices = Array.from({ length: options.ageBuckets }, () => new Slice());
    this.sliceMs = options.maxAgeMs / options.ageBuckets;
    this.now = options.now ?? (() => performance.now());
    this.period = Math.floor(this.now() / this.sliceMs);
  }

  private rotate(): Slice {
    const period = Math.floor(this.now() / this.sliceMs);
    const slices = this.slices;
    if (period !== this.period) {
      // Clear every slice whose period ended a whole window ago (all of them after a long pause).
      const passed = Math.min(period - this.period, slices.length);
      for (let step = 1; step <= passed; step++) slices[(this.period + step) % slices.length]!.clear();
      this.period = period;
    }
    return slices[period % slices.length]!;
  }

  observe(value: number): void {
    this.rotate().observe(value);
  }

  /** Observations in the window. */
  get count(): number {
    this.rotate();
    let count = 0;
    for (const slice of this.slices) count += slice.count;
    return count;
  }

  /** The estimates for `quantiles` (ascending), NaN each when the window is empty (as client_golang). */
  quantiles(quantiles: readonly number[]): number[] {
    this.rotate();
    let zero = 0;
    let total = 0;
    const positive = new Map<number, number>();
    const negative = new Map<number, number>();
    for (const slice of this.slices) {
      zero += slice.zero;
      total += slice.count;
      for (const [bin, count] of slice.positive.entries()) positive.set(bin, (positive.get(bin) ?? 0) + count);
      for (const [bin, count] of slice.negative.entries()) negative.set(bin, (negative.get(bin) ?? 0) + count);
    }
    if (total === 0) return quantiles.map(() => NaN);
    // Ascending values: the most negative first, then zero, then the positive bins.
    const ordered: [value: number, count: number][] = [];
    for (const bin of [...negative.keys()].sort((a, b) => b - a)) ordered.push([-valueOf(bin), negative.get(bin)!]);
    if (zero > 0) ordered.push([0, zero]);
    for (const bin of [...positive.keys()].sort((a, b) => a - b)) ordered.push([valueOf(bin), positive.get(bin)!]);
    const estimates: number[] = [];
    let at = 0;
    let seen = ordered[0]![1];
    for (const quantile of quantiles) {
      // The observation of rank q·(n−1) (0-based), as a nearest-rank estimate.
      const rank = quantile * (total - 1);
      while (seen <= rank && at < ordered.length - 1) seen += ordered[++at]![1];
      estimates.push(ordered[at]![0]);
    }
    return estimates;
  }
}
