export {
  type Comparison,
  chosenRejected,
  type LabeledComparison,
  labeledComparisonFromRecord,
  labeledComparisonToRecord,
  type PreferenceLabel,
  readComparisonFile,
  swapComparison,
  swapLabeled,
} from './comparison.js';
export {
  type ComparisonDatasetBuilder,
  type ComparisonDatasets,
  comparisonToDpoDatums,
  dpoDataset,
  dpoDatums,
  preferencePairs,
} from './dpo-data.js';
export {
  DpoPairEvaluator,
  type DpoPairEvaluatorOptions,
  PAIR_TIE_TOLERANCE,
  pairAccuracy,
  type ReferenceLogprobs,
  referenceSequenceLogprobs,
} from './dpo-evaluator.js';
export {
  type DpoLossResult,
  type DpoMetrics,
  dpoFromSequenceLogprobs,
  dpoLoss,
  negLogSigmoid,
  sigmoid,
  weightedSum,
} from './dpo-loss.js';
export {
  HUB_COMPARISONS,
  type HubComparisonName,
  type HubComparisonSpec,
  helpSteer3RowToComparison,
  hhRowToComparison,
  type LoadHubComparisonsOptions,
  loadHubComparisons,
  parseHhTranscript,
  ultraFeedbackRowToComparison,
} from './hub-comparisons.js';
export {
  PairwisePreferenceDataset,
  type PairwisePreferenceDatasetOptions,
  PairwisePreferenceGroupBuilder,
  type PairwisePreferenceGroupOptions,
  type TournamentPattern,
  tournamentPairs,
  tournamentRewards,
} from './pairwise-env.js';
export {
  COMPLETION_A_HEADER,
  COMPLETION_B_HEADER,
  ComparisonEvaluator,
  type ComparisonEvaluatorOptions,
  chatPreferenceModel,
  comparisonToChat,
  comparisonToRewardDatum,
  PREFERENCE_HEADER,
  PreferenceAccuracyEvaluator,
  type PreferenceModel,
  preferenceFromText,
  preferShorter,
  type RewardModelDatasetOptions,
  rewardModelDatasets,
  winRateMetrics,
} from './preference-model.js';
export { FORMAT_COMPARISONS_TEST, FORMAT_COMPARISONS_TRAIN } from './shipped-data.js';
export {
  type DpoServiceClient,
  type DpoTrainConfig,
  type DpoTrainConfigInput,
  DpoTrainConfigSchema,
  type DpoTrainDeps,
  type DpoTrainingClient,
  type DpoTrainResult,
  trainDpo,
} from './train-dpo.js';
