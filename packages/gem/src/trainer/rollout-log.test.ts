import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Episode } from './collect.js';
import { writeGemRolloutLog } from './rollout-log.js';

const turn = (reward: number, done: boolean, act: number[]) => ({
  obsTokens: [1, 2, 3],
  actTokens: act,
  actLogprobs: act.map((t) => -t / 10),
  reward,
  done,
});

describe('GEM rollout log', () => {
  it("writes one line per episode with each turn's text, token logprobs and its own advantage", () => {
    const logPath = mkdtempSync(join(tmpdir(), 'gem-log-'));
    const episodes: Episode[] = [
      { transitions: [turn(0, false, [5, 6]), turn(1, true, [7])], observations: ['o0', 'o1'], actions: ['a0', 'a1'] },
      { transitions: [turn(0, true, [8])], observations: ['p0'], actions: ['<b>b0</b>'] },
    ];
    const n = writeGemRolloutLog(logPath, 2, 'game:GuessTheNumber-v0', episodes, [0.5, 1.5, -2], (t) => `<${t}>`);
    expect(n).toBe(2);
    const lines = readFileSync(join(logPath, 'iteration_000002', 'train_rollout_summaries.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ iteration: 2, group_idx: 0, total_reward: 1, tags: ['game:GuessTheNumber-v0'] });
    expect(lines[0].steps.map((s: { advantage: number }) => s.advantage)).toEqual([0.5, 1.5]);
    expect(lines[1].steps.map((s: { advantage: number }) => s.advantage)).toEqual([-2]);
    expect(lines[0].steps[0]).toMatchObject({
      ob_text: 'o0',
      ac_text: 'a0',
      ac_len: 2,
      ac_token_texts: ['<5>', '<6>'],
      ac_logprobs: [-0.5, -0.6],
      episode_done: false,
    });
    expect(lines[1].steps[0].ac_text).toBe('<b>b0</b>');
    expect(lines.every((l) => l.rollouts_total === 2)).toBe(true);
  });
});
