/**
 * SDFT's teacher side against upstream's own code (`scripts/sdft-fixture.py` runs upstream's `sdft.py` on hand-made
 * RL datums and a scripted teacher): the demonstration template, the top-K datums (first 3 completion tokens
 * skipped, ids beyond the vocabulary dropped, renormalised; ragged completions, a truncating context limit) and the
 * advantage form. Plus the reverse-KL loss's gradient against finite differences, and the template errors.
 */
import { readFileSync } from 'node:fs';
import {
  ConfigError,
  type Datum,
  ModelInput,
  tensorFromFloat32,
  tensorFromInt64,
  tensorToNumbers,
} from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import type { TopkRow } from '../topk.js';
import {
  DEFAULT_DEMO_TEMPLATE,
  formatDemoTemplate,
  reverseKlTopkLoss,
  sdftAdvantageDatum,
  sdftTopkDatum,
  studentCompletion,
} from './sdft-targets.js';

const fixture = JSON.parse(readFileSync(new URL('../__fixtures__/sdft-upstream.json', import.meta.url), 'utf8')) as {
  default_template: string;
  formatted: { template?: string; question: string; golden_answer: string; out: string }[];
  cases: { group: number; student_prompt: number[]; completion: number[]; student_logprobs: number[] }[];
  teacher_prompts: number[][];
  topk: {
    K: number;
    vocab_size: number | null;
    max_context_length: number;
    teacher_sequences: number[][];
    target_tokens: number[][][];
    weights: number[][][];
    metrics: Record<string, number>;
  }[];
  advantage: { teacher_sequences: number[][]; advantages: number[][]; metrics: Record<string, number> };
};

/** The fixture's scripted teacher: top-K rows (one id past the vocabulary) and prompt logprobs. */
function teacherRow(tokens: readonly number[], pos: number): [number, number][] {
  const base = (tokens[pos]! * 7 + pos) % 50;
  const ids = [base + 1, base + 3, 1000 + pos, base + 5, base + 8, base + 13];
  return ids.map((id, k) => [id, -0.5 - 0.3 * k - 0.01 * pos]);
}
const teacherLogprobs = (tokens: readonly number[]) =>
  tokens.map((t, p) => (p === 0 ? null : -0.1 * ((t * 3 + p) % 11)));

/** An RL datum as the rollouts assemble it: inputs full[:-1], targets full[1:], the completion masked in. */
function rlDatum(prompt: number[], completion: number[], lps: number[]): Datum {
  const full = [...prompt, ...completion];
  const n = full.length - 1;
  const pad = new Array<number>(prompt.length - 1).fill(0);
  return {
    modelInput: ModelInput.fromInts(full.slice(0, -1)),
    lossFnInputs: {
      target_tokens: tensorFromInt64(full.slice(1)),
      mask: tensorFromFloat32([...pad, ...completion.map(() => 1)]),
      logprobs: tensorFromFloat32([...pad, ...lps]),
      advantages: tensorFromFloat32(new Array<number>(n).fill(0)),
    },
  };
}

const rows = (flat: number[], K: number) =>
  Array.from({ length: flat.length / K }, (_, r) => flat.slice(r * K, r * K + K));

