import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointError, LockHeldError } from '@cookbook/core';
import { afterEach, describe, expect, it } from 'vitest';
import { sessionAndModel, submitAndWait } from './__tests__/direct.js';
import { LocalTinkerService } from './service.js';
import { ROOT_LOCK_FILE, Storage } from './storage.js';

const services: LocalTinkerService[] = [];
const roots: string[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});
function root(): string {
  const r = mkdtempSync(join(tmpdir(), 'lt-root-'));
  roots.push(r);
  return r;
}
async function started(r: string): Promise<LocalTinkerService> {
  const s = new LocalTinkerService({ root: r, longPollMs: 2_000 });
  await s.init();
  services.push(s);
  return s;
}

describe('one service per root (regression: a second service deleted the first one’s staging folders)', () => {
  it('a second service on a live root refuses, naming the first, and leaves its saves in progress alone', async () => {
    const r = root();
    const first = await started(r);
    const { model } = await sessionAndModel(first);
    // A save of the first service in progress: its staging folder.
    const staging = join(r, 'runs', encodeURIComponent(model), 'weights', '.ckpt.in-progress');
    mkdirSync(join(staging, 'state'), { recursive: true });
    const second = new LocalTinkerService({ root: r });
    const err = await second.init().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LockHeldError);
    expect((err as Error).message).toContain(`pid ${process.pid}`);
    expect((err as Error).message).toMatch(/in use by another local Tinker service/);
    expect(existsSync(join(staging, 'state'))).toBe(true);
    // The first one still saves.
    const saved = await submitAndWait(first, 'save_weights', { model_id: model, path: 'after' });
    expect(saved.path).toBe(`tinker://${model}/weights/after`);
  });

  it('takes over a root whose owner died, and then removes that owner’s staging leftovers', async () => {
    const r = root();
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    writeFileSync(join(r, ROOT_LOCK_FILE), JSON.stringify({ pid: dead, host: hostname(), since: 'x', what: 'old' }));
    const leftover = join(r, 'runs', 'run1', 'weights', '.ckpt.leftover');
    mkdirSync(leftover, { recursive: true });
    await started(r);
    expect(existsSync(leftover)).toBe(false);
  });

  it('a closed service gives its root up for the next one', async () => {
    const r = root();
    const first = await started(r);
    await first.close();
    services.splice(services.indexOf(first), 1);
    await started(r);
  });
});

describe('a save never reports success with files missing', () => {
  it('a checkpoint whose files vanish while it is written fails, and nothing is left in its place', async () => {
    const r = root();
    const storage = new Storage(r);
    await storage.init();
    try {
      const err = await storage
        .writeCheckpoint(
          'run1',
          'weights',
          'c1',
          async (dir) => {
            mkdirSync(join(dir, 'state'));
            mkdirSync(join(dir, 'adapter'));
            // Another process removes part of it.
            rmSync(join(dir, 'adapter'), { recursive: true });
          },
          { required: ['state', 'adapter'] },
        )
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(CheckpointError);
      expect((err as Error).message).toMatch(/tinker:\/\/run1\/weights\/c1 failed: adapter went missing/);
      expect(readdirSync(join(r, 'runs', 'run1', 'weights'))).toEqual([]);
    } finally {
      storage.release();
    }
  });
});
