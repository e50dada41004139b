/**
 * Environments that speak messages (upstream `MessageEnv` / `EnvFromMessageEnv`). The protocol and the token-level
 * adapter are defined once, in `@cookbook/eval` (benchmarks and packages that build RL envs without depending on rl
 * use them too); the adapter's envs are rl `Env`s. Re-exported here for rl's callers.
 */
export {
  EnvFromMessageEnv,
  type EnvFromMessageEnvOptions,
  type MessageEnv,
  type MessageStepResult,
} from '@cookbook/eval';
