/**
 * Reward / preference models as chat models (upstream `preference/preference_datasets.py:
 * ChatDatasetBuilderFromComparisons`, `preference/preference_model.py: PreferenceModelFromChatRenderer`,
 * `ComparisonEvaluator`). A comparison is rendered as the prompt, then `==== Completion A ====` + A,
 * `==== Completion B ====` + B and `==== Preference ====` as system messages, and the label as the assistant reply;
 * only the first label token is trained. Trained with the ordinary SFT loop; scored by sampling one token at
 * temperature 0 (A → −1, B → +1, anything else → 0).
 */
import {
  DataError,
  type Datum,
  datumFromModelInputWeights,
  type Message,
  ModelInput,
  seededRandom,
} from '@cookbook/core';
import { type Renderer, TrainOnWhat } from '@cookbook/renderers';
import { SupervisedDatasetFromRows, type SupervisedDatasets } from '@cookbook/supervised';
import type { SamplingClientLike } from '@cookbook/tinker-client';
import type { SamplingClientEvaluator } from '@cookbook/training';
import { type Comparison, type LabeledComparison, swapLabeled } from './comparison.js';
import type { ComparisonDatasets } from './dpo-data.js';

/** The section headers of the comparison chat format. */
export const COMPLETION_A_HEADER = '==== Completion A ====';
export const COMPLETION_B_HEADER = '==== Completion B ====';
export const PREFERENCE_HEADER = '==== Preference ====';

/** The comparison as a chat the preference model answers (without the label). */
export function comparisonToChat(c: Comparison): Message[] {
  return [
    ...c.promptConversation,
    { role: 'system', content: COMPLETION_A_HEADER },
    ...c.completionA,
    { role: 'system', content: COMPLETION_B_HEADER },
    ...c.completionB,
    { role: 'system', content: PREFERENCE_HEADER },
  ];
}

/**
 * The training datum of a labeled comparison: the chat plus the label as the assistant reply, cut right after the
 * first trained token so only the first label token carries loss. Undefined when `maxLength` would cut the label.
 */
export function comparisonToRewardDatum(
  lc: LabeledComparison,
  renderer: Renderer,
  maxLength?: number | null,
): Datum | undefined {
  const messages: Message[] = [...comparisonToChat(lc.comparison), { role: 'assistant', content: lc.label }];
  const { modelInput, weights } = renderer.buildSupervisedExample(messages, TrainOnWhat.LAST_ASSISTANT_MESSAGE);
  const first = weights.findIndex((w) => w > 0);
  if (first < 0) throw new DataError('the rendered comparison has no trained label token', { field: 'label' });
  const keep = first + 1;
  if (maxLength !== null && maxLength !== undefined && keep > maxLength) return undefined;
  const tokens = modelInput.toInts().slice(0, keep);
  const w = weights.slice(0, keep).map((x, i) => (i === first ? x : 0));
  return datumFromModelInputWeights(ModelInput.fromInts(tokens), w, undefined, 'none');
}

/** Options of {@link rewardModelDatasets}. */
export interface RewardModelDatasetOptions {
  renderer: Renderer;
  /** Comparisons per batch (with `swap`, each gives 2 datums). */
  batchSize: number;
  /** Emit both orders of every comparison, side by side in one batch, instead of one seeded random order. Default false. */
  swap?: boolean;
  /** Seed of the 50 % A/B swap. Default 0. */
  seed?: number;
  maxLength?: number | null;
  /** Notices (comparisons left out because they are too long). */
  log?: (line: string) => void;
}

/**
 * SFT datasets that teach a model to answer A, B or Tie for a comparison. Without `swap`, each comparison is shown in
 * one order, swapped with probability ½ (seeded per comparison, so an epoch's order does not change it), so the label
 * is not always A when a data set lists the chosen reply first.
 */
export function rewardModelDatasets(data: ComparisonDatasets, options: RewardModelDatasetOptions): SupervisedDatasets {
  const random = seededRandom(options.seed ?? 0);
  let tooLong = 0;
  // One row per comparison: its datum in one seeded order, or (swap) both orders side by side in the same batch.
  const rowsOf = (comparisons: readonly LabeledComparison[]) =>
    comparisons.flatMap((lc) => {
      const orders = options.swap ? [lc, swapLabeled(lc)] : [random() < 0.5 ? swapLabeled(lc) : lc];
      const datums = orders.map((o) => comparisonToRewardDatum(o, options.renderer, options.maxLength));
      if (datums.some((d) => d === undefined)) {
        tooLong++;
        return [];
      }
      return [datums as Datum[]];
    });
  const train = rowsOf(data.train);
  const test = data.test === undefined ? [] : rowsOf(data.test);
  if (tooLong > 0) options.log?.(`${tooLong} comparisons left out: longer than max_length=${options.maxLength}`);
  if (train.length < options.batchSize) {
    throw new DataError(`${train.length} reward-model comparisons make no batch of ${options.batchSize}`, {
      field: 'batch_size',
    });
  }
  const asDataset = (rows: Datum[][], batchSize: number) => new SupervisedDatasetFromRows(rows, batchSize, (d) => d);
  return {
    train: asDataset(train, options.batchSize),
    test: test.length === 0 ? undefined : asDataset(test, test.length),
  };
}

/** Scores a comparison: −1 when A is preferred, +1 when B is, 0 for a tie or no answer. */
export type PreferenceModel = (comparison: Comparison) => Promise<number>;

