export { type AdamConfig, adamConfigShape, adamParams } from './adam.js';
export { type ChatDatasetCommonConfig, conversationDatumFn } from './chat-dataset.js';
export { parseMessages, type RecordLocation } from './conversation.js';
export {
  type ConversationFileOptions,
  type ConversationRow,
  datasetsFromConversationRows,
  fromConversationFile,
  readConversationFile,
  type StreamingConversationFileOptions,
  streamConversationFile,
} from './conversation-file.js';
export { conversationToDatum } from './conversation-to-datum.js';
export {
  type StreamingSupervisedDatasetOptions,
  type SupervisedDataset,
  type SupervisedDatasetBuilder,
  SupervisedDatasetFromRows,
  type SupervisedDatasets,
} from './dataset.js';
export { SampleTranscriptEvaluator, type SampleTranscriptOptions } from './evaluators.js';
export {
  fromHubDataset,
  fromParquetFile,
  type HubDatasetOptions,
  type ParquetFileOptions,
} from './hub-dataset.js';
export {
  runSupervisedSteps,
  type SupervisedStepsDeps,
  type SupervisedTrainConfig,
  type SupervisedTrainConfigInput,
  SupervisedTrainConfigSchema,
  type SupervisedTrainDeps,
  type SupervisedTrainResult,
  trainSupervised,
} from './train.js';
export {
  type WarmStartOptions,
  type WarmStartResult,
  type WarmStartServiceClient,
  warmStart,
} from './warm-start.js';
