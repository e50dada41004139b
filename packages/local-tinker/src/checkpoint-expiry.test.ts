/**
 * Checkpoint TTLs on the embedded service: a save with `ttl_seconds` expires, and the service deletes an expired
 * checkpoint from disk at start-up and on its pruning timer, not only when something reads it.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { servicesClosedAfterEach, sessionAndModel, submitAndWait } from './__tests__/direct.js';

const service = servicesClosedAfterEach();

describe('checkpoint expiry', () => {
  it('deletes checkpoints whose ttl_seconds passed, keeps the others, and is bounded per call', async () => {
    const s = await service();
    const { model } = await sessionAndModel(s);
    const saved = async (op: string, path: string, ttl?: number) =>
      (await submitAndWait(s, op, { model_id: model, path, ...(ttl === undefined ? {} : { ttl_seconds: ttl }) }))
        .path as string;
    const short = await saved('save_weights', 'short', 60);
    const shortSampler = await saved('save_weights_for_sampler', 'short', 60);
    const forever = await saved('save_weights', 'forever');
    const long = await saved('save_weights', 'long', 86_400);
    const weights = join(s.storage.runDir(model), 'weights');
    expect(readdirSync(weights).sort()).toEqual(['forever', 'long', 'short']);

    // Nothing has expired yet.
    expect(await s.storage.removeExpired()).toEqual([]);
    // A call looks at no more than `limit` checkpoints.
    const inAnHour = Date.now() + 3_600_000;
    expect((await s.storage.removeExpired({ now: inAnHour, limit: 0 })).length).toBe(0);
    expect((await s.storage.removeExpired({ now: inAnHour })).sort()).toEqual([short, shortSampler].sort());
    expect(readdirSync(weights).sort()).toEqual(['forever', 'long']);
    expect(existsSync(join(s.storage.runDir(model), 'sampler_weights', 'short'))).toBe(false);
    expect(forever).toContain('/weights/forever');
    expect(long).toContain('/weights/long');
  });

  it("the service's prune cycle deletes expired checkpoints without any limit set", async () => {
    const s = await service();
    const { model } = await sessionAndModel(s);
    await submitAndWait(s, 'save_weights', { model_id: model, path: 'gone', ttl_seconds: 1 });
    const dir = join(s.storage.runDir(model), 'weights', 'gone');
    expect(existsSync(dir)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(existsSync(dir)).toBe(true); // nobody read it
    await s.prune();
    expect(existsSync(dir)).toBe(false);
  });
});
