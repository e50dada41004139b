import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireProcessLock, LockHeldError, readLockOwner } from './process-lock.js';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'lock-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function fakeLock(file: string, pid: number, what = 'cookbook sl_basic'): void {
  writeFileSync(file, JSON.stringify({ pid, host: hostname(), since: '2026-01-01T00:00:00.000Z', what }));
}

describe('acquireProcessLock', () => {
  it('records this process and refuses a second taker in the same process, naming the owner', () => {
    const file = join(tempDir(), 'x', '.lock');
    const lock = acquireProcessLock(file, 'first');
    expect(readLockOwner(file)).toMatchObject({ pid: process.pid, what: 'first' });
    const err = (() => {
      try {
        acquireProcessLock(file, 'second');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(LockHeldError);
    expect((err as Error).message).toContain(`pid ${process.pid}`);
    expect((err as Error).message).toContain('first');
    lock.release();
    expect(existsSync(file)).toBe(false);
    acquireProcessLock(file, 'third').release();
  });

  it('takes over a lock whose process is gone', () => {
    const file = join(tempDir(), '.lock');
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    fakeLock(file, dead);
    const lock = acquireProcessLock(file, 'taker');
    expect(readLockOwner(file)).toMatchObject({ pid: process.pid, what: 'taker' });
    lock.release();
  });

  it('refuses while another live process holds it, and takes it once that process ends', async () => {
    const file = join(tempDir(), '.lock');
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const exited = new Promise((r) => child.once('exit', r));
    try {
      fakeLock(file, child.pid!, 'local-tinker service');
      expect(() => acquireProcessLock(file, 'me', (o) => `in use by pid ${o.pid} (${o.what})`)).toThrow(
        `in use by pid ${child.pid} (local-tinker service)`,
      );
    } finally {
      child.kill('SIGKILL');
    }
    await exited;
    acquireProcessLock(file, 'me').release();
  });

  it('release leaves a lock that is no longer its own', () => {
    const file = join(tempDir(), '.lock');
    const lock = acquireProcessLock(file, 'a');
    fakeLock(file, 1, 'someone else');
    lock.release();
    expect(JSON.parse(readFileSync(file, 'utf8')).what).toBe('someone else');
  });
});
