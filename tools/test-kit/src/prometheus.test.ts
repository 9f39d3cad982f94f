import { describe, expect, it } from 'vitest';
import { promtoolCheckMetrics } from './prometheus.ts';

describe('promtoolCheckMetrics', () => {
  it('passes a well-formed body with nothing printed', async () => {
    expect(await promtoolCheckMetrics('# HELP jobs_total Jobs.\n# TYPE jobs_total counter\njobs_total 3\n')).toEqual({ code: 0, output: '' });
  });

  it('gives the exit code and what promtool printed for a body it refuses', async () => {
    const result = await promtoolCheckMetrics('# TYPE jobs_total counter\njobs_total{ 3\n');
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/error while linting/);
  });
});
