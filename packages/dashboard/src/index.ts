/** `@cookbook/dashboard`: a read-only local web app over run folders (this project's and upstream's). */

export {
  type BenchmarkResult,
  compareExamples,
  type EvalExample,
  readBenchmarks,
  readExamples,
} from './eval-folders.js';
export { isLoopbackHost } from './host-check.js';
export { type JsonlLine, JsonlTail, readRange, type TailRead } from './jsonl-tail.js';
export { type MetricRow, MetricsStore } from './metrics-store.js';
export { RolloutIndex, type RolloutQuery, type RolloutRow } from './rollout-index.js';
export { ACTIVE_SECONDS, describeRun, findRuns, headlineOf, type RunEntry, statusOf } from './run-folders.js';
export { isInside, realInside, resolveInside } from './safe-path.js';
export { conversationsOf, type Dashboard, type DashboardOptions, startDashboard } from './server.js';
