/**
 * The evaluator interfaces every training loop accepts (upstream `eval/evaluators.py`): an evaluator scores the
 * current weights, either through the training client (`forward` only, e.g. held-out NLL) or through a sampling
 * client (generate and grade). SFT, DPO and distillation run both kinds; RL runs sampling ones. A builder is a
 * zero-argument function returning an evaluator; loops accept evaluators and builders alike.
 */
import type { SamplingClientLike, TrainingClientLike } from '@cookbook/tinker-client';
import { z } from 'zod';

/**
 * The `infrequentEvalEvery` field of every loop that runs infrequent evaluators (SFT, DPO, RL, off-policy
 * distillation): one description and one default.
 */
export const infrequentEvalEveryField = z
  .number()
  .int()
  .nonnegative()
  .default(100)
  .describe('Steps between infrequent evaluations (0 = never)');

/** Where and when an evaluator runs. */
export interface EvalContext {
  /** Optimizer steps taken so far (the evaluation sees the weights after `step` updates). */
  step: number;
  /** The run's log dir. */
  logPath: string;
  /**
   * Where the loop wants this evaluator's HTML transcript (e.g. `iteration_000020/eval_test.html`); undefined =
   * the evaluator picks its own place or writes none.
   */
  transcriptPath?: string | undefined;
}

/** What a training-client evaluator may call: `forward` (no gradients, no optimizer state touched). */
export type EvalTrainingClient = Pick<TrainingClientLike, 'forward'>;

/** An evaluator that uses the training client directly (upstream `TrainingClientEvaluator`). */
export interface TrainingClientEvaluator {
  readonly kind: 'training_client';
  /** Used in metric names and transcript file names. */
  readonly name: string;
  evaluate(client: EvalTrainingClient, ctx: EvalContext): Promise<Record<string, number>>;
}

/** An evaluator that samples from the current weights (upstream `SamplingClientEvaluator`). */
export interface SamplingClientEvaluator {
  readonly kind: 'sampling_client';
  /** Used in metric names and transcript file names. */
  readonly name: string;
  evaluate(client: SamplingClientLike, ctx: EvalContext): Promise<Record<string, number>>;
}

/** Either kind of evaluator. */
export type Evaluator = TrainingClientEvaluator | SamplingClientEvaluator;

/** Makes an evaluator when the loop starts (upstream `…EvaluatorBuilder`: a zero-argument callable). */
export type EvaluatorBuilder<E extends Evaluator = Evaluator> = () => E | Promise<E>;
/** A builder of a training-client evaluator. */
export type TrainingClientEvaluatorBuilder = EvaluatorBuilder<TrainingClientEvaluator>;
/** A builder of a sampling-client evaluator. */
export type SamplingClientEvaluatorBuilder = EvaluatorBuilder<SamplingClientEvaluator>;

/** An evaluator or a builder of one: what loops accept in `evaluators` / `infrequentEvaluators`. */
export type EvaluatorOrBuilder<E extends Evaluator = Evaluator> = E | EvaluatorBuilder<E>;

/** Builds every builder of `list` (in order); evaluators pass through. */
export async function resolveEvaluators<E extends Evaluator>(
  list: readonly EvaluatorOrBuilder<E>[] | undefined,
): Promise<E[]> {
  const out: E[] = [];
  for (const item of list ?? []) out.push(typeof item === 'function' ? await item() : item);
  return out;
}

/** The clients {@link runEvaluators} hands to evaluators. */
export interface EvaluatorClients {
  /** The training run (for training-client evaluators); without it they are skipped with a notice. */
  training?: EvalTrainingClient | undefined;
  /** A sampler over the current weights, created only when a sampling evaluator needs one. */
  sampler?: (() => Promise<SamplingClientLike>) | undefined;
}

/** Options of {@link runEvaluators}. */
export interface RunEvaluatorsOptions {
  step: number;
  logPath: string;
  /** The transcript path the loop assigns to an evaluator (by name); default none. */
  transcriptPath?: (evaluatorName: string) => string | undefined;
  /** Notices (a skipped evaluator). Default: none. */
  log?: (line: string) => void;
}

/**
 * Runs `evaluators` in order and merges their metrics. The sampler is created once, on the first sampling
 * evaluator; an evaluator whose client is unavailable is skipped with a notice rather than failing the run.
 */
export async function runEvaluators(
  evaluators: readonly Evaluator[],
  clients: EvaluatorClients,
  options: RunEvaluatorsOptions,
): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  let sampler: SamplingClientLike | undefined;
  for (const evaluator of evaluators) {
    const ctx: EvalContext = {
      step: options.step,
      logPath: options.logPath,
      transcriptPath: options.transcriptPath?.(evaluator.name),
    };
    if (evaluator.kind === 'training_client') {
      if (clients.training === undefined) {
        options.log?.(`evaluator ${evaluator.name} needs a training client; skipped`);
        continue;
      }
      Object.assign(out, await evaluator.evaluate(clients.training, ctx));
    } else {
      if (sampler === undefined) {
        if (clients.sampler === undefined) {
          options.log?.(`evaluator ${evaluator.name} needs a sampling client; skipped`);
          continue;
        }
        sampler = await clients.sampler();
      }
      Object.assign(out, await evaluator.evaluate(sampler, ctx));
    }
  }
  return out;
}

/**
 * A training loop's evaluation over its one training client: `(evaluators, step)` runs them with that client and, for
 * sampling evaluators, a sampler saved from its current weights (created only when one needs it).
 */
export function trainingClientEvaluation(
  client: EvalTrainingClient & { saveWeightsAndGetSamplingClient?: () => Promise<SamplingClientLike> },
  options: Omit<RunEvaluatorsOptions, 'step'>,
): (evaluators: readonly Evaluator[], step: number) => Promise<Record<string, number>> {
  const sampler = client.saveWeightsAndGetSamplingClient?.bind(client);
  return (evaluators, step) => runEvaluators(evaluators, { training: client, sampler }, { ...options, step });
}
