/**
 * Each costly request shape (a body far below the size limit whose elements each once cost the service far more)
 * grown toward its limit — 10^3 … 10^6 elements — all shapes of a size at once, while healthz is polled: every one is
 * refused with a 4xx, memory stays bounded and healthz keeps answering. Bounds are generous (a loaded 2-core
 * machine): what they catch is a regression of hundreds of MB or seconds, as the shapes cost before.
 */

import { type LocalTinker, startLocalTinker } from '@cookbook/local-tinker';
import { costlyRequests } from '@cookbook/local-tinker/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempRoot } from './helpers.js';

const MB = 1024 * 1024;
let service: LocalTinker;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const t = await tempRoot();
  cleanup = t.cleanup;
  service = await startLocalTinker({ root: t.root, log: () => undefined });
});
afterAll(async () => {
  await service.close({ graceMs: 0 });
  await cleanup();
});

describe('costly request shapes grown toward their limits', () => {
  it('10^3 … 10^6 elements: each a 4xx, RSS within 500 MB of the start, healthz within 3 s throughout', async () => {
    const base = `${service.baseURL}/api/v1`;
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    let worstHealthz = 0;
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const t = performance.now();
        const r = await fetch(`${base}/healthz`);
        await r.text();
        worstHealthz = Math.max(worstHealthz, performance.now() - t);
        peak = Math.max(peak, process.memoryUsage().rss);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const answers: string[] = [];
    try {
      for (const n of [1_000, 10_000, 100_000, 1_000_000]) {
        await Promise.all(
          costlyRequests(n).map(async (c) => {
            const r = await fetch(`${base}/${c.path}`, { method: 'POST', headers: c.headers, body: c.body });
            const text = await r.text();
            answers.push(`${c.name}: ${r.status}${r.status >= 400 && r.status < 500 ? '' : ` ${text.slice(0, 200)}`}`);
            peak = Math.max(peak, process.memoryUsage().rss);
          }),
        );
      }
    } finally {
      polling = false;
      await poller;
    }
    expect(answers.filter((a) => !/: 4\d\d$/.test(a))).toEqual([]);
    expect(answers).toHaveLength(24);
    expect((peak - rss0) / MB).toBeLessThan(500);
    expect(worstHealthz).toBeLessThan(3_000);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });
});
