import { CookbookError } from '@cookbook/core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { TextSink } from '../console-logger.js';

/** A TextSink that keeps what was written. */
export function collector(isTTY = false): TextSink & { text: () => string } {
  const chunks: string[] = [];
  return {
    isTTY,
    columns: 100,
    write(s: string) {
      chunks.push(s);
      return true;
    },
    text: () => chunks.join(''),
  };
}

/** A fresh temp dir and its cleanup. */
export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'cookbook-logging-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** A fresh temp dir for each test of the calling file (removed after it); call the result inside a test. */
export function useTempDir(): () => string {
  let current: { dir: string; cleanup: () => Promise<void> } | undefined;
  beforeEach(async () => {
    current = await tempDir();
  });
  afterEach(async () => {
    await current?.cleanup();
    current = undefined;
  });
  return () => {
    if (current === undefined) throw new CookbookError('useTempDir: the dir exists only while a test runs');
    return current.dir;
  };
}
