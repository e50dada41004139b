export { type ChatDatasetCommonConfig, conversationDatumFn, rendererForConfig } from './chat-dataset.js';
export {
  appendCheckpointRecord,
  CHECKPOINTS_FILE,
  type CheckpointClient,
  type CheckpointKind,
  type CheckpointRecord,
  getLastCheckpoint,
  readCheckpoints,
  type SavedPaths,
  saveCheckpoint,
  submitCheckpointSave,
} from './checkpoints.js';
export {
  conversationFromRecord,
  KNOWN_ROLES,
  MessageSchema,
  parseConversationLine,
  parseMessages,
  type RecordLocation,
} from './conversation.js';
export {
  type ConversationFileOptions,
  type ConversationRow,
  datasetsFromConversationRows,
  fromConversationFile,
  iterateConversationFile,
  readConversationFile,
  rowToDatum,
  type StreamingConversationFileOptions,
  streamConversationFile,
} from './conversation-file.js';
export { computeMeanNll, conversationToDatum, datumWeights } from './conversation-to-datum.js';
export {
  type RowToDatums,
  StreamingSupervisedDataset,
  type StreamingSupervisedDatasetOptions,
  type SupervisedDataset,
  type SupervisedDatasetBuilder,
  SupervisedDatasetFromRows,
  type SupervisedDatasets,
} from './dataset.js';
export { NLLEvaluator, SampleTranscriptEvaluator, type SampleTranscriptOptions } from './evaluators.js';
export {
  fromHubDataset,
  fromParquetFile,
  type HubDatasetOptions,
  hubFileMatches,
  type ParquetFileOptions,
  readConversationRecords,
  readParquetRecords,
} from './hub-dataset.js';
export { seededPermutation, seededRandom } from './internal/prng.js';
export {
  applyLogDirDecision,
  type CheckLogDirOptions,
  checkLogDir,
  type LogDirBehavior,
  type LogDirDecision,
} from './log-dir.js';
export {
  type SupervisedTrainConfig,
  type SupervisedTrainResult,
  trainSupervised,
  truncateMetricsFrom,
} from './train.js';
export type {
  EvalContext,
  SamplingClientEvaluator,
  ServiceClientLike,
  SupervisedEvaluator,
  TrainingClientEvaluator,
  TrainingClientLike,
} from './types.js';
