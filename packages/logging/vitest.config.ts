import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@cookbook/source'] },
  ssr: { resolve: { conditions: ['@cookbook/source'] } },
  test: { name: 'logging' },
});
