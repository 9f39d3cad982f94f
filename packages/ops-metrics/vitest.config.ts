import { packageProject } from '../../vitest.shared.ts';

const base = packageProject('@fabric-ops/ops-metrics');
// OpenTelemetry's packages offer their ESM build under the `module` condition and field, with
// extension-less relative imports that only a bundler resolves; Node itself loads their CommonJS
// build, so the tests do too.
const conditions = ['@fabric-ops/source', 'node', 'import', 'default'];

export default {
  ...base,
  resolve: { ...base.resolve, conditions, mainFields: ['main'] },
  ssr: { ...base.ssr, resolve: { ...base.ssr?.resolve, conditions } },
};
