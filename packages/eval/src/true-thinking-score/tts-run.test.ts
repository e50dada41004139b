/**
 * The analysis end to end on a scripted sampling client: the score is the formula on the confidences the client
 * gives, a reasoning without numbers is skipped and counted, and the run writes its per-problem JSONL, summary,
 * metrics and the coloured page.
 */

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModelInput } from '@cookbook/core';
import { PythonRandom } from '@cookbook/core';
import { getRenderer, type Renderer } from '@cookbook/renderers';
import type { ServiceClientLike } from '@cookbook/tinker-client';
import { getTokenizer } from '@cookbook/tokenizers';
import { beforeAll, describe, expect, it } from 'vitest';
import { runTrueThinkingScore } from './tts-run.js';
import { EARLY_EXIT_CUE, ttsForStep } from './tts-score.js';

let renderer: Renderer;
beforeAll(() => {
  renderer = getRenderer('qwen3_disable_thinking', getTokenizer('local/qwen3-tiny'));
});

/** Confidence 0.8 when the prefix holds the intact step text `key`, 0.2 otherwise; logprobs on the answer tokens. */
function keyedSampler(key: string, answer: string) {
  const tok = () => renderer.tokenizer;
  return {
    calls: 0,
    async computeLogprobs(input: ModelInput): Promise<(number | null)[]> {
      this.calls++;
      const ids = input.toInts();
      const text = tok().decode(ids);
      const prefix = text.slice(0, text.lastIndexOf(EARLY_EXIT_CUE));
      const n = tok().encode(`${answer}}`).length;
      const lps: (number | null)[] = ids.map(() => -3);
      lps[0] = null;
      // Spread the answer's logprob over its tokens: the score must sum them.
      for (let i = ids.length - n; i < ids.length; i++) lps[i] = Math.log(prefix.includes(key) ? 0.8 : 0.2) / n;
      return lps;
    },
  };
}

describe('true-thinking score', () => {
  it('a step’s score is ½(|S1(1) − S0(1)| + |S1(0) − S0(0)|) over four scoring calls', async () => {
    const sampler = keyedSampler('costs 12 dollars', '13');
    const s = await ttsForStep(
      sampler,
      renderer,
      'Q',
      '13',
      ['It had 4 parts.'],
      'It costs 12 dollars.',
      1,
      new PythonRandom(0),
    );
    expect(sampler.calls).toBe(4);
    // The intact step keeps its text in both contexts (0.8); the perturbed step loses it (0.2).
    expect([s.s1c1, s.s0c1, s.s1c0, s.s0c0].map((x) => Number(x.toFixed(12)))).toEqual([0.8, 0.2, 0.8, 0.2]);
    expect(s.tts).toBeCloseTo(0.6, 12);
    expect(s.dropped).toBe(false);
  });

  it('runs problems, skips a reasoning without numbers, and writes the JSONL, summary, metrics and page', async () => {
    const sampler = keyedSampler('= 7', '7');
    const service = { createSamplingClient: async () => sampler } as unknown as ServiceClientLike;
    const logPath = join(mkdtempSync(join(tmpdir(), 'tts-')), 'run');
    const lines: string[] = [];
    const result = await runTrueThinkingScore(
      {
        logPath,
        modelName: 'local/qwen3-tiny',
        dataset: 'offline',
        reasoning: 'shipped',
        behaviorIfLogDirExists: 'raise',
      },
      {
        serviceClient: service,
        log: (l) => lines.push(l),
        problems: [
          {
            question: 'What is 3 + 4?',
            answer: '7',
            reasoning: 'We add the two numbers.\nSo 3 + 4 = 7.\nTherefore the answer is 7.',
          },
          {
            question: 'Is a square a rectangle?',
            answer: 'yes',
            reasoning: 'A square has four right angles, so it is one.',
          },
        ],
      },
    );
    expect(result.status).toBe('completed');
    const per = readFileSync(join(logPath, 'tts_per_problem.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(per.map((p) => p.skipped)).toEqual([undefined, 'no_numbers']);
    expect(per[0].n_steps).toBe(2);
    const summary = JSON.parse(readFileSync(join(logPath, 'tts_summary.json'), 'utf8'));
    expect(summary).toMatchObject({
      n_problems: 2,
      n_problems_scored: 1,
      n_problems_skipped_no_numbers: 1,
      n_steps_total: 2,
    });
    // The first step (with "So 3 + 4 = 7." merged in: shorter than 20 characters) carries the key: perturbing it moves the confidence from 0.8 to 0.2 in both contexts.
    expect(per[0].per_step_tts).toEqual([0.6, 0]);
    const metrics = readFileSync(join(logPath, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(metrics.at(-1)['aggregate/n_problems_skipped_no_numbers']).toBe(1);
    const html = readFileSync(join(logPath, 'tts.html'), 'utf8');
    expect(html).toContain('Skipped: its reasoning has no number to perturb');
    expect(html).toMatch(/background:rgb\(255, \d+, \d+\)[^>]*>.*0\.600/);
  });
});