/** The score of a preference model's reply text: A → −1, B → +1, anything else → 0. */
export function preferenceFromText(text: string): number {
  const t = text.trim();
  if (t.startsWith('A')) return -1;
  if (t.startsWith('B')) return 1;
  return 0;
}

/**
 * A preference model over a reward-model checkpoint's sampler (upstream `PreferenceModelFromChatRenderer`): one
 * token at temperature 0 after the comparison chat.
 */
export function chatPreferenceModel(sampler: Pick<SamplingClientLike, 'sample'>, renderer: Renderer): PreferenceModel {
  return async (comparison) => {
    const prompt = renderer.buildGenerationPrompt(comparisonToChat(comparison));
    const res = await sampler.sample({ prompt, numSamples: 1, samplingParams: { maxTokens: 1, temperature: 0 } });
    const tokens = res.sequences[0]?.tokens ?? [];
    return preferenceFromText(renderer.tokenizer.decode(tokens));
  };
}

/** The toy preference of the `shorter` recipe: the shorter completion (in characters) wins; equal lengths tie. */
export const preferShorter: PreferenceModel = async (c) => {
  const len = (ms: readonly Message[]) =>
    ms.reduce((a, m) => a + (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)).length, 0);
  const a = len(c.completionA);
  const b = len(c.completionB);
  return a < b ? -1 : a > b ? 1 : 0;
};

/** Options of {@link ComparisonEvaluator}. */
export interface ComparisonEvaluatorOptions {
  /** Prompts with a reference completion each (the reference plays A in the first order). */
  examples: readonly { promptConversation: Message[]; reference: Message[] }[];
  preferenceModel: PreferenceModel;
  renderer: Renderer;
  /** Tokens the policy samples per answer. */
  maxTokens: number;
  /** Metric prefix. Default `comparison`. */
  name?: string;
  /** Sampling temperature of the policy. Default 0 (its most likely answer). */
  temperature?: number;
}

/**
 * The policy's win rate against reference completions, judged by a preference model in both orders (upstream
 * `ComparisonEvaluator`): per prompt the policy scores ½·(p(ref, policy) − p(policy, ref)) in [−1, 1], mapped to a
 * win share in [0, 1]; reported as `<name>/win_rate` with its standard error `<name>/win_rate_stderr`.
 */
export class ComparisonEvaluator implements SamplingClientEvaluator {
  readonly kind = 'sampling_client' as const;
  readonly name: string;
  private readonly options: ComparisonEvaluatorOptions;

  constructor(options: ComparisonEvaluatorOptions) {
    if (options.examples.length === 0) throw new DataError('ComparisonEvaluator needs at least one example');
    this.options = options;
    this.name = options.name ?? 'comparison';
  }

  async evaluate(client: Pick<SamplingClientLike, 'sample'>): Promise<Record<string, number>> {
    const { renderer, preferenceModel, maxTokens } = this.options;
    const wins = await Promise.all(
      this.options.examples.map(async ({ promptConversation, reference }) => {
        const res = await client.sample({
          prompt: renderer.buildGenerationPrompt(promptConversation),
          numSamples: 1,
          samplingParams: {
            maxTokens,
            temperature: this.options.temperature ?? 0,
            stop: renderer.getStopSequences(),
          },
        });
        const policy = [renderer.parseResponse(res.sequences[0]?.tokens ?? []).message];
        const [second, first] = await Promise.all([
          preferenceModel({ promptConversation, completionA: reference, completionB: policy }),
          preferenceModel({ promptConversation, completionA: policy, completionB: reference }),
        ]);
        return (1 + (second - first) / 2) / 2;
      }),
    );
    return winRateMetrics(wins, this.name);
  }
}

/**
 * How often a chat preference model (the sampler under evaluation) picks the labeled winner of held-out comparisons,
 * each shown in both orders: `<name>/accuracy` (ties in the data left out; an answer other than A or B counts wrong).
 */
export class PreferenceAccuracyEvaluator implements SamplingClientEvaluator {
  readonly kind = 'sampling_client' as const;
  readonly name: string;
  private readonly comparisons: LabeledComparison[];
  private readonly renderer: Renderer;

  constructor(comparisons: readonly LabeledComparison[], renderer: Renderer, name = 'test/preference') {
    this.comparisons = comparisons.filter((c) => c.label !== 'Tie').flatMap((c) => [c, swapLabeled(c)]);
    if (this.comparisons.length === 0) throw new DataError('PreferenceAccuracyEvaluator needs labeled comparisons');
    this.renderer = renderer;
    this.name = name;
  }

  async evaluate(client: Pick<SamplingClientLike, 'sample'>): Promise<Record<string, number>> {
    const model = chatPreferenceModel(client, this.renderer);
    const right = await Promise.all(
      this.comparisons.map(async (lc) => ((await model(lc.comparison)) === (lc.label === 'A' ? -1 : 1) ? 1 : 0)),
    );
    return { [`${this.name}/accuracy`]: right.reduce<number>((a, b) => a + b, 0) / right.length };
  }
}

/** Mean and standard error of per-example win shares, as `<name>/win_rate` and `<name>/win_rate_stderr`. */
export function winRateMetrics(wins: readonly number[], name: string): Record<string, number> {
  const n = wins.length;
  const mean = wins.reduce((a, b) => a + b, 0) / n;
  const variance = n > 1 ? wins.reduce((a, w) => a + (w - mean) ** 2, 0) / (n - 1) : 0;
  return { [`${name}/win_rate`]: mean, [`${name}/win_rate_stderr`]: Math.sqrt(variance / n) };
}
