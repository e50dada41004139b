import { appendCheckpointRecord, type CheckpointClient, readCheckpoints } from '@cookbook/logging';
import { describe, expect, it } from 'vitest';
import { useTempDir } from './__fixtures__/test-utils.js';
import { CheckpointManager, type CheckpointPolicy, checkpointStoreFor } from './checkpoint-manager.js';

const tmp = useTempDir();

interface Gate {
  release(): void;
}

/**
 * A service double: saves complete when the test releases them (or at once with `auto`), and a delete removes the
 * state from the set of live states, which the test can inspect at any moment.
 */
function fakeService(auto = true) {
  const live = new Set<string>();
  const calls: string[] = [];
  const gates: Gate[] = [];
  const later = <T>(value: () => T): Promise<T> =>
    auto ? Promise.resolve().then(value) : new Promise<T>((resolve) => gates.push({ release: () => resolve(value()) }));
  const client: CheckpointClient = {
    saveState: (name: string, options?: { ttlSeconds?: number }) => {
      calls.push(`state ${name} ttl=${options?.ttlSeconds ?? 'none'}`);
      return later(() => {
        const path = `tinker://run/weights/${name}`;
        live.add(path);
        return { path };
      });
    },
    saveWeightsForSampler: (name?: string, options?: { ttlSeconds?: number }) => {
      calls.push(`sampler ${name} ttl=${options?.ttlSeconds ?? 'none'}`);
      return later(() => ({ path: `tinker://run/sampler_weights/${name}` }));
    },
  };
  const deleted: string[] = [];
  const store = {
    delete: async (path: string) => {
      deleted.push(path);
      live.delete(path);
    },
    listStates: async (run: string) => [...live].filter((p) => p.startsWith(`tinker://${run}/`)),
  };
  return { client, live, calls, gates, deleted, store };
}

function manager(
  logPath: string,
  service: ReturnType<typeof fakeService>,
  policy: Partial<CheckpointPolicy>,
  extra: { startStep?: number; now?: () => number; log?: (l: string) => void } = {},
) {
  return new CheckpointManager({
    client: service.client,
    logPath,
    policy: { saveEvery: 0, ttlSeconds: 100, ...policy },
    store: service.store,
    startStep: extra.startStep ?? 0,
    ...(extra.now ? { now: extra.now } : {}),
    ...(extra.log ? { log: extra.log } : {}),
  });
}

const names = (logPath: string) => readCheckpoints(logPath).map((r) => r.name);

describe('CheckpointManager: when a save is due', () => {
  it('saves on the step, seconds and token cadences, rolling saves between, never at the last step', () => {
    const s = fakeService();
    let t = 0;
    const m = manager(
      tmp(),
      s,
      { saveEvery: 4, saveEverySeconds: 10, saveEveryTokens: 1000, rollingSaveEvery: 3 },
      {
        now: () => t,
      },
    );
    expect(m.due(4, 20)).toBe('periodic');
    expect(m.due(3, 20)).toBe('rolling');
    expect(m.due(12, 20)).toBe('periodic'); // both cadences: the periodic save wins, as upstream
    expect(m.due(5, 20)).toBeUndefined();
    expect(m.due(20, 20)).toBeUndefined(); // the final save's step
    t = 10_000;
    expect(m.due(5, 20)).toBe('periodic');
    t = 0;
    expect(m.due(5, 20, 999)).toBeUndefined();
    expect(m.due(5, 20, 1000)).toBe('periodic');
  });

  it('counts seconds and tokens from the last save', async () => {
    const s = fakeService();
    let t = 0;
    const m = manager(tmp(), s, { saveEverySeconds: 10, saveEveryTokens: 1000 }, { now: () => t });
    t = 11_000;
    expect(m.due(1, 20, 500)).toBe('periodic');
    await m.submit('periodic', 1, {}, 500);
    expect(m.due(2, 20, 1499)).toBeUndefined();
    expect(m.due(2, 20, 1500)).toBe('periodic');
    t = 21_000;
    expect(m.due(2, 20, 500)).toBe('periodic');
  });
});

