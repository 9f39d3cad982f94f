// How the runtime gauges every Node process reports combine across a cluster's processes.
import type { GaugeRule } from '@fabric-ops/ops-metrics/cluster';

/** Sensible rules for the runtime gauges every Node process reports. */
export const DEFAULT_GAUGE_RULES: Readonly<Record<string, GaugeRule>> = {
  process_start_time_seconds: 'min',
  process_max_fds: 'min',
  nodejs_eventloop_lag_seconds: 'max',
  nodejs_eventloop_lag_min_seconds: 'min',
  nodejs_eventloop_lag_max_seconds: 'max',
  nodejs_eventloop_lag_mean_seconds: 'max',
  nodejs_eventloop_lag_stddev_seconds: 'max',
  nodejs_eventloop_lag_p50_seconds: 'max',
  nodejs_eventloop_lag_p90_seconds: 'max',
  nodejs_eventloop_lag_p99_seconds: 'max',
  nodejs_version_info: 'max',
  fabric_version: 'max',
  // One failing worker makes the component unhealthy for the service.
  health_check_status: 'min',
};
