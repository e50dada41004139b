import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModelInput } from '@cookbook/core';
import { Bm25Index } from '@cookbook/tools';
import { describe, expect, it } from 'vitest';
import { QaEnv } from '../dataset/dataset-env.js';
import { applyWrappers, getWrapperFns } from '../wrappers/factory.js';
import { collectEpisodes, type Episode } from './collect.js';
import { writeGemRolloutLog } from './rollout-log.js';

const turn = (reward: number, done: boolean, act: number[]) => ({
  obsTokens: [1, 2, 3],
  actTokens: act,
  actLogprobs: act.map((t) => -t / 10),
  reward,
  done,
});

/** The parsed lines of the rollout log in `logPath/iteration` (named here as users see it: `iteration_000002`). */
const logLines = (logPath: string, iteration: string) =>
  readFileSync(join(logPath, iteration, 'train_rollout_summaries.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

describe('GEM rollout log', () => {
  it("writes one line per episode with each turn's text, token logprobs and its own advantage", () => {
    const logPath = mkdtempSync(join(tmpdir(), 'gem-log-'));
    const episodes: Episode[] = [
      { transitions: [turn(0, false, [5, 6]), turn(1, true, [7])], observations: ['o0', 'o1'], actions: ['a0', 'a1'] },
      { transitions: [turn(0, true, [8])], observations: ['p0'], actions: ['<b>b0</b>'] },
    ];
    const n = writeGemRolloutLog(logPath, 2, 'game:GuessTheNumber-v0', episodes, [0.5, 1.5, -2], (t) => `<${t}>`);
    expect(n).toBe(2);
    const lines = logLines(logPath, 'iteration_000002');
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

  it("writes a search-tool episode's turns as messages: the call (name, query), its result, the answer", async () => {
    const index = new Bm25Index([
      { id: 'a', title: 'Paris', text: 'Paris is the capital of France.' },
      { id: 'b', title: 'Berlin', text: 'Berlin is the capital of <b>Germany</b>.' },
    ]);
    const qa = new QaEnv({ dataset: [{ question: 'What is the capital of Germany?', answers: ['Berlin'] }] });
    const env = applyWrappers(qa, getWrapperFns('search_tool', { search: { index } }));
    // A sampler whose replies are token 1 (a search call) then token 2 (the answer).
    const texts = ['', '<search>capital of Germany</search>', '<answer>Berlin</answer>'];
    let turn = 0;
    const { episodes } = await collectEpisodes({
      envs: [env],
      sampler: {
        sample: async () => ({ sequences: [{ tokens: [++turn], logprobs: [-0.5], stopReason: 'stop' }] }) as never,
      },
      prompt: () => ModelInput.fromInts([0]),
      decode: (t) => texts[t[0]!] ?? '',
      stop: [],
      maxTokens: 8,
      temperature: 1,
      batchSize: 2,
      retries: 0,
      episodeSeed: () => 0,
    });
    expect(episodes).toHaveLength(1);
    const logPath = mkdtempSync(join(tmpdir(), 'gem-log-'));
    writeGemRolloutLog(logPath, 0, 'qa:search', episodes, [0, 0], (t) => texts[t[0]!] ?? '');
    const [line] = logLines(logPath, 'iteration_000000');
    expect(line.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(line.messages[0].content).toContain('capital of Germany?');
    expect(line.messages[1]).toEqual({
      role: 'assistant',
      content: texts[1],
      tool_calls: [
        { type: 'function', id: 'call_0', function: { name: 'search', arguments: '{"query":"capital of Germany"}' } },
      ],
    });
    expect(line.messages[2]).toMatchObject({ role: 'tool', tool_call_id: 'call_0', name: 'search' });
    expect(line.messages[2].content).toMatch(/^Doc 1\(Title: Berlin\) Berlin is the capital of <b>Germany<\/b>\./);
    expect(line.messages[3]).toEqual({ role: 'assistant', content: texts[2] });
    expect(line.total_reward).toBeCloseTo(1.3);
  });

  it('writes no messages for an env without a tool wrapper', () => {
    const logPath = mkdtempSync(join(tmpdir(), 'gem-log-'));
    const ep: Episode = { transitions: [turn(1, true, [5])], observations: ['o'], actions: ['a'] };
    writeGemRolloutLog(logPath, 0, 'game', [ep], [0], () => '');
    const lines = logLines(logPath, 'iteration_000000');
    expect(lines).toHaveLength(1);
    expect(lines[0].messages).toBeUndefined();
  });
});
