import { describe, expect, it } from 'vitest';
import { SandboxPool } from './pool.js';
import { failedResult, type Sandbox, SandboxError } from './sandbox.js';

/** A sandbox that records its lifecycle; its commands wait for the signal or a release. */
class FakeSandbox implements Sandbox {
  readonly backend = 'fake';
  cleaned = false;
  constructor(readonly sandboxId: string) {}
  async runCommand(_command: string, options: { signal?: AbortSignal } = {}) {
    await new Promise<void>((resolve) => {
      if (options.signal?.aborted) resolve();
      options.signal?.addEventListener('abort', () => resolve(), { once: true });
      setTimeout(resolve, 20);
    });
    return options.signal?.aborted
      ? failedResult('cancelled', { cancelled: true })
      : { ...failedResult(''), exitCode: 0 };
  }
  async writeFile() {
    return failedResult('');
  }
  async readFile() {
    return failedResult('');
  }
  async heartbeat() {}
  async cleanup() {
    this.cleaned = true;
  }
}

describe('SandboxPool', () => {
  it('runs at most N at once, queues the rest in order, and gives each call a fresh sandbox it cleans up', async () => {
    const made: FakeSandbox[] = [];
    const pool = new SandboxPool({ create: () => made[made.push(new FakeSandbox(`s${made.length}`)) - 1]!, size: 2 });
    let peak = 0;
    const order: number[] = [];
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        pool.run(async (sb, signal) => {
          peak = Math.max(peak, pool.active);
          order.push(i);
          return (await sb.runCommand('x', { signal })).exitCode;
        }),
      ),
    );
    expect(results).toEqual([0, 0, 0, 0, 0, 0]);
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
    expect(made).toHaveLength(6);
    expect(made.every((s) => s.cleaned)).toBe(true);
    expect(pool.active).toBe(0);
  });

  it('a deadline passed in the queue rejects; a deadline passed at work aborts the command', async () => {
    const pool = new SandboxPool({ create: () => new FakeSandbox('s'), size: 1 });
    const long = pool.run((sb) => sb.runCommand('x').then(() => new Promise((r) => setTimeout(r, 100))));
    await expect(pool.run(async () => 1, { deadlineMs: 10 })).rejects.toThrow(/deadline while waiting/);
    await long;
    const r = await pool.run(
      async (sb, signal) => {
        await new Promise((res) => setTimeout(res, 30));
        return sb.runCommand('x', { signal });
      },
      { deadlineMs: 10 },
    );
    expect(r.metrics.cancelled).toBe(true);
  });

  it('cancellation and close reject waiting calls', async () => {
    const pool = new SandboxPool({ create: () => new FakeSandbox('s'), size: 1 });
    const busy = pool.run((sb, signal) => sb.runCommand('x', { signal }));
    const ac = new AbortController();
    const waiting = pool.run(async () => 1, { signal: ac.signal });
    expect(pool.queued).toBe(1);
    ac.abort();
    await expect(waiting).rejects.toThrow(SandboxError);
    const other = pool.run(async () => 2);
    pool.close();
    await expect(other).rejects.toThrow(/pool was closed/);
    expect((await busy).metrics.cancelled).toBe(true);
    expect(() => new SandboxPool({ create: () => new FakeSandbox('s'), size: 0 })).toThrow(/1\.\.256, got 0/);
  });
});

describe('choosing a backend', () => {
  it('refuses, naming the options, where bubblewrap cannot run; never falls back', async () => {
    const { sandboxFactory } = await import('./create-sandbox.js');
    const { SandboxUnavailableError } = await import('./sandbox.js');
    const make = () => sandboxFactory('bubblewrap', { bubblewrap: { bwrap: '/nonexistent/bwrap' } });
    expect(make).toThrow(SandboxUnavailableError);
    expect(make).toThrow(/apt-get install bubblewrap.*user namespaces.*sandbox_backend=sandbox_fusion.*unsafe_local/s);
    expect(() => sandboxFactory('docker')).toThrow(
      /unknown sandbox backend "docker": expected one of bubblewrap, sandbox_fusion, unsafe_local/,
    );
  });
});
