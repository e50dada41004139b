import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { useTempDir } from './__fixtures__/test-utils.js';
import { applyLogDirDecision, checkLogDir } from './log-dir.js';

const tmp = useTempDir();

describe('checkLogDir', () => {
  it('applies behavior_if_log_dir_exists', async () => {
    const dir = tmp();
    const run = join(dir, 'run');
    expect(await checkLogDir(run, 'raise')).toBe('fresh');
    mkdirSync(run);
    expect(await checkLogDir(run, 'raise')).toBe('fresh'); // empty: nothing to lose
    writeFileSync(join(run, 'metrics.jsonl'), '');
    await expect(checkLogDir(run, 'raise')).rejects.toThrow(/already exists/);
    expect(await checkLogDir(run, 'resume')).toBe('resume');
    const decision = await checkLogDir(run, 'delete');
    expect(decision).toBe('delete');
    expect(existsSync(run)).toBe(true); // deciding touches nothing
    applyLogDirDecision(run, decision);
    expect(existsSync(run)).toBe(false);
  });

  it('asks only on a terminal, until the answer is valid', async () => {
    const dir = tmp();
    const run = join(dir, 'run');
    mkdirSync(run);
    writeFileSync(join(run, 'metrics.jsonl'), '');
    await expect(checkLogDir(run, 'ask', { isTTY: false, key: 'my_key' })).rejects.toThrow(ConfigError);
    await expect(checkLogDir(run, 'ask', { isTTY: false, key: 'my_key' })).rejects.toThrow(/my_key=resume/);
    const answers = ['maybe', ' Exit '];
    const questions: string[] = [];
    const decision = await checkLogDir(run, 'ask', {
      isTTY: true,
      prompt: async (q) => {
        questions.push(q);
        return answers.shift() ?? '';
      },
    });
    expect(decision).toBe('exit');
    expect(questions).toHaveLength(2);
    applyLogDirDecision(run, decision);
    expect(existsSync(run)).toBe(true);
  });
});
