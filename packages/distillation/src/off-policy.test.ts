import { type ModelInput, tensorToNumbers } from '@cookbook/core';
import { getRenderer } from '@cookbook/renderers';
import { conversationToDatum } from '@cookbook/supervised';
import type { SampleArgs } from '@cookbook/tinker-client';
import { getTokenizer } from '@cookbook/tokenizers';
import { describe, expect, it } from 'vitest';
import { teacherNll, teacherTargets } from './off-policy.js';

const renderer = getRenderer('qwen3_disable_thinking', getTokenizer('local/qwen3-tiny'));
const data = [1, 2, 3, 4, 5].map((x) =>
  conversationToDatum(
    [
      { role: 'user', content: `${x} + 1?` },
      { role: 'assistant', content: String(x + 1) },
    ],
    renderer,
    null,
  ),
);

/** A teacher that gives every position the same two candidates (the true token at −0.1, token 7 at −2.4). */
function fakeTeacher() {
  let inFlight = 0;
  const stats = { maxInFlight: 0, calls: 0 };
  const sample = async (args: SampleArgs) => {
    inFlight++;
    stats.calls++;
    stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
    await new Promise((r) => setTimeout(r, 2));
    inFlight--;
    const ints = (args.prompt as ModelInput).toInts();
    expect(args.topkPromptLogprobs).toBe(2);
    return {
      sequences: [],
      promptCacheHitTokens: 0,
      topkPromptLogprobs: ints.map((t, j) =>
        j === 0
          ? null
          : [
              [t, -0.1],
              [7, -2.4],
            ],
      ) as ([number, number][] | null)[],
    };
  };
  const computeLogprobs = async (prompt: ModelInput) => prompt.toInts().map((_, j) => (j === 0 ? null : -0.5));
  return { stats, sample, computeLogprobs };
}

describe('teacherTargets', () => {
  it('keeps at most `concurrency` teacher calls in flight and returns (N, K) datums in order', async () => {
    const teacher = fakeTeacher();
    const out = await teacherTargets(teacher, data, 2, 2);
    expect(teacher.stats.calls).toBe(5);
    expect(teacher.stats.maxInFlight).toBe(2);
    expect(out.data).toHaveLength(5);
    expect(out.tokens).toBe(data.reduce((a, d) => a + d.modelInput.length + 1, 0));
    for (const [i, d] of out.data.entries()) {
      const n = data[i]!.modelInput.length;
      expect(d.lossFnInputs.target_tokens!.shape).toEqual([n, 2]);
      const targets = tensorToNumbers(d.lossFnInputs.target_tokens!);
      const original = tensorToNumbers(data[i]!.lossFnInputs.target_tokens!);
      // Column 0 is the text's own token (the teacher's best), column 1 the runner-up.
      expect(targets.filter((_, j) => j % 2 === 0)).toEqual(original);
      // Weighted rows: total weight equals the original row weight (renormalised over the two candidates).
      const w = tensorToNumbers(d.lossFnInputs.weights!);
      const ow = tensorToNumbers(data[i]!.lossFnInputs.weights!);
      for (let t = 0; t < n; t++) expect(w[2 * t]! + w[2 * t + 1]!).toBeCloseTo(ow[t]!, 6);
    }
  });

  it("teacherNll is the weighted mean of the teacher's logprobs on the trained tokens", async () => {
    expect(await teacherNll(fakeTeacher(), data, 3)).toBeCloseTo(0.5, 6);
  });
});
