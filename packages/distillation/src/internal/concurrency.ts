/** Bounded parallel map: teacher calls are many and the service queues them, so the client keeps a cap. */

import { ConfigError } from '@cookbook/core';

/**
 * `Promise.all(items.map(fn))` with at most `limit` calls in flight; results keep the input order. The first
 * failure rejects the whole map (calls already started still settle, none new start).
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  if (!Number.isInteger(limit) || limit < 1) throw new ConfigError(`concurrency limit must be ≥ 1, got ${limit}`);
  const out = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i]!, i);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
