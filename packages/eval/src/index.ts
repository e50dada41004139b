export {
  type Benchmark,
  type BenchmarkExample,
  type FollowUpTurn,
  GradedEnv,
  type GradedSample,
  type GradeInput,
  type GradeResult,
  type Grader,
  type GradeTarget,
  graderOf,
  regradeConversation,
  replyText,
  targetOf,
} from './benchmark.js';
export { BenchmarkEvaluator, type BenchmarkEvaluatorOptions } from './benchmark-evaluator.js';
export {
  answerLetter,
  autoGraderName,
  boxedMath,
  contains,
  customGrader,
  exactMatch,
  extractChoiceLetter,
  GRADERS,
  graderNamed,
  instructions,
  instructionsAll,
  instructionsLoose,
  multipleChoice,
  normalizeText,
  regex,
} from './graders/graders.js';
export {
  checkInstructions,
  countSentences,
  countWords,
  followsInstruction,
  type InstructionSpec,
  looseVariants,
  SUPPORTED_INSTRUCTIONS,
} from './graders/instructions.js';
export { extractBoxed, extractGsm8kAnswer, gradeAnswer, normalizeAnswer } from './graders/math-grading.js';
export { isScreenedExpression, symbolicEqual } from './graders/math-symbolic.js';
export {
  CLASSIFICATION_QUESTION,
  classificationMessages,
  className,
  ImageClassificationEvaluator,
  type ImageClassificationEvaluatorOptions,
  type LabelledImage,
  parseClassPrediction,
} from './image-classification.js';
export {
  type ModelRequest,
  type ResolutionSource,
  type ResolvedModel,
  resolveModel,
  samplerPathFromRunFolder,
} from './model-resolution.js';
export {
  CEVAL_SUBJECTS,
  ceval,
  gpqa,
  keyedPermutation,
  MMLU_REDUX_SUBJECTS,
  mmluPro,
  mmluRedux,
  supergpqa,
} from './native/choice-benchmarks.js';
export { aime2025, aime2026, gsm8k, hmmtFeb2025, hmmtNov2025, math500 } from './native/math-benchmarks.js';
export {
  BOXED_SYSTEM_PROMPT,
  buildMessages,
  formatMcqChoices,
  makeExampleId,
  type NativeBenchmarkSpec,
  type NativeDefaults,
  type RowContext,
  RowError,
  UPSTREAM_DEFAULTS,
} from './native/native-benchmark.js';
export {
  type LoadNativeOptions,
  loadNativeBenchmark,
  MAX_NATIVE_ROWS,
  NATIVE_ALIASES,
  NATIVE_BENCHMARKS,
  nativeSamplePath,
  nativeSpec,
  readNativeSample,
  SAMPLE_SUFFIX,
} from './native/registry.js';
export {
  checkGsm8k,
  extractFirstBoxed,
  extractLastBoxedStrict,
  extractMcqAnswer,
  extractNumber,
  extractNumericAnswer,
  gradeAime,
  gradeHmmt,
  gradeMath500,
  hmmtEqual,
  normalizeHmmtLatex,
  pyFloat,
} from './native/upstream-graders.js';
export {
  type ByteCountingTokenizer,
  bitsPerByte,
  computeMeanNll,
  type DatumBatches,
  datumTargetTokens,
  datumWeights,
  NLLEvaluator,
  type NllTotals,
  nllTotals,
} from './nll.js';
export { meanPassAtK, passAtK } from './pass-at-k.js';
export {
  type BenchmarkDelta,
  buildCompareHtml,
  type Comparison,
  compareResults,
  comparisonText,
  type FlippedExample,
  writeComparison,
} from './report/compare.js';
export { type EvalFolder, readEvalFolder } from './report/eval-folder.js';
export { buildResultsHtml, RESULTS_HTML, type ResultsPageInput, writeResultsHtml } from './report/results-html.js';
export {
  type EpisodeOptions,
  type EpisodeOutcome,
  envFor,
  runEpisode,
  type SamplingSettings,
} from './runner/episode.js';
export {
  checkpointLabel,
  EVAL_STORE_INDEX,
  EVAL_STORE_LINK,
  type EvalStoreEntry,
  type EvalStoreRunMetadata,
  evalStoreRunId,
  recordInEvalStore,
} from './runner/eval-store.js';
export { type RegradeOutcome, regradeResults } from './runner/regrade.js';
export {
  type BenchmarkSummary,
  latestRecords,
  RESULTS_JSON,
  RESULTS_JSONL,
  readResults,
  readSummary,
  resultId,
  type SampleRecord,
  splitResultId,
  summarize,
  summarizeAll,
  summaryMetrics,
  summaryTableText,
} from './runner/results.js';
export {
  type BenchmarkRunConfig,
  type BenchmarkRunConfigInput,
  BenchmarkRunConfigSchema,
  type BenchmarkRunDeps,
  type BenchmarkRunValue,
  defaultMaxTokens,
  type EvalServiceClient,
  resolvePassK,
  runBenchmarks,
  SAMPLING_FILE,
} from './runner/run-benchmarks.js';
export { type SampleAllOptions, type SampleTask, sampleAll, sampleSeed } from './runner/sample-all.js';
export {
  toUpstreamResult,
  toUpstreamTrajectory,
  UPSTREAM_RESULT_JSON,
  UPSTREAM_SUMMARY_JSON,
  UPSTREAM_TRAJECTORIES_JSONL,
  type UpstreamResult,
  type UpstreamTrajectory,
  type UpstreamTurn,
  writeUpstreamFormat,
} from './runner/upstream-format.js';
export { type FetchHubRowsOptions, fetchHubRows, HubRowsError } from './tasks/hub-rows.js';
export {
  GSM8K_PROMPT_SUFFIX,
  HUB_BENCHMARKS,
  type HubBenchmarkSpec,
  type LoadHubOptions,
  loadHubBenchmark,
  MATH_PROMPT_SUFFIX,
} from './tasks/hub-tasks.js';
export {
  benchmarkFromExamples,
  benchmarkFromTaskFile,
  formatMultipleChoice,
  parseTaskRecord,
  readTaskFile,
  type TaskFileBenchmarkOptions,
  taskFileName,
} from './tasks/jsonl-tasks.js';
export {
  loadTTSProblems,
  MAX_TTS_HUB_ROWS,
  OFFLINE_TTS_PROBLEMS,
  type TTSDatasetName,
  type TTSProblem,
} from './true-thinking-score/tts-problems.js';
export { ttsColour, ttsHtml } from './true-thinking-score/tts-report.js';
export {
  greedyReasoning,
  runTrueThinkingScore,
  type TTSConfig,
  type TTSConfigInput,
  TTSConfigSchema,
  type TTSDeps,
  type TTSRunValue,
} from './true-thinking-score/tts-run.js';
export {
  DECORATIVE_TTS,
  EARLY_EXIT_CUE,
  EARLY_EXIT_SUFFIX,
  earlyExitConfidence,
  MIN_ANSWER_LOGPROB,
  type StepTTS,
  type TTSResult,
  type TTSSampler,
  ttsAggregate,
  ttsForCot,
  ttsForStep,
  ttsProblemSummary,
} from './true-thinking-score/tts-score.js';
export {
  hasNumbers,
  isSelfVerificationStep,
  MIN_STEP_CHARS,
  NUMBER_PATTERN,
  PERTURBATION_OFFSETS,
  perturbNumbers,
  SELF_VERIFICATION_PATTERN,
  STEP_SPLIT_PATTERN,
  segmentCotSteps,
} from './true-thinking-score/tts-steps.js';
