// Test-only (not published): the problem lines of a refused configuration, shared by the
// loader's test files.
import { isConfigError } from './errors.ts';

/** The problem lines a failing load reports (and a failure if it loads). */
export function problemsOf(run: () => unknown): readonly string[] {
  try {
    run();
  } catch (error) {
    if (isConfigError(error)) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError, but the configuration loaded');
}
