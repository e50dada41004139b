export { type BubblewrapOptions, BubblewrapSandbox, isolatedPythonAvailable, probeBubblewrap } from './bubblewrap.js';
export { createSandboxPool, SANDBOX_BACKENDS, type SandboxFactoryOptions } from './create-sandbox.js';
export {
  type CodeTests,
  extractCode,
  type Grade,
  type GradeOptions,
  gradeCode,
  gradeWithPool,
  MAX_TESTS_PER_PROBLEM,
  parseCodeTests,
} from './grading.js';
export { type PoolCallOptions, SandboxPool, type SandboxPoolOptions } from './pool.js';
export {
  type RunCommandOptions,
  type Sandbox,
  type SandboxResult,
  SandboxUnavailableError,
} from './sandbox.js';
export type { SandboxFusionClientOptions } from './sandbox-fusion.js';
export type { UnsafeLocalOptions } from './unsafe-local.js';
