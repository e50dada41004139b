import { DataError } from '@cookbook/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fetchHubRows, HubRowsError } from './hub-rows.js';

/** A rows server over `rows`, recording the requested (offset, length) pages. */
function server(rows: Record<string, unknown>[], pages: [number, number][] = []): typeof fetch {
  return (async (url: URL) => {
    const offset = Number(url.searchParams.get('offset'));
    const length = Number(url.searchParams.get('length'));
    pages.push([offset, length]);
    return new Response(JSON.stringify({ rows: rows.slice(offset, offset + length).map((row) => ({ row })) }));
  }) as typeof fetch;
}

describe('fetchHubRows', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('reads pages of 100 up to the limit and stops at a short page', async () => {
    const rows = Array.from({ length: 250 }, (_, i) => ({ i }));
    const pages: [number, number][] = [];
    const got = await fetchHubRows({ dataset: 'd', split: 'train', limit: 230, fetch: server(rows, pages) });
    expect(got.map((r) => r.i)).toEqual(rows.slice(0, 230).map((r) => r.i));
    expect(pages).toEqual([
      [0, 100],
      [100, 100],
      [200, 30],
    ]);
    pages.length = 0;
    expect(await fetchHubRows({ dataset: 'd', split: 'train', limit: 1000, fetch: server(rows, pages) })).toHaveLength(
      250,
    );
    expect(pages.at(-1)).toEqual([200, 100]);
  });

  it('fails with a reason a caller can wrap: offline, unreachable, HTTP status, truncated cells', async () => {
    const unreachable = (async () => {
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('getaddrinfo'), { code: 'EAI_AGAIN' }) });
    }) as typeof fetch;
    const run = fetchHubRows({ dataset: 'org/set', split: 'test', fetch: unreachable });
    await expect(run).rejects.toThrow(HubRowsError);
    await expect(run).rejects.toThrow(DataError);
    await expect(run).rejects.toThrow(
      'could not read org/set (test) from the Hugging Face Hub: the Hub is not reachable (no network?)',
    );
    const notFound = (async () => new Response('nope', { status: 404 })) as typeof fetch;
    await expect(fetchHubRows({ dataset: 'org/set', split: 'test', fetch: notFound })).rejects.toMatchObject({
      reason: 'the Hub answered HTTP 404',
    });
    const truncated = (async () =>
      new Response(
        JSON.stringify({ rows: [{ row: {} }, { row: { text: 'cut' }, truncated_cells: ['text'] }] }),
      )) as typeof fetch;
    await expect(fetchHubRows({ dataset: 'org/set', split: 'test', fetch: truncated })).rejects.toMatchObject({
      reason: 'the Hub truncated fields text of row 1',
    });
    vi.stubEnv('HF_HUB_OFFLINE', '1');
    let calls = 0;
    const counting = (async () => {
      calls++;
      return new Response('{}');
    }) as typeof fetch;
    await expect(fetchHubRows({ dataset: 'org/set', split: 'test', fetch: counting })).rejects.toMatchObject({
      reason: 'HF_HUB_OFFLINE=1 is set',
    });
    expect(calls).toBe(0);
  });
});
