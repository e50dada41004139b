/**
 * DPO data (upstream `preference/dpo_datasets.py: DPODatasetBuilderFromComparisons`): each labeled comparison becomes
 * two datums, the prompt plus the chosen completion then the prompt plus the rejected one, with the loss on the last
 * assistant message and 0/1 weights (`reduction="none"`), interleaved chosen/rejected in every batch. Ties carry
 * no preference and are left out.
 */
import { DataError, type Datum } from '@cookbook/core';
import { type Renderer, TrainOnWhat } from '@cookbook/renderers';
import { conversationToDatum, type SupervisedDataset, SupervisedDatasetFromRows } from '@cookbook/supervised';
import { chosenRejected, type LabeledComparison } from './comparison.js';

/** The chosen and the rejected datum of a comparison (undefined for a tie). */
export function comparisonToDpoDatums(
  lc: LabeledComparison,
  renderer: Renderer,
  maxLength?: number | null,
): [Datum, Datum] | undefined {
  const pair = chosenRejected(lc);
  if (pair === undefined) return undefined;
  const prompt = lc.comparison.promptConversation;
  const toDatum = (completion: typeof pair.chosen) =>
    conversationToDatum([...prompt, ...completion], renderer, maxLength, TrainOnWhat.LAST_ASSISTANT_MESSAGE, 'none');
  return [toDatum(pair.chosen), toDatum(pair.rejected)];
}

/** Train and optional test comparisons of a run. */
export interface ComparisonDatasets {
  train: readonly LabeledComparison[];
  test?: readonly LabeledComparison[] | undefined;
}

/** Builds a run's comparisons (may read files or download); run before anything is written. */
export type ComparisonDatasetBuilder = () => ComparisonDatasets | Promise<ComparisonDatasets>;

/** The comparisons that carry a preference (ties removed). */
export function preferencePairs(comparisons: readonly LabeledComparison[]): LabeledComparison[] {
  return comparisons.filter((c) => c.label !== 'Tie');
}

/**
 * Batches of `pairsPerBatch` comparisons as interleaved chosen/rejected datums (2 × pairsPerBatch per batch),
 * reshuffled per epoch by seed (the SFT dataset's seeded order, so resume is exact).
 */
export function dpoDataset(
  comparisons: readonly LabeledComparison[],
  pairsPerBatch: number,
  renderer: Renderer,
  maxLength?: number | null,
): SupervisedDataset {
  const pairs = preferencePairs(comparisons);
  if (pairs.length < pairsPerBatch) {
    throw new DataError(
      `${pairs.length} comparisons with a preference (ties left out) make no batch of ${pairsPerBatch}; lower batch_size or add data`,
      { field: 'batch_size' },
    );
  }
  return new SupervisedDatasetFromRows(pairs, pairsPerBatch, (lc) => comparisonToDpoDatums(lc, renderer, maxLength)!);
}

/** All chosen/rejected datums of `comparisons` (ties left out), interleaved, for evaluators. */
export function dpoDatums(
  comparisons: readonly LabeledComparison[],
  renderer: Renderer,
  maxLength?: number | null,
): Datum[] {
  return preferencePairs(comparisons).flatMap((lc) => comparisonToDpoDatums(lc, renderer, maxLength)!);
}
