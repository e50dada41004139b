export { writeFileAtomicSync } from './atomic-write.js';
export {
  appendCheckpointRecord,
  CHECKPOINTS_FILE,
  type CheckpointClient,
  type CheckpointRecord,
  checkpointName,
  getLastCheckpoint,
  readCheckpoints,
  type SavedPaths,
  saveCheckpoint,
  submitCheckpointSave,
  truncateMetricsFrom,
} from './checkpoints.js';
export { type ConsoleLoggerOptions, formatMetricValue, type TextSink } from './console-logger.js';
export { ConversationFormatter, formatMessageHtml } from './conversation-formatter.js';
export { deferred } from './internal/deferred.js';
export { isHeadlineMetric } from './internal/report-data.js';
export {
  appendJsonLine,
  parseJsonl,
  type ReadJsonlOptions,
  readMetrics,
  repairTruncatedTail,
} from './jsonl.js';
export {
  type CheckLogDirOptions,
  checkLogDir,
  LOG_DIR_BEHAVIORS,
  type LogDirDecision,
} from './log-dir.js';
export {
  type HtmlFormatter,
  initTrace,
  logFormatter,
  logTable,
  logText,
  scopeHeader,
  Transcript,
} from './logtree.js';
export {
  METRICS_FILE,
  type MetricsLogger,
  type SetupLoggingOptions,
  setupLogging,
} from './metrics-logger.js';
export {
  type ProgressBar,
  type ProgressBarOptions,
  printAboveProgress,
  progressBar,
} from './progress-bar.js';
export {
  clipText,
  conversationRecord,
  type JsonableMessage,
  ROLLOUT_LOG_LIMITS,
  type RolloutLogOptions,
  tokenTexts,
  writeRolloutLog,
} from './rollout-log.js';
export {
  REPORT_FILE,
  type RunReportInput,
  type RunReportOptions,
  writeRunReport,
} from './run-report.js';
export { appendTimingSpans, truncateTimingSpansFrom } from './timing-spans.js';
export type { TraceEventWriterOptions } from './trace-events.js';
export type { WandbLoggerOptions } from './wandb-logger.js';
