export {
  type BubblewrapOptions,
  BubblewrapSandbox,
  DEFAULT_SANDBOX_LIMITS,
  probeBubblewrap,
  SANDBOX_WORKDIR,
  type SandboxLimits,
} from './bubblewrap.js';
export {
  createSandboxPool,
  SANDBOX_BACKENDS,
  type SandboxBackendName,
  type SandboxFactoryOptions,
  sandboxFactory,
} from './create-sandbox.js';
export {
  type CodeTests,
  DEFAULT_TEST_TIMEOUT_SECONDS,
  extractCode,
  type Grade,
  type GradeOptions,
  gradeCode,
  gradeWithPool,
  MAX_TESTS_PER_PROBLEM,
  parseCodeTests,
  totalTimeoutSeconds,
} from './grading.js';
export { MAX_SANDBOX_FILES } from './internal/file-store.js';
export { HARNESS_PY } from './internal/harness.js';
export { MAX_POOL_SIZE, type PoolCallOptions, SandboxPool, type SandboxPoolOptions } from './pool.js';
export {
  DEFAULT_COMMAND_TIMEOUT_MS,
  DEFAULT_MAX_OUTPUT_BYTES,
  failedResult,
  type RunCommandOptions,
  type Sandbox,
  SandboxError,
  type SandboxMetrics,
  type SandboxResult,
  SandboxUnavailableError,
} from './sandbox.js';
export {
  DEFAULT_SANDBOX_FUSION_CONCURRENCY,
  DEFAULT_SANDBOX_URL,
  SandboxFusionClient,
  type SandboxFusionClientOptions,
  type SandboxFusionResponse,
  SandboxFusionSandbox,
} from './sandbox-fusion.js';
export { type UnsafeLocalOptions, UnsafeLocalSandbox } from './unsafe-local.js';
