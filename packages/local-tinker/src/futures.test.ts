import { describe, expect, it } from 'vitest';
import { FutureFailure, FutureTable } from './futures.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('FutureTable', () => {
  it('long-polls a pending future and wakes the poller when it completes', async () => {
    const table = new FutureTable(10_000);
    let resolve!: (v: unknown) => void;
    const id = table.create(new Promise((r) => (resolve = r)));
    expect(table.lookup(id)).toEqual({ kind: 'pending' });
    setTimeout(() => resolve({ ok: 1 }), 30);
    // The wait's own timeout is far past the test's: only the wake-up can answer it in time.
    expect(await table.wait(id, 3_600_000)).toEqual({ kind: 'done', value: { ok: 1 } });
    table.close();
  });

  it('times out a wait on a pending future', async () => {
    const table = new FutureTable(10_000);
    const id = table.create(new Promise(() => undefined));
    expect(await table.wait(id, 20)).toEqual({ kind: 'pending' });
    table.close();
  });

  it('reports failures with their category and unknown ids as unknown', async () => {
    const table = new FutureTable(10_000);
    const id = table.create(Promise.reject(new FutureFailure('bad input', 'user')));
    await sleep(1);
    expect(table.lookup(id)).toEqual({ kind: 'failed', failure: new FutureFailure('bad input', 'user') });
    const id2 = table.create(Promise.reject(new Error('boom')));
    await sleep(1);
    expect(table.lookup(id2)).toMatchObject({ kind: 'failed', failure: { category: 'server' } });
    expect(table.lookup('nope')).toEqual({ kind: 'unknown' });
    table.close();
  });

  it('keeps an undelivered result for the TTL but a delivered one only briefly, then answers expired', async () => {
    const table = new FutureTable(10_000, 50);
    const delivered = table.create(Promise.resolve(1));
    const waiting = table.create(Promise.resolve(2));
    await sleep(1);
    expect(table.lookup(delivered).kind).toBe('done');
    expect(table.lookup(delivered).kind).toBe('done'); // a retried poll still gets it
    await sleep(80);
    expect(table.lookup(delivered)).toEqual({ kind: 'expired' });
    expect(table.lookup(waiting)).toEqual({ kind: 'done', value: 2 });
    table.close();
  });
});
