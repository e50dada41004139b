import { defineProject } from 'vitest/config';

export default defineProject({
  extends: true,
  resolve: { conditions: ['@cookbook/source'] },
  ssr: { resolve: { conditions: ['@cookbook/source'] } },
  // The integration proof trains a real (tiny) model on the embedded service.
  test: { name: 'rl', testTimeout: 300_000, hookTimeout: 120_000 },
});
