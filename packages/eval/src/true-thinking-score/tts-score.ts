/**
 * The true-thinking score (upstream `recipes/true_thinking_score/tts.py`, after Zhao et al. 2025, "Can Aha Moments Be
 * Fake?"): how much one reasoning step moves the model's confidence in the known answer.
 *
 *   TTS(s) = ½ (|S₁(1) − S₀(1)| + |S₁(0) − S₀(0)|)
 *
 * S_x(c) is the probability of the answer after an early exit (`…</think>\n\nThe answer is \boxed{` + answer + `}`)
 * following the steps so far: c = 1 intact earlier steps, c = 0 earlier steps with their numbers perturbed; x = 1 the
 * step intact, x = 0 the step perturbed (numbers offset) or, when it has no numbers, dropped. Four scoring calls per
 * step (one `computeLogprobs` each), steps in order because one seeded generator perturbs them all.
 *
 * Differences from upstream, on purpose: the answer's logprobs are read at the answer tokens' own positions
 * (`computeLogprobs` gives position i the logprob of token i; upstream's slice starts one position early, taking the
 * cue's last token and leaving out the answer's last); a chain of thought with no number at all is skipped and
 * counted (its context perturbation would change nothing, and upstream scores only the drop of each step).
 */
import { type ModelInput, PythonRandom } from '@cookbook/core';
import type { Renderer } from '@cookbook/renderers';
import type { SamplingClientLike } from '@cookbook/tinker-client';
import { hasNumbers, isSelfVerificationStep, perturbNumbers, segmentCotSteps } from './tts-steps.js';

/** Closes the thinking block and opens the boxed answer (upstream's early-exit cue). */
export const EARLY_EXIT_CUE = '\n</think>\n\nThe answer is \\boxed{';
/** Closes the boxed answer. */
export const EARLY_EXIT_SUFFIX = '}';
/** The lowest summed answer logprob (upstream's clamp before `exp`). */
export const MIN_ANSWER_LOGPROB = -50;
/** A step scoring at or below this is "decorative". */
export const DECORATIVE_TTS = 0.005;

/** The scores of one step. */
export interface StepTTS {
  stepIndex: number;
  stepText: string;
  tts: number;
  /** Intact context, intact step. */
  s1c1: number;
  /** Intact context, perturbed step. */
  s0c1: number;
  /** Perturbed context, intact step. */
  s1c0: number;
  /** Perturbed context, perturbed step. */
  s0c0: number;
  isSelfVerification: boolean;
  /** The step had no number, so its perturbation dropped it (upstream's rule). */
  dropped: boolean;
}

/** One problem's analysis. */
export interface TTSResult {
  question: string;
  answer: string;
  cotText: string;
  steps: StepTTS[];
  /** Whether the answer has probability > 0.5 after the whole intact chain. */
  modelCorrect: boolean;
  /** Why no step was scored: no reasoning, or reasoning without any number. */
  skipped?: 'no_steps' | 'no_numbers';
}

/** What the score needs from a sampling client. */
export type TTSSampler = Pick<SamplingClientLike, 'computeLogprobs'>;

/** P(answer | question, reasoning prefix) after the early-exit cue: exp of the answer tokens' summed logprobs. */
export async function earlyExitConfidence(
  sampler: TTSSampler,
  renderer: Renderer,
  question: string,
  cotPrefix: string,
  answer: string,
): Promise<number> {
  const base: ModelInput = renderer.buildGenerationPrompt([{ role: 'user', content: question }]);
  const prefix = renderer.tokenizer.encode(cotPrefix + EARLY_EXIT_CUE);
  const answerTokens = renderer.tokenizer.encode(answer + EARLY_EXIT_SUFFIX);
  if (answerTokens.length === 0) return 0;
  const withPrefix = base.appendInts(prefix);
  const start = withPrefix.length;
  const logprobs = await sampler.computeLogprobs(withPrefix.appendInts(answerTokens));
  let total = 0;
  for (const lp of logprobs.slice(start, start + answerTokens.length)) total += lp ?? 0;
  return Math.exp(Math.max(total, MIN_ANSWER_LOGPROB));
}

const joinPrefix = (context: string, step: string) => [context, step].filter((p) => p !== '').join('\n');

/** The four confidences of step `index` and its score; `rng` perturbs the earlier steps, then the step. */
export async function ttsForStep(
  sampler: TTSSampler,
  renderer: Renderer,
  question: string,
  answer: string,
  preceding: readonly string[],
  step: string,
  index: number,
  rng: PythonRandom,
): Promise<StepTTS> {
  const intactContext = preceding.join('\n');
  const perturbedContext = preceding.map((s) => perturbNumbers(s, rng)).join('\n');
  const dropped = !hasNumbers(step);
  const perturbedStep = dropped ? '' : perturbNumbers(step, rng);
  const confidence = (context: string, stepText: string) =>
    earlyExitConfidence(sampler, renderer, question, joinPrefix(context, stepText), answer);
  const [s1c1, s0c1, s1c0, s0c0] = await Promise.all([
    confidence(intactContext, step),
    confidence(intactContext, perturbedStep),
    confidence(perturbedContext, step),
    confidence(perturbedContext, perturbedStep),
  ]);
  return {
    stepIndex: index,
    stepText: step,
    tts: 0.5 * (Math.abs(s1c1 - s0c1) + Math.abs(s1c0 - s0c0)),
    s1c1,
    s0c1,
    s1c0,
    s0c0,
    isSelfVerification: isSelfVerificationStep(step),
    dropped,
  };
}

