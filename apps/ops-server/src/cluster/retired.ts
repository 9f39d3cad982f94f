// What exited workers had counted, kept so the cluster's counters and histograms never go down
// when a worker is replaced. Bounded in series and characters: a worker whose series carry its
// pid (or a crash loop of them) would otherwise add its series for good at every exit.
import type { KeyedFamily, SeriesType } from '@fabric-ops/ops-metrics/cluster';
import type { WorkerSeries } from './worker-series.ts';

export interface RetiredLimits {
  /** Series kept for exited workers. */
  readonly series: number;
  /** Characters of their keys. */
  readonly chars: number;
}

interface RetiredFamily {
  readonly name: string;
  readonly help: string;
  readonly type: SeriesType;
  readonly keys: string[];
  readonly values: number[];
  readonly index: Map<string, number>;
}

/**
 * Exited workers' cumulative samples, summed by key. A sample whose key is held already is added
 * to it (`folded`); a new key is held only within the limits, else its counts are dropped
 * (`dropped`): that series leaves /metrics, the others keep their sums.
 */
export class RetiredSeries {
  private readonly families = new Map<string, RetiredFamily>();
  series = 0;
  chars = 0;
  folded = 0;
  dropped = 0;

  constructor(private readonly limits: RetiredLimits) {}

  retire(worker: WorkerSeries): void {
    const { families, cumulative } = worker.layout;
    const values = worker.values;
    let slot = 0;
    for (const family of families) {
      let kept = this.families.get(family.name);
      if (kept !== undefined && kept.type !== family.type) {
        for (let i = 0; i < family.keys.length; i++) if (cumulative[slot + i] === 1) this.dropped++;
        slot += family.keys.length;
        continue;
      }
      for (const key of family.keys) {
        const value = values[slot]!;
        if (cumulative[slot++] === 0) continue;
        const at = kept?.index.get(key);
        if (at !== undefined) {
          kept!.values[at]! += value;
          this.folded++;
          continue;
        }
        if (this.series >= this.limits.series || this.chars + key.length > this.limits.chars) {
          this.dropped++;
          continue;
        }
        if (kept === undefined) {
          kept = { name: family.name, help: family.help, type: family.type, keys: [], values: [], index: new Map() };
          this.families.set(family.name, kept);
        }
        kept.index.set(key, kept.keys.length);
        kept.keys.push(key);
        kept.values.push(value);
        this.series++;
        this.chars += key.length;
        this.folded++;
      }
    }
  }

  keyed(): KeyedFamily[] {
    return [...this.families.values()].map(({ name, help, type, keys, values }) => ({ name, help, type, keys, values, start: 0 }));
  }
}
