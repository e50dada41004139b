import { describe, expectTypeOf, it } from 'vitest';
import type { SamplingClientLike, ServiceClientLike, TrainingClientLike } from './client-types.js';
import type { SamplingClient } from './sampling-client.js';
import type { ServiceClient } from './service-client.js';
import type { TrainingClient } from './training-client.js';

// Type-level tests: `tsc --noEmit` (part of `pnpm test`) fails when a real client stops fitting its loop-facing type.
describe('client types', () => {
  it('are satisfied by the real clients', () => {
    expectTypeOf<SamplingClient>().toExtend<SamplingClientLike>();
    expectTypeOf<TrainingClient>().toExtend<TrainingClientLike>();
    expectTypeOf<ServiceClient>().toExtend<ServiceClientLike>();
  });
});
