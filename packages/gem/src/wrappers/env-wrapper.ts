/**
 * The wrapper base (GEM `EnvWrapper`): holds the inner env and forwards what it does not change. Unlike GEM it copies
 * no attributes at construction, so nothing goes stale; `unwrapped` reaches the innermost env.
 */
import type { Env, ResetResult, StepResult } from '../core/env.js';

/** An env around another env. */
export class EnvWrapper implements Env {
  readonly env: Env;
  envId?: string;

  constructor(env: Env) {
    this.env = env;
    if (env.envId !== undefined) this.envId = env.envId;
  }

  /** The innermost env. */
  get unwrapped(): Env {
    return this.env instanceof EnvWrapper ? this.env.unwrapped : this.env;
  }

  reset(seed?: number): Promise<ResetResult> {
    return this.env.reset(seed);
  }

  step(action: string): Promise<StepResult> {
    return this.env.step(action);
  }

  sampleRandomAction(): string {
    return this.env.sampleRandomAction();
  }
}
