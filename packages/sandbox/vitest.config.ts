import { defineProject } from 'vitest/config';

export default defineProject({
  extends: true,
  resolve: { conditions: ['@cookbook/source'] },
  ssr: { resolve: { conditions: ['@cookbook/source'] } },
  test: { name: 'sandbox', testTimeout: 120_000, hookTimeout: 60_000 },
});
