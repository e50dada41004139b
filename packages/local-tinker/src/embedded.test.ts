import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { acquireEmbeddedService } from './embedded.js';
import { serviceRootWithRuns } from './testing.js';

const dirs: string[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A service root holding runs of 3000 (used 30 days ago), 2000 (10 days) and 1000 bytes (2 days). */
function rootWithRuns(): string {
  const dir = serviceRootWithRuns('embedded-cap-');
  dirs.push(dir);
  return dir;
}

describe('the embedded service keeps its data under a cap', () => {
  it('removes the least recently used runs when it starts over the cap, and says so in one line', async () => {
    const root = rootWithRuns();
    vi.stubEnv('COOKBOOK_LOCAL_TINKER_ROOT', root);
    vi.stubEnv('COOKBOOK_LOCAL_TINKER_MAX_GB', String(4500 / 1e9));
    const lines: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => void lines.push(String(line)));
    const held = await acquireEmbeddedService();
    await held.release();
    expect(readdirSync(join(root, 'runs')).map(decodeURIComponent).sort()).toEqual(['s1:train:1', 's2:train:0']);
    const cap = lines.filter((l) => l.includes('was over its'));
    expect(cap).toHaveLength(1);
    expect(cap[0]).toMatch(
      new RegExp(
        `^cookbook: the embedded service's data in ${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} was over its 0\\.0000045 GB cap \\(COOKBOOK_LOCAL_TINKER_MAX_GB\\): removed the 1 least recently used runs \\(.+\\); \`cookbook cache\` shows the rest$`,
      ),
    );
  });

  it('says nothing and removes nothing under the cap, or with the cap off (0)', async () => {
    for (const cap of ['20', '0']) {
      const root = rootWithRuns();
      vi.stubEnv('COOKBOOK_LOCAL_TINKER_ROOT', root);
      vi.stubEnv('COOKBOOK_LOCAL_TINKER_MAX_GB', cap === '0' ? '0' : cap);
      const lines: string[] = [];
      vi.spyOn(console, 'error').mockImplementation((line: unknown) => void lines.push(String(line)));
      const held = await acquireEmbeddedService();
      await held.release();
      expect(readdirSync(join(root, 'runs'))).toHaveLength(3);
      expect(lines.filter((l) => l.includes('was over its'))).toEqual([]);
    }
  });
});
