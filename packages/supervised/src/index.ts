export { type AdamConfig, adamConfigShape, adamParams } from './adam.js';
export { type ChatDatasetCommonConfig, conversationDatumFn, rendererForConfig } from './chat-dataset.js';
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
export { conversationToDatum } from './conversation-to-datum.js';
export {
  type RowToDatums,
  StreamingSupervisedDataset,
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
  hubFileMatches,
  type ParquetFileOptions,
  readConversationRecords,
  readParquetRecords,
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
export type { SupervisedServiceClient, SupervisedTrainingClient } from './types.js';
export {
  defaultWarmStartDir,
  hashDatums,
  type WarmStartDemonstrations,
  type WarmStartOptions,
  type WarmStartResult,
  type WarmStartServiceClient,
  type WarmStartSft,
  warmStart,
  warmStartDatums,
} from './warm-start.js';
