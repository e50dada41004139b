export { writeFileAtomicSync } from './atomic-write.js';
export {
  appendCheckpointRecord,
  CHECKPOINTS_FILE,
  type CheckpointClient,
  type CheckpointKind,
  type CheckpointRecord,
  checkpointName,
  getLastCheckpoint,
  readCheckpoints,
  type SavedPaths,
  saveCheckpoint,
  submitCheckpointSave,
  truncateMetricsFrom,
} from './checkpoints.js';
export {
  ConsoleLogger,
  type ConsoleLoggerOptions,
  formatMetricsTable,
  formatMetricValue,
  isHiddenMetricKey,
  type TextSink,
} from './console-logger.js';
export { ConversationFormatter, type FormattableMessage, formatMessageHtml } from './conversation-formatter.js';
export { deferred } from './internal/deferred.js';
export { isHeadlineMetric } from './internal/report-data.js';
export {
  appendJsonLine,
  type JsonlContents,
  type MetricsContents,
  type MetricsRow,
  parseJsonl,
  type ReadJsonlOptions,
  readJsonl,
  readMetrics,
  repairTruncatedTail,
  type SkippedLine,
} from './jsonl.js';
export {
  applyLogDirDecision,
  type CheckLogDirOptions,
  checkLogDir,
  LOG_DIR_BEHAVIORS,
  type LogDirBehavior,
  type LogDirDecision,
} from './log-dir.js';
export {
  currentTrace,
  type HtmlFormatter,
  initTrace,
  logDetails,
  logFormatter,
  logHtml,
  logTable,
  logText,
  scopeHeader,
  type TableData,
  Transcript,
  TranscriptSection,
  tableHtml,
} from './logtree.js';
export {
  CONFIG_FILE,
  JsonLogger,
  METRICS_FILE,
  type MetricsLogger,
  type MetricValue,
  MultiplexLogger,
  type SetupLoggingOptions,
  setupLogging,
} from './metrics-logger.js';
export { type ProgressBar, type ProgressBarOptions, printAboveProgress, progressBar } from './progress-bar.js';
export {
  clipText,
  ROLLOUT_LOG_LIMITS,
  type RolloutLogOptions,
  sampleIndices,
  tokenTexts,
  writeRolloutLog,
} from './rollout-log.js';
export {
  buildRunReport,
  findTranscripts,
  REPORT_FILE,
  type ReportTranscript,
  type RunReportInput,
  type RunReportOptions,
  writeRunReport,
} from './run-report.js';
export {
  convertTraceEvents,
  type TraceEvent,
  TraceEventWriter,
  type TraceEventWriterOptions,
} from './trace-events.js';
export { WandbLogger, type WandbLoggerOptions } from './wandb-logger.js';
