/**
 * Self-distillation fine-tuning's teacher side (upstream `distillation/sdft.py`): the teacher is the model itself
 * prompted with the question and a reference answer (upstream's demonstration template); it is teacher-forced on the
 * student's completion, and its view becomes the student's training signal in one of three forms:
 *
 * - top-K (default, K = 20): at each completion position the teacher's top-K next-token logprobs, ids at or beyond the
 *   vocabulary dropped, renormalised over what is left, become (N, K) `cross_entropy` targets; the first 3 completion
 *   tokens are skipped (upstream's reference setting);
 * - reverse KL over the same K slots (`reverse`): the teacher's renormalised probabilities are packed into the
 *   weights and a client-side loss computes Σ_k p_k (log p_k − log q_k) with the student's p renormalised over K;
 * - advantage (`topk = 0`): per completion token, advantage = teacher logprob − student sampled logprob, trained with
 *   `importance_sampling`.
 */
import {
  ConfigError,
  DataError,
  type Datum,
  datumFullSequence,
  lossInput,
  type ModelInput,
  tensorFromFloat32,
  tensorFromInt64,
  tensorToNumbers,
} from '@cookbook/core';
import type { Renderer } from '@cookbook/renderers';
import { logSumExp, type TopkRow } from '../topk.js';

/** Upstream's teacher prompt: the question, the reference answer as an example, and the request to answer anew. */
export const DEFAULT_DEMO_TEMPLATE =
  '{question}\n\nThis is an example for a response to the question:\n{golden_answer}\n\n' +
  'Now answer with a response of your own, including the thinking process.';

/** Upstream's defaults: K, the completion tokens left out of the loss, the teacher's context limit. */
export const SDFT_DEFAULTS = { topk: 20, skipFirstNTokens: 3, maxContextLength: 32_768 } as const;

/**
 * Python's `template.format(question=…, golden_answer=…)` for the two fields (`{{` and `}}` are literal braces).
 * @throws ConfigError when the template has no `{golden_answer}` (a teacher that never sees the answer teaches
 *   nothing), or names another field.
 */
export function formatDemoTemplate(template: string, question: string, goldenAnswer: string): string {
  const fields = [...template.replace(/\{\{|\}\}/g, '').matchAll(/\{([^{}]*)\}/g)].map((m) => m[1]);
  if (!fields.includes('golden_answer')) {
    throw new ConfigError(
      `demo_template has no {golden_answer} field: the teacher must see the reference answer (template: ${JSON.stringify(template.slice(0, 120))})`,
      { key: 'demo_template' },
    );
  }
  const unknown = fields.filter((f) => f !== 'question' && f !== 'golden_answer');
  if (unknown.length > 0) {
    throw new ConfigError(`demo_template names unknown field {${unknown[0]}}; use {question} and {golden_answer}`, {
      key: 'demo_template',
    });
  }
  return template.replace(/\{\{|\}\}|\{(question|golden_answer)\}/g, (m, f: string | undefined) =>
    m === '{{' ? '{' : m === '}}' ? '}' : f === 'question' ? question : goldenAnswer,
  );
}

/** The teacher's generation prompt: an optional system message, then the filled template as the user turn. */
export function sdftTeacherPrompt(
  renderer: Renderer,
  question: string,
  goldenAnswer: string,
  options: { systemPrompt?: string | null; demoTemplate?: string } = {},
): ModelInput {
  const content = formatDemoTemplate(options.demoTemplate ?? DEFAULT_DEMO_TEMPLATE, question, goldenAnswer);
  const messages = [
    ...(options.systemPrompt ? [{ role: 'system', content: options.systemPrompt }] : []),
    { role: 'user', content },
  ];
  return renderer.buildGenerationPrompt(messages);
}

/** The student's completion inside an RL datum, cut to what fits after the teacher prompt. */
export interface StudentCompletion {
  tokens: number[];
  /** Target rows (indices into the datum) of the completion tokens, in order. */
  rows: number[];
  truncated: boolean;
}

/**
 * The completion tokens of an RL datum (the full sequence from the first masked-in target on) and the target rows
 * that predict them; cut so that the teacher prompt plus the completion fits `maxContextLength`.
 */
export function studentCompletion(
  datum: Datum,
  teacherPromptLength: number,
  maxContextLength: number,
): StudentCompletion {
  const mask = lossInput(datum, 'mask');
  const rows: number[] = [];
  mask.forEach((m, i) => {
    if (m > 0) rows.push(i);
  });
  if (rows.length === 0) return { tokens: [], rows: [], truncated: false };
  const full = datumFullSequence(datum).toInts();
  let tokens = full.slice(rows[0]! + 1);
  const available = maxContextLength - teacherPromptLength;
  if (available <= 0) return { tokens: [], rows: [], truncated: true };
  const truncated = tokens.length > available;
  if (truncated) tokens = tokens.slice(0, available);
  const n = Math.min(tokens.length, rows.length);
  return { tokens: tokens.slice(0, n), rows: rows.slice(0, n), truncated };
}

/**
 * The (N, K) top-K datum of an RL datum (upstream's `build_topk_distillation_datums`, one datum): teacher entry
 * `teacherPromptLength + t` (the teacher's prediction of completion token t) fills target row `rows[t]`, for
 * t ≥ `skipFirstNTokens`. Every other row has token 0 and weight 0.
 */