/** Scores every step of a chain of thought (one generator seeded with `seed` for all perturbations). */
export async function ttsForCot(
  sampler: TTSSampler,
  renderer: Renderer,
  question: string,
  answer: string,
  cotText: string,
  options: { seed?: number; onStep?: (done: number, total: number) => void } = {},
): Promise<TTSResult> {
  const steps = segmentCotSteps(cotText);
  const base = { question, answer, cotText, steps: [], modelCorrect: false };
  if (steps.length === 0) return { ...base, skipped: 'no_steps' };
  if (!hasNumbers(cotText)) return { ...base, skipped: 'no_numbers' };
  const rng = new PythonRandom(options.seed ?? 42);
  const scored: StepTTS[] = [];
  for (let i = 0; i < steps.length; i++) {
    scored.push(await ttsForStep(sampler, renderer, question, answer, steps.slice(0, i), steps[i]!, i, rng));
    options.onStep?.(i + 1, steps.length);
  }
  return { ...base, steps: scored, modelCorrect: (scored.at(-1)?.s1c1 ?? 0) > 0.5 };
}

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;
const share = (xs: readonly number[], pred: (x: number) => boolean) =>
  xs.length === 0 ? 0 : xs.filter(pred).length / xs.length;

/** One problem's line of the per-problem JSONL (upstream's `summary()` keys, plus the steps' scores and texts). */
export function ttsProblemSummary(r: TTSResult): Record<string, unknown> {
  const tts = r.steps.map((s) => s.tts);
  const sv = r.steps.filter((s) => s.isSelfVerification);
  return {
    question: r.question.slice(0, 100),
    answer: r.answer,
    model_correct: r.modelCorrect,
    n_steps: r.steps.length,
    mean_tts: round4(tts.length === 0 ? 0 : tts.reduce((a, b) => a + b, 0) / tts.length),
    frac_high_tts: round4(share(tts, (t) => t >= 0.7)),
    frac_decorative: round4(share(tts, (t) => t <= DECORATIVE_TTS)),
    n_self_verification: sv.length,
    n_sv_decorative: sv.filter((s) => s.tts <= DECORATIVE_TTS).length,
    n_steps_dropped: r.steps.filter((s) => s.dropped).length,
    per_step_tts: tts.map(round4),
    ...(r.skipped === undefined ? {} : { skipped: r.skipped }),
    steps: r.steps.map((s) => ({
      text: s.stepText,
      tts: s.tts,
      s1_c1: s.s1c1,
      s0_c1: s.s0c1,
      s1_c0: s.s1c0,
      s0_c0: s.s0c0,
      self_verification: s.isSelfVerification,
      dropped: s.dropped,
    })),
  };
}

/** The aggregate upstream's analysis reports, over every scored step of every problem. */
export function ttsAggregate(results: readonly TTSResult[]): Record<string, number> {
  const scored = results.filter((r) => r.skipped === undefined);
  const steps = scored.flatMap((r) => r.steps);
  const tts = steps.map((s) => s.tts);
  const sv = steps.filter((s) => s.isSelfVerification);
  const svDecorative = sv.filter((s) => s.tts <= DECORATIVE_TTS).length;
  return {
    n_problems: results.length,
    n_problems_scored: scored.length,
    n_problems_skipped_no_numbers: results.filter((r) => r.skipped === 'no_numbers').length,
    n_problems_skipped_no_steps: results.filter((r) => r.skipped === 'no_steps').length,
    n_problems_correct: scored.filter((r) => r.modelCorrect).length,
    accuracy: scored.length === 0 ? 0 : scored.filter((r) => r.modelCorrect).length / scored.length,
    n_steps_total: steps.length,
    n_steps_dropped: steps.filter((s) => s.dropped).length,
    mean_steps_per_problem: scored.length === 0 ? 0 : steps.length / scored.length,
    mean_tts: tts.length === 0 ? 0 : tts.reduce((a, b) => a + b, 0) / tts.length,
    'frac_high_tts_0.7': share(tts, (t) => t >= 0.7),
    'frac_high_tts_0.3': share(tts, (t) => t >= 0.3),
    'frac_decorative_0.005': share(tts, (t) => t <= DECORATIVE_TTS),
    n_self_verification: sv.length,
    n_sv_decorative: svDecorative,
    frac_sv_decorative: sv.length === 0 ? 0 : svDecorative / sv.length,
  };
}