describe('SDFT formats match upstream', () => {
  it('the teacher template and its filling', () => {
    expect(DEFAULT_DEMO_TEMPLATE).toBe(fixture.default_template);
    for (const f of fixture.formatted) {
      expect(formatDemoTemplate(f.template ?? DEFAULT_DEMO_TEMPLATE, f.question, f.golden_answer)).toBe(f.out);
    }
  });

  it('top-K datums: teacher-forced sequences, skipped tokens, vocabulary filter, renormalised weights', () => {
    for (const rec of fixture.topk) {
      const sequences: number[][] = [];
      let entropy = 0;
      let tokens = 0;
      fixture.cases.forEach((c, d) => {
        const datum = rlDatum(c.student_prompt, c.completion, c.student_logprobs);
        const prompt = fixture.teacher_prompts[c.group]!;
        const completion = studentCompletion(datum, prompt.length, rec.max_context_length);
        const seq = [...prompt, ...completion.tokens];
        sequences.push(seq);
        const topk: TopkRow[] = seq.map((_, p) => (p === 0 ? null : teacherRow(seq, p).slice(0, rec.K)));
        const built = sdftTopkDatum(datum, completion, topk, prompt.length, {
          K: rec.K,
          vocabSize: rec.vocab_size,
          skipFirstNTokens: 3,
        });
        entropy += built.entropySum;
        tokens += completion.rows.length;
        expect(rows(tensorToNumbers(built.datum.lossFnInputs.target_tokens!), rec.K), `K=${rec.K} datum ${d}`).toEqual(
          rec.target_tokens[d],
        );
        const w = rows(tensorToNumbers(built.datum.lossFnInputs.weights!), rec.K);
        w.forEach((row, r) => {
          row.forEach((x, k) => {
            expect(x, `K=${rec.K} datum ${d} row ${r} slot ${k}`).toBeCloseTo(rec.weights[d]![r]![k]!, 6);
          });
        });
      });
      expect(sequences).toEqual(rec.teacher_sequences);
      expect(entropy / tokens).toBeCloseTo(rec.metrics['sdft/mean_teacher_entropy']!, 5);
    }
  });

  it('the advantage form: teacher − student logprob on the completion rows', () => {
    fixture.cases.forEach((c, d) => {
      const datum = rlDatum(c.student_prompt, c.completion, c.student_logprobs);
      const prompt = fixture.teacher_prompts[c.group]!;
      const completion = studentCompletion(datum, prompt.length, 32_768);
      const seq = [...prompt, ...completion.tokens];
      expect(seq).toEqual(fixture.advantage.teacher_sequences[d]);
      sdftAdvantageDatum(datum, completion, teacherLogprobs(seq), prompt.length);
      tensorToNumbers(datum.lossFnInputs.advantages!).forEach((a, i) => {
        expect(a, `datum ${d} row ${i}`).toBeCloseTo(fixture.advantage.advantages[d]![i]!, 6);
      });
    });
  });
});

describe('SDFT teacher template and reverse KL', () => {
  it('refuses a template without the reference answer, or with an unknown field', () => {
    expect(() => formatDemoTemplate('{question} — answer it.', 'q', 'a')).toThrow(ConfigError);
    expect(() => formatDemoTemplate('{question} — answer it.', 'q', 'a')).toThrow(/no \{golden_answer\} field/);
    expect(() => formatDemoTemplate('{question} {golden_answer} {hint}', 'q', 'a')).toThrow(/unknown field \{hint\}/);
  });

  it('reverse KL over the K slots: value and gradient (finite differences), invalid slots ignored', () => {
    const K = 3;
    const weights = [0.5, 0.3, 0.2, 0, 0, 0, 0.7, 0.3, 0];
    const logprobs = [-1.2, -0.4, -2.5, -3, -1, -2, -0.3, -1.9, -0.8];
    const f = (lp: number[]) => reverseKlTopkLoss(weights, lp, K).loss;
    const r = reverseKlTopkLoss(weights, logprobs, K);
    expect(r.positions).toBe(2);
    // Row 0 by hand: p = softmax over the 3 slots; Σ p (log p − log q).
    const lse = Math.log(Math.exp(-1.2) + Math.exp(-0.4) + Math.exp(-2.5));
    const row0 = [-1.2, -0.4, -2.5].reduce((s, l, k) => s + Math.exp(l - lse) * (l - lse - Math.log(weights[k]!)), 0);
    const lse2 = Math.log(Math.exp(-0.3) + Math.exp(-1.9));
    const row2 = [-0.3, -1.9].reduce((s, l, k) => s + Math.exp(l - lse2) * (l - lse2 - Math.log(weights[6 + k]!)), 0);
    expect(r.loss).toBeCloseTo(row0 + row2, 10);
    for (let i = 0; i < logprobs.length; i++) {
      const h = 1e-5;
      const up = [...logprobs];
      const down = [...logprobs];
      up[i]! += h;
      down[i]! -= h;
      expect(r.grad[i]!, `slot ${i}`).toBeCloseTo((f(up) - f(down)) / (2 * h), 5);
    }
  });
});
