/**
 * The GEM env API: text in, text out, gym-like (GEM `gem/core.py`).
 *
 * Invariant: an env owns its randomness. `reset(seed)` re-seeds the env's own `Sfc32Rng` (`@cookbook/core`) (never a global one),
 * so the same seed reproduces the same episode whatever other envs in the process do; `reset()` without a seed
 * continues the env's current stream.
 */

/** Free-form per-step information. Game envs put the current state text in `info.suffix`. */
export type EnvInfo = Record<string, unknown>;

/** What `reset` returns. */
export interface ResetResult {
  observation: string;
  info: EnvInfo;
}

/** What `step` returns. `terminated` = the episode ended (win, loss, format error); `truncated` = a limit hit. */
export interface StepResult {
  observation: string;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  info: EnvInfo;
}

/**
 * A GEM environment. `step` and `reset` are async because some envs (the python-tool wrapper) run subprocesses;
 * pure games resolve at once.
 */
export interface Env {
  /** The registry id it was made from (`game:GuessTheNumber-v0-easy`), set by `make`. */
  envId?: string;
  /** Starts a new episode; `seed` re-seeds the env's own RNG. */
  reset(seed?: number): Promise<ResetResult>;
  /** Plays one action (the model's whole response text). */
  step(action: string): Promise<StepResult>;
  /** A valid-looking action (for games, a `\boxed{…}` move), drawn from the env's RNG. */
  sampleRandomAction(): string;
}

/** Single-turn envs answer with this observation after their one step (full-width bars, as GEM spells it). */
export const TERMINAL_STATE = '<｜TERMINAL_STATE｜>';

/** GEM's shared reward values for language games (`LanguageGameReward`). */
export const LanguageGameReward = {
  success: 1.0,
  internalStep: 0.0,
  fail: 0.0,
  invalidAction: 0.0,
  formatError: -0.1,
} as const;
