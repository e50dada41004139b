/**
 * The true-thinking score against upstream's own code (`scripts/tts-fixture.py` runs upstream's `tts.py`): the step
 * splitter, the self-verification and number tests, the seeded perturbation, and the per-chain computation — the
 * prefixes scored, in order, and the scores — with the confidence a fixed function of the prefix on both sides.
 */

import { readFileSync } from 'node:fs';
import { type ModelInput, PythonRandom } from '@cookbook/core';
import { getRenderer, type Renderer } from '@cookbook/renderers';
import { getTokenizer } from '@cookbook/tokenizers';
import { beforeAll, describe, expect, it } from 'vitest';
import { EARLY_EXIT_CUE, ttsForCot, ttsProblemSummary } from './tts-score.js';
import { hasNumbers, isSelfVerificationStep, perturbNumbers, segmentCotSteps } from './tts-steps.js';

const fixture = JSON.parse(readFileSync(new URL('../__fixtures__/tts-upstream.json', import.meta.url), 'utf8')) as {
  split: { cot: string; steps: string[]; steps_min5: string[] }[];
  checks: { text: string; has_numbers: boolean; self_verification: boolean }[];
  perturbed: { seed: number; texts: string[]; out: string[] }[];
  chains: {
    cot: string;
    seed: number;
    prefixes: string[];
    steps: { text: string; tts: number; s1_c1: number; s0_c1: number; s1_c0: number; s0_c0: number }[];
    summary: Record<string, unknown>;
  }[];
};

/** The fixture's stand-in confidence. */
const confidenceOf = (prefix: string) => {
  let sum = 0;
  for (const c of prefix) sum += c.codePointAt(0)!;
  return ((sum % 97) + 1) / 98;
};

let renderer: Renderer;
beforeAll(() => {
  renderer = getRenderer('qwen3_disable_thinking', getTokenizer('local/qwen3-tiny'));
});

/**
 * A sampler whose answer logprobs sum to log(confidenceOf(prefix)), read from the decoded input; every other position
 * gets −7, so reading the wrong positions changes the score.
 */
function prefixSampler(question: string, answer: string) {
  const prompts: string[] = [];
  const tok = renderer.tokenizer;
  const head = tok.decode(renderer.buildGenerationPrompt([{ role: 'user', content: question }]).toInts());
  const nAnswer = tok.encode(`${answer}}`).length;
  return {
    prompts,
    async computeLogprobs(input: ModelInput): Promise<(number | null)[]> {
      const ids = input.toInts();
      const text = tok.decode(ids);
      const cut = text.lastIndexOf(EARLY_EXIT_CUE);
      const prefix = text.slice(head.length, cut);
      prompts.push(prefix);
      const lps: (number | null)[] = ids.map(() => -7);
      lps[0] = null;
      for (let i = ids.length - nAnswer; i < ids.length; i++) lps[i] = 0;
      lps[ids.length - 1] = Math.log(confidenceOf(prefix));
      return lps;
    },
  };
}

describe('true-thinking score pieces match upstream', () => {
  it('splits chains of thought into upstream’s steps (markers, short pieces merged)', () => {
    expect(fixture.split.length).toBe(12);
    for (const s of fixture.split) {
      expect(segmentCotSteps(s.cot)).toEqual(s.steps);
      expect(segmentCotSteps(s.cot, 5)).toEqual(s.steps_min5);
    }
  });

  it('finds numbers and self-verification cues as upstream does', () => {
    for (const c of fixture.checks) {
      expect({ text: c.text, n: hasNumbers(c.text), sv: isSelfVerificationStep(c.text) }).toEqual({
        text: c.text,
        n: c.has_numbers,
        sv: c.self_verification,
      });
    }
  });

  it('perturbs numbers exactly as upstream’s seeded generator does', () => {
    for (const p of fixture.perturbed) {
      const rng = new PythonRandom(p.seed);
      expect(p.texts.map((t) => perturbNumbers(t, rng))).toEqual(p.out);
    }
  });

  it('scores the prefixes upstream scores and derives upstream’s step scores from them', async () => {
    for (const [i, chain] of fixture.chains.entries()) {
      const sampler = prefixSampler('Q?', '55');
      const result = await ttsForCot(sampler, renderer, 'Q?', '55', chain.cot, { seed: chain.seed });
      if (chain.steps.length === 0 || !hasNumbers(chain.cot)) {
        // Upstream scores a chain without numbers (only step drops); this port skips it and counts it.
        expect(result.steps, `chain ${i}`).toEqual([]);
        continue;
      }
      expect(sampler.prompts, `chain ${i}`).toEqual(chain.prefixes);
      expect(result.steps.map((s) => s.stepText)).toEqual(chain.steps.map((s) => s.text));
      result.steps.forEach((s, j) => {
        const want = chain.steps[j]!;
        for (const [k, v] of [
          ['tts', s.tts],
          ['s1_c1', s.s1c1],
          ['s0_c1', s.s0c1],
          ['s1_c0', s.s1c0],
          ['s0_c0', s.s0c0],
        ] as const) {
          expect(v, `chain ${i} step ${j} ${k}`).toBeCloseTo(want[k], 12);
        }
      });
      const summary = ttsProblemSummary(result);
      for (const k of Object.keys(chain.summary)) expect(summary[k], `chain ${i} ${k}`).toEqual(chain.summary[k]);
    }
  });
});