describe('CheckpointManager: saves overlap the loop', () => {
  it('returns before the save is done, and records only once the step row is logged and the save is back', async () => {
    const logPath = tmp();
    const s = fakeService(false);
    const m = manager(logPath, s, { saveEvery: 1 });
    const q = await m.submit('periodic', 1, { epoch: 0 });
    expect(q.name).toBe('000001');
    expect(s.calls).toEqual(['state 000001 ttl=100', 'sampler 000001 ttl=100']);
    m.logged(0);
    await new Promise((r) => setTimeout(r, 5));
    expect(names(logPath)).toEqual([]); // the save is not back
    for (const g of s.gates.splice(0)) g.release();
    await m.drain();
    expect(readCheckpoints(logPath)).toEqual([
      {
        name: '000001',
        epoch: 0,
        step: 1,
        state_path: 'tinker://run/weights/000001',
        sampler_path: 'tinker://run/sampler_weights/000001',
      },
    ]);
  });

  it('waits for the metrics row before recording, and the next save waits for the previous one', async () => {
    const logPath = tmp();
    const s = fakeService(false);
    const m = manager(logPath, s, { saveEvery: 1 });
    await m.submit('periodic', 1);
    for (const g of s.gates.splice(0)) g.release();
    await new Promise((r) => setTimeout(r, 5));
    expect(names(logPath)).toEqual([]); // step 0's row is not logged yet
    let second = false;
    const p = m.submit('periodic', 2).then(() => {
      second = true;
    });
    await new Promise((r) => setTimeout(r, 5));
    expect(second).toBe(true); // the first save is back: no wait
    m.logged(0); // rows are logged in step order: this releases the save of 1 step
    await new Promise((r) => setTimeout(r, 5));
    expect(names(logPath)).toEqual(['000001']);
    m.logged(1);
    await new Promise((r) => setTimeout(r, 5));
    expect(names(logPath)).toEqual(['000001']); // the second save is not back yet
    let third = false;
    const p3 = m.submit('periodic', 3).then(() => {
      third = true;
    });
    await new Promise((r) => setTimeout(r, 5));
    expect(third).toBe(false); // save 2 still running: one save in flight
    for (const g of s.gates.splice(0)) g.release();
    await p;
    await p3;
    expect(third).toBe(true);
    for (const g of s.gates.splice(0)) g.release();
    await m.drain();
    expect(names(logPath)).toEqual(['000001', '000002', '000003']);
  });
});

