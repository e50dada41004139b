export { type Comparison, chosenRejected, readComparisonFile } from './comparison.js';
export { type ComparisonDatasetBuilder, preferencePairs } from './dpo-data.js';
export type { DpoPairEvaluatorOptions } from './dpo-evaluator.js';
export type { DpoLossResult } from './dpo-loss.js';
export {
  HUB_COMPARISONS,
  type HubComparisonName,
  type LoadHubComparisonsOptions,
  loadHubComparisons,
} from './hub-comparisons.js';
export {
  PairwisePreferenceDataset,
  type PairwisePreferenceDatasetOptions,
  type PairwisePreferenceGroupOptions,
} from './pairwise-env.js';
export {
  ComparisonEvaluator,
  type ComparisonEvaluatorOptions,
  chatPreferenceModel,
  PreferenceAccuracyEvaluator,
  preferShorter,
  type RewardModelDatasetOptions,
  rewardModelDatasets,
} from './preference-model.js';
export { FORMAT_COMPARISONS_TEST, FORMAT_COMPARISONS_TRAIN } from './shipped-data.js';
export {
  type DpoTrainConfig,
  type DpoTrainConfigInput,
  DpoTrainConfigSchema,
  type DpoTrainDeps,
  type DpoTrainResult,
  trainDpo,
} from './train-dpo.js';
