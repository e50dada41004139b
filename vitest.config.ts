import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@cookbook/source'] },
  ssr: { resolve: { conditions: ['@cookbook/source'] } },
  test: {
    projects: ['packages/*', 'apps/*'],
    reporters: ['default', './scripts/summary-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
