import { defineConfig, type ViteUserConfig } from 'vitest/config';
import { projects } from './vitest.workspace.ts';

const config: ViteUserConfig = defineConfig({
  test: {
    projects,
    reporters: ['default', './scripts/summary-reporter.ts'],
  },
});

export default config;
