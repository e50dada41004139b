import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT_LOCK_FILE, startLocalTinker } from '@cookbook/local-tinker';
import { serviceRootWithRuns } from '@cookbook/local-tinker/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../cli.js';
import { cache } from './cache.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** A service root with runs of 3000 (used 30 days ago), 2000 (10 days) and 1000 bytes (2 days). */
function serviceRoot(): string {
  const dir = serviceRootWithRuns('cli-cache-');
  roots.push(dir);
  return dir;
}

async function cookbookCache(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(['cache', ...args], [cache], { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out, err };
}

describe('cookbook cache', () => {
  it('shows the disk use and the runs, largest first', async () => {
    const root = serviceRoot();
    const { code, out } = await cookbookCache([`root=${root}`]);
    expect(code).toBe(0);
    expect(out[0]).toMatch(new RegExp(`^${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: .+ in 3 runs$`));
    expect(out.slice(1).map((l) => l.match(/(s\d:train:\d)/)?.[1])).toEqual(['s1:train:0', 's1:train:1', 's2:train:0']);
    expect(out[1]).toContain('local/qwen3-tiny');
  });

  it('prunes by age and by size, least recently used first, and lists what it removed', async () => {
    const root = serviceRoot();
    const byAge = await cookbookCache([`root=${root}`, 'prune=true', 'max_age_days=20']);
    expect(byAge.code).toBe(0);
    expect(byAge.out[0]).toMatch(/^removed 1 runs \(/);
    expect(byAge.out[1]).toContain('s1:train:0');
    expect(readdirSync(join(root, 'runs'))).toHaveLength(2);
    const bySize = await cookbookCache([`root=${root}`, 'prune=true', `max_size_gb=${2500 / 1e9}`]);
    expect(bySize.out[0]).toMatch(/^removed 1 runs \(/);
    expect(bySize.out[1]).toContain('s1:train:1');
    expect(readdirSync(join(root, 'runs')).map(decodeURIComponent)).toEqual(['s2:train:0']);
  });

  it('removes nothing when prune=true has no limit, and says which keys to give', async () => {
    const root = serviceRoot();
    const { err } = await cookbookCache([`root=${root}`, 'prune=true']);
    expect(err.join('\n')).toContain('prune=true needs max_size_gb=… and/or max_age_days=…; nothing removed');
    expect(readdirSync(join(root, 'runs'))).toHaveLength(3);
  });

  it('refuses to prune a root a running service owns, naming it, and prunes once it has stopped', async () => {
    const root = serviceRoot();
    const server = await startLocalTinker({ port: 0, root });
    let refused: Awaited<ReturnType<typeof cookbookCache>>;
    try {
      refused = await cookbookCache([`root=${root}`, 'prune=true', 'max_age_days=0']);
    } finally {
      await server.close();
    }
    expect(refused.code).not.toBe(0);
    expect(refused.err.join('\n')).toMatch(
      new RegExp(`the service root .* is in use by a local Tinker service, pid ${process.pid} .*nothing removed`),
    );
    expect(readdirSync(join(root, 'runs'))).toHaveLength(3);
    const pruned = await cookbookCache([`root=${root}`, 'prune=true', 'max_age_days=0']);
    expect(pruned.code).toBe(0);
    expect(pruned.out[0]).toMatch(/^removed 3 runs/);
    // The prune's own hold on the root is released: a service can take it again.
    expect(existsSync(join(root, ROOT_LOCK_FILE))).toBe(false);
  });
});
