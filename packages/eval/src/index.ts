export type {
  Benchmark,
  BenchmarkSamplingDefaults,
  GradeInput,
  GradeResult,
  Grader,
} from './benchmark.js';
export { BenchmarkEvaluator, type BenchmarkEvaluatorOptions } from './benchmark-evaluator.js';
export {
  contains,
  customGrader,
  GRADERS,
  instructions,
  regex,
} from './graders/graders.js';
export { extractBoxed, extractGsm8kAnswer, gradeAnswer } from './graders/math-grading.js';
export {
  classificationMessages,
  ImageClassificationEvaluator,
  type ImageClassificationEvaluatorOptions,
  type LabelledImage,
} from './image-classification.js';
export { resolveModel, samplerPathFromRunFolder } from './model-resolution.js';
export { ceval, gpqa, supergpqa } from './native/choice-benchmarks.js';
export { livecodebench, mbpp } from './native/code-benchmarks.js';
export { gsm8k, math500 } from './native/math-benchmarks.js';
export {
  type LoadNativeOptions,
  loadNativeBenchmark,
  NATIVE_BENCHMARKS,
  nativeSpec,
} from './native/registry.js';
export {
  type Comparison,
  compareResults,
  comparisonText,
  writeComparison,
} from './report/compare.js';
export { readEvalFolder } from './report/eval-folder.js';
export { RESULTS_HTML, type ResultsPageInput } from './report/results-html.js';
export type { EpisodeOptions } from './runner/episode.js';
export { regradeResults } from './runner/regrade.js';
export { summaryTableText } from './runner/results.js';
export {
  type BenchmarkRunConfig,
  type BenchmarkRunConfigInput,
  BenchmarkRunConfigSchema,
  type BenchmarkRunDeps,
  runBenchmarks,
} from './runner/run-benchmarks.js';
export type { SampleAllOptions } from './runner/sample-all.js';
export type { UpstreamResult } from './runner/upstream-format.js';
export { type FetchHubRowsOptions, fetchHubRows, HubRowsError } from './tasks/hub-rows.js';
export { HUB_BENCHMARKS, type LoadHubOptions, loadHubBenchmark } from './tasks/hub-tasks.js';
export {
  benchmarkFromExamples,
  benchmarkFromTaskFile,
  readTaskFile,
  type TaskFileBenchmarkOptions,
} from './tasks/jsonl-tasks.js';
export {
  runTrueThinkingScore,
  type TTSConfig,
  type TTSConfigInput,
  TTSConfigSchema,
  type TTSDeps,
} from './true-thinking-score/tts-run.js';
export { type TTSResult, ttsForStep } from './true-thinking-score/tts-score.js';
export { perturbNumbers, segmentCotSteps } from './true-thinking-score/tts-steps.js';
