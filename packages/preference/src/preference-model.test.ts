import { type Message, tensorToNumbers } from '@cookbook/core';
import { getRenderer } from '@cookbook/renderers';
import { getTokenizer } from '@cookbook/tokenizers';
import { describe, expect, it } from 'vitest';
import type { LabeledComparison } from './comparison.js';
import {
  ComparisonEvaluator,
  comparisonToChat,
  comparisonToRewardDatum,
  PREFERENCE_HEADER,
  PreferenceAccuracyEvaluator,
  preferenceFromText,
  preferShorter,
  rewardModelDatasets,
  winRateMetrics,
} from './preference-model.js';

const renderer = getRenderer('qwen3_disable_thinking', getTokenizer('local/qwen3-tiny'));
const say = (content: string): Message[] => [{ role: 'assistant', content }];
const lc = (i: number, label: 'A' | 'B' | 'Tie' = 'A'): LabeledComparison => ({
  comparison: {
    promptConversation: [{ role: 'user', content: `Question ${i}?` }],
    completionA: say(`Answer: ${i}`),
    completionB: say(`${i}`),
  },
  label,
});

describe('reward-model data', () => {
  it('renders A, B and Preference sections and trains only the first label token', () => {
    const chat = comparisonToChat(lc(1).comparison);
    expect(chat.map((m) => m.content)).toEqual([
      'Question 1?',
      '==== Completion A ====',
      'Answer: 1',
      '==== Completion B ====',
      '1',
      PREFERENCE_HEADER,
    ]);
    const d = comparisonToRewardDatum(lc(1, 'B'), renderer)!;
    const w = tensorToNumbers(d.lossFnInputs.weights!);
    const targets = tensorToNumbers(d.lossFnInputs.target_tokens!);
    expect(w.filter((x) => x > 0)).toEqual([1]);
    expect(w.at(-1)).toBe(1);
    expect(renderer.tokenizer.decode([targets.at(-1)!])).toBe('B');
    // The prompt the preference model is sampled with is exactly the datum's input.
    const prompt = renderer.buildGenerationPrompt(chat).toInts();
    expect([...d.modelInput.toInts(), targets.at(-1)!]).toEqual([...prompt, targets.at(-1)!]);
    expect(comparisonToRewardDatum(lc(1), renderer, 10)).toBeUndefined();
  });

  it('swaps about half of the comparisons with a fixed seed, or emits both orders', () => {
    const rows = Array.from({ length: 200 }, (_, i) => lc(i));
    const labelsOf = (seed: number) => {
      const ds = rewardModelDatasets({ train: rows }, { renderer, batchSize: 200, seed });
      return ds.train
        .getBatch(0)
        .map((d) => renderer.tokenizer.decode([tensorToNumbers(d.lossFnInputs.target_tokens!).at(-1)!]));
    };
    const a = labelsOf(0);
    const bShare = a.filter((x) => x === 'B').length / a.length;
    expect(bShare).toBeGreaterThan(0.4);
    expect(bShare).toBeLessThan(0.6);
    expect(labelsOf(0)).toEqual(a);
    expect(labelsOf(1)).not.toEqual(a);
    const both = rewardModelDatasets({ train: rows.slice(0, 4) }, { renderer, batchSize: 4, swap: true });
    expect(both.train.length).toBe(1);
    const label = (d: { lossFnInputs: Record<string, unknown> }) =>
      renderer.tokenizer.decode([tensorToNumbers(d.lossFnInputs.target_tokens as never).at(-1)!]);
    // Each comparison in both orders, side by side: same tokens, opposite labels.
    expect(both.train.getBatch(0).map(label)).toEqual(['A', 'B', 'A', 'B', 'A', 'B', 'A', 'B']);
    expect(() => rewardModelDatasets({ train: rows.slice(0, 2) }, { renderer, batchSize: 4 })).toThrow(/batch_size/);
  });
});

describe('preference models', () => {
  it('maps a reply to A → −1, B → +1, else 0', () => {
    expect(preferenceFromText('A')).toBe(-1);
    expect(preferenceFromText(' B')).toBe(1);
    expect(preferenceFromText('Tie')).toBe(0);
    expect(preferenceFromText('')).toBe(0);
  });

  it('prefers the shorter completion', async () => {
    expect(await preferShorter(lc(12).comparison)).toBe(1);
    expect(await preferShorter({ ...lc(1).comparison, completionB: say('Answer: 2') })).toBe(0);
  });

  it('computes the win rate and its standard error', () => {
    const m = winRateMetrics([1, 0, 1, 1], 'x');
    expect(m['x/win_rate']).toBe(0.75);
    expect(m['x/win_rate_stderr']).toBeCloseTo(Math.sqrt(0.25 / 4), 12);
  });

  it('ComparisonEvaluator judges the policy in both orders against the references', async () => {
    // The policy always says "ok"; references are longer or shorter; the judge prefers the shorter.
    const tokens = renderer.tokenizer.encode('ok<|im_end|>');
    const sampler = {
      sample: async () => ({ sequences: [{ tokens, stopReason: 'stop' as const }] }),
    };
    const examples = [
      { promptConversation: [{ role: 'user', content: 'q' } as Message], reference: say('a long reply') },
      { promptConversation: [{ role: 'user', content: 'q' } as Message], reference: say('x') },
      { promptConversation: [{ role: 'user', content: 'q' } as Message], reference: say('no') },
    ];
    const ev = new ComparisonEvaluator({
      examples,
      preferenceModel: preferShorter,
      renderer,
      maxTokens: 4,
      name: 'cmp',
    });
    const m = await ev.evaluate(sampler as never);
    expect(m['cmp/win_rate']).toBeCloseTo((1 + 0 + 0.5) / 3, 12);
    expect(m['cmp/win_rate_stderr']).toBeGreaterThan(0);
  });

  it('PreferenceAccuracyEvaluator scores the sampled label against the data, in both orders', async () => {
    // A judge that always answers "A" is right exactly when A is the winner: half the time over both orders.
    const alwaysA = {
      sample: async () => ({ sequences: [{ tokens: renderer.tokenizer.encode('A'), stopReason: 'length' as const }] }),
    };
    const ev = new PreferenceAccuracyEvaluator([lc(1), lc(2, 'B'), lc(3, 'Tie')], renderer, 'rm');
    expect(await ev.evaluate(alwaysA as never)).toEqual({ 'rm/accuracy': 0.5 });
  });
});