describe('CheckpointManager: retention', () => {
  it('keep_last = 2 keeps at most two resume states, deleting only after a newer one is recorded', async () => {
    const logPath = tmp();
    const s = fakeService();
    const m = manager(logPath, s, { saveEvery: 1, keepLast: 2 });
    const most: number[] = [];
    for (let done = 1; done <= 5; done++) {
      await m.submit('periodic', done);
      m.logged(done - 1);
      await m.drain();
      most.push(s.live.size);
      // Every state still named by checkpoints.jsonl's last record is live.
      expect(s.live.has(readCheckpoints(logPath).at(-1)!.state_path!)).toBe(true);
    }
    expect(most).toEqual([1, 2, 2, 2, 2]);
    expect(s.deleted).toEqual([
      'tinker://run/weights/000001',
      'tinker://run/weights/000002',
      'tinker://run/weights/000003',
    ]);
    await m.saveNow('final', { step: 6 }, true);
    expect([...s.live].sort()).toEqual(['tinker://run/weights/000005', 'tinker://run/weights/final']);
    expect(s.calls.filter((c) => c.includes('final'))).toEqual(['state final ttl=none', 'sampler final ttl=none']);
  });

  it('rolling saves are state-only with their own TTL; the previous one goes, periodic ones stay; the final removes the last', async () => {
    const logPath = tmp();
    const s = fakeService();
    const m = manager(logPath, s, { saveEvery: 3, rollingSaveEvery: 1, rollingTtlSeconds: 60 });
    for (let done = 1; done <= 5; done++) {
      const kind = m.due(done, 6);
      expect(kind).toBe(done === 3 ? 'periodic' : 'rolling');
      await m.submit(kind!, done);
      m.logged(done - 1);
    }
    await m.drain();
    expect(s.calls.filter((c) => c.includes('000001'))).toEqual(['state 000001 ttl=60']);
    const records = readCheckpoints(logPath);
    expect(records.map((r) => [r.name, r.rolling === true, r.sampler_path !== undefined])).toEqual([
      ['000001', true, false],
      ['000002', true, false],
      ['000003', false, true],
      ['000004', true, false],
      ['000005', true, false],
    ]);
    expect([...s.live].sort()).toEqual(['tinker://run/weights/000003', 'tinker://run/weights/000005']);
    await m.saveNow('final', { step: 6 }, true);
    expect([...s.live].sort()).toEqual(['tinker://run/weights/000003', 'tinker://run/weights/final']);
  });

  it('a resumed run deletes what a killed process left just before the kept states, never its resume point', async () => {
    const logPath = tmp();
    const s = fakeService();
    for (let done = 1; done <= 5; done++) {
      const path = `tinker://run/weights/${String(done).padStart(6, '0')}`;
      s.live.add(path);
      appendCheckpointRecord(logPath, { name: String(done).padStart(6, '0'), step: done, state_path: path });
    }
    // Saved by the killed process, never recorded.
    s.live.add('tinker://run/weights/000007');
    const m = manager(logPath, s, { saveEvery: 1, keepLast: 2 }, { startStep: 5 });
    expect(m.hasSaveAt(5)).toBe(true);
    await m.submit('periodic', 6);
    m.logged(5);
    await m.drain();
    // The unrecorded state goes; states 2 and 3 (the two just before the kept ones) are retried; 1 is left to its
    // TTL; 4 goes as usual.
    expect(s.deleted).toEqual([
      'tinker://run/weights/000007',
      'tinker://run/weights/000002',
      'tinker://run/weights/000003',
      'tinker://run/weights/000004',
    ]);
    expect(s.live.has('tinker://run/weights/000005')).toBe(true);
    expect(s.live.has('tinker://run/weights/000006')).toBe(true);
  });

  it('a failed delete is a warning and the run goes on', async () => {
    const logPath = tmp();
    const s = fakeService();
    const lines: string[] = [];
    const m = new CheckpointManager({
      client: s.client,
      logPath,
      policy: { saveEvery: 1, ttlSeconds: null, keepLast: 1 },
      store: {
        delete: async () => {
          throw new Error('service says no');
        },
        listStates: async () => [],
      },
      startStep: 0,
      log: (l) => lines.push(l),
    });
    await m.submit('periodic', 1);
    await m.submit('periodic', 2);
    m.logged(1);
    await m.drain();
    expect(names(logPath)).toEqual(['000001', '000002']);
    expect(lines).toEqual([
      'warning: could not delete checkpoint tinker://run/weights/000001 (its TTL will remove it): service says no',
    ]);
  });

  it('refuses keep_last or rolling saves without a way to delete', () => {
    const s = fakeService();
    const make = (policy: Partial<CheckpointPolicy>) =>
      new CheckpointManager({
        client: s.client,
        logPath: tmp(),
        policy: { saveEvery: 0, ttlSeconds: null, ...policy },
        startStep: 0,
      });
    expect(() => make({ keepLast: 2 })).toThrow(/keep_last needs a service client that can delete checkpoints/);
    expect(() => make({ rollingSaveEvery: 1 })).toThrow(/rolling_save_every needs/);
    expect(() => make({ saveEvery: 5 })).not.toThrow();
  });
});

describe('checkpointStoreFor', () => {
  it("calls the service's REST delete (a 404 counts as done) and lists a run's training states", async () => {
    const asked: string[] = [];
    const service = {
      createRestClient: async () => ({
        deleteCheckpoint: async (path: string) => {
          asked.push(path);
          if (path.endsWith('gone')) throw Object.assign(new Error('not found'), { status: 404 });
          if (path.endsWith('bad')) throw Object.assign(new Error('forbidden'), { status: 403 });
        },
        listCheckpoints: async (run: string) => [
          { tinker_path: `tinker://${run}/weights/000002`, checkpoint_type: 'training' },
          { tinker_path: `tinker://${run}/sampler_weights/000002`, checkpoint_type: 'sampler' },
        ],
      }),
    };
    const store = checkpointStoreFor(service)!;
    await store.delete('tinker://r/weights/a');
    await store.delete('tinker://r/weights/gone');
    await expect(store.delete('tinker://r/weights/bad')).rejects.toThrow('forbidden');
    expect(await store.listStates('r')).toEqual(['tinker://r/weights/000002']);
    expect(asked).toEqual(['tinker://r/weights/a', 'tinker://r/weights/gone', 'tinker://r/weights/bad']);
    expect(checkpointStoreFor({})).toBeUndefined();
  });
});
