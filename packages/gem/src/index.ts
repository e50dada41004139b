/**
 * @cookbook/gem — GEM-style text environments for RL of language models.
 */
export { lastBoxed, lastMatch, pyList, pyRound } from './core/boxed.js';
export type { Env, EnvInfo, ResetResult, StepResult } from './core/env.js';
export { LanguageGameReward, TERMINAL_STATE } from './core/env.js';
export type { EnvFactory, EnvOptions } from './core/registry.js';
export { make, registerEnv, registeredEnvIds } from './core/registry.js';
export { Rng } from './core/rng.js';
