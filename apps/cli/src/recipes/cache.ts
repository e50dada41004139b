/**
 * `cookbook cache`: what the embedded service keeps on disk (runs and their checkpoints, under
 * COOKBOOK_LOCAL_TINKER_ROOT or ~/.cache/cookbook/local-tinker), and pruning it by age or size, least recently used
 * runs first. The embedded service also keeps its data under a cap by itself (COOKBOOK_LOCAL_TINKER_MAX_GB). A prune
 * takes the root's service lock while it runs: it refuses a root a live service owns (it could remove runs that
 * service has loaded), and no service starts on the root until it is done.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { acquireProcessLock, describeLockOwner } from '@cookbook/core';
import {
  cacheUsage,
  DEFAULT_CACHE_MAX_GB,
  defaultRoot,
  formatBytes,
  pruneCache,
  ROOT_LOCK_FILE,
} from '@cookbook/local-tinker';
import { z } from 'zod';
import { defineRecipe } from '../recipe.js';

export const cacheSchema = z.object({
  root: z
    .string()
    .default('')
    .describe('The service root (default: COOKBOOK_LOCAL_TINKER_ROOT or ~/.cache/cookbook/local-tinker)'),
  prune: z.boolean().default(false).describe('Remove runs per max_size_gb / max_age_days (least recently used first)'),
  maxSizeGb: z
    .number()
    .nonnegative()
    .nullable()
    .default(null)
    .describe(`With prune: keep at most this many GB (the embedded service's own cap is ${DEFAULT_CACHE_MAX_GB} GB)`),
  maxAgeDays: z
    .number()
    .nonnegative()
    .nullable()
    .default(null)
    .describe('With prune: remove runs not used for this many days'),
  top: z.number().int().positive().default(10).describe('Runs listed (largest first)'),
});

export const cache = defineRecipe({
  name: 'cache',
  description: "Show and prune the embedded service's data on disk (prune=true max_size_gb=… max_age_days=…)",
  schema: cacheSchema,
  async run(config, io) {
    const root = config.root || defaultRoot();
    if (config.prune) {
      if (config.maxSizeGb === null && config.maxAgeDays === null) {
        io.err('cookbook cache: prune=true needs max_size_gb=… and/or max_age_days=…; nothing removed');
        return;
      }
      const { removed, freedBytes } = existsSync(root)
        ? await pruneOwned(root, {
            maxBytes: config.maxSizeGb === null ? null : config.maxSizeGb * 1e9,
            maxAgeDays: config.maxAgeDays,
          })
        : { removed: [], freedBytes: 0 };
      io.out(`removed ${removed.length} runs (${formatBytes(freedBytes)})`);
      for (const r of removed) io.out(`  - ${r.runId}  ${formatBytes(r.bytes)}  last used ${r.lastUsed.toISOString()}`);
    }
    const usage = await cacheUsage(root);
    io.out(`${root}: ${formatBytes(usage.totalBytes)} in ${usage.runs.length} runs`);
    const largest = [...usage.runs].sort((a, b) => b.bytes - a.bytes).slice(0, config.top);
    for (const r of largest) {
      io.out(`  ${formatBytes(r.bytes).padStart(9)}  ${r.lastUsed.toISOString()}  ${r.runId}  ${r.baseModel ?? ''}`);
    }
  },
});

/** Prunes `root` holding its service lock (throws LockHeldError, naming the service, when one runs on it). */
async function pruneOwned(root: string, limits: Parameters<typeof pruneCache>[1]): ReturnType<typeof pruneCache> {
  const lock = acquireProcessLock(
    join(root, ROOT_LOCK_FILE),
    'cookbook cache prune',
    (owner) =>
      `cookbook cache: the service root ${root} is in use by a local Tinker service, ${describeLockOwner(owner)}; ` +
      'pruning it now could remove runs that service has loaded. Stop it and prune again (the running service keeps ' +
      'its own cap, COOKBOOK_LOCAL_TINKER_MAX_GB); nothing removed',
  );
  try {
    return await pruneCache(root, limits);
  } finally {
    lock.release();
  }
}