export function sdftTopkDatum(
  datum: Datum,
  completion: StudentCompletion,
  teacherTopk: readonly TopkRow[],
  teacherPromptLength: number,
  options: { K: number; vocabSize: number | null; skipFirstNTokens: number },
): { datum: Datum; entropySum: number; positions: number } {
  const { K, vocabSize, skipFirstNTokens } = options;
  if (!Number.isInteger(K) || K < 1)
    throw new ConfigError(`topk must be a positive integer, got ${K}`, { key: 'topk' });
  const N = datum.modelInput.length;
  const tokens_NK = new Array<number>(N * K).fill(0);
  const weights_NK = new Array<number>(N * K).fill(0);
  let entropySum = 0;
  let positions = 0;
  for (let t = skipFirstNTokens; t < completion.rows.length; t++) {
    const row = teacherTopk[teacherPromptLength + t];
    if (row === null || row === undefined) continue;
    const kept = row.slice(0, K).filter(([id]) => vocabSize === null || id < vocabSize);
    if (kept.length === 0) continue;
    const lps = kept.map(([, lp]) => lp);
    if (lps.some((lp) => !Number.isFinite(lp))) {
      throw new DataError(`teacher top-K at position ${teacherPromptLength + t} holds a non-finite logprob`, {
        field: 'topk_prompt_logprobs',
      });
    }
    const lse = logSumExp(lps);
    const r = completion.rows[t]!;
    kept.forEach(([id, lp], k) => {
      const logp = lp - lse;
      tokens_NK[r * K + k] = id;
      weights_NK[r * K + k] = Math.exp(logp);
      entropySum -= Math.exp(logp) * logp;
    });
    positions++;
  }
  return {
    datum: {
      modelInput: datum.modelInput,
      lossFnInputs: {
        target_tokens: tensorFromInt64(tokens_NK, [N, K]),
        weights: tensorFromFloat32(weights_NK, [N, K]),
      },
    },
    entropySum,
    positions,
  };
}

/**
 * The advantage form (upstream's `compute_sdft_advantages`, one datum): the datum's advantages become teacher −
 * student logprob on the completion rows (0 elsewhere); mutates `datum`. `teacherLogprobs` are the teacher-forced
 * sequence's prompt logprobs (entry j: the logprob of token j; a missing one counts 0, as upstream).
 */
export function sdftAdvantageDatum(
  datum: Datum,
  completion: StudentCompletion,
  teacherLogprobs: readonly (number | null)[],
  teacherPromptLength: number,
): number {
  const student = lossInput(datum, 'logprobs');
  const advantages = new Array<number>(student.length).fill(0);
  let positions = 0;
  completion.rows.forEach((r, t) => {
    advantages[r] = (teacherLogprobs[teacherPromptLength + t] ?? 0) - student[r]!;
    positions++;
  });
  datum.lossFnInputs.advantages = tensorFromFloat32(advantages);
  return positions;
}

/** Σ (student sampled logprob − teacher logprob) over the completion tokens from `skip` on, and their count. */
export function sampledKl(
  datum: Datum,
  completion: StudentCompletion,
  teacherLogprobs: readonly (number | null)[],
  teacherPromptLength: number,
  skip: number,
): { sum: number; count: number } {
  const student = lossInput(datum, 'logprobs');
  let sum = 0;
  let count = 0;
  for (let t = skip; t < completion.rows.length; t++) {
    const lp = teacherLogprobs[teacherPromptLength + t];
    if (lp === null || lp === undefined) continue;
    sum += student[completion.rows[t]!]! - lp;
    count++;
  }
  return { sum, count };
}

/**
 * The reverse KL over the teacher's top-K slots as a client-side loss (upstream's `reverse_kl_custom_loss`):
 * per position with targets, the student's logprobs of the K tokens renormalised over the valid slots (weight > 0)
 * give p; q is the teacher's renormalised probability (the weight); loss Σ_k p_k (log p_k − log q_k). Returns the loss
 * and its gradient with respect to the K logprobs (exact: d/dℓ_j of Σ p (log p − log q) = p_j (a_j − Σ_k p_k a_k)
 * with a = log p − log q).
 */
export function reverseKlTopkLoss(
  weights_NK: ArrayLike<number>,
  logprobs_NK: ArrayLike<number>,
  K: number,
): { loss: number; grad: Float32Array; positions: number } {
  const grad = new Float32Array(logprobs_NK.length);
  let loss = 0;
  let positions = 0;
  for (let r = 0; r * K < weights_NK.length; r++) {
    const slots: number[] = [];
    for (let k = 0; k < K; k++) if (weights_NK[r * K + k]! > 0) slots.push(r * K + k);
    if (slots.length === 0) continue;
    const lse = logSumExp(slots.map((i) => logprobs_NK[i]!));
    const logp = slots.map((i) => logprobs_NK[i]! - lse);
    const a = slots.map((i, j) => logp[j]! - Math.log(weights_NK[i]!));
    const p = logp.map(Math.exp);
    const mean = p.reduce((s, pj, j) => s + pj * a[j]!, 0);
    loss += mean;
    slots.forEach((i, j) => {
      grad[i] = p[j]! * (a[j]! - mean);
    });
    positions++;
  }
  return { loss, grad, positions };
}

/** The (N·K) weights of a top-K datum. */
export function topkWeights(datum: Datum): number[] {
  const w = datum.lossFnInputs.weights;
  return w === undefined ? [] : tensorToNumbers(w);
}
