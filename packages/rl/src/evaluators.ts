/**
 * The RL test-set evaluator (upstream `RLTestSetEvaluator`): roll the test dataset out with the current weights and
 * report its trajectory metrics under `<name>/…`. It implements `@cookbook/eval`'s `SamplingClientEvaluator`, the
 * interface every loop accepts; it lives here because it needs RL's rollouts (eval sits below rl).
 */
import type { TokenCompleter } from '@cookbook/core';
import { initTrace, scopeHeader } from '@cookbook/logging';
import { TinkerTokenCompleter } from '@cookbook/renderers';
import type {
  EnvGroupBuilder,
  EvalContext,
  RLDataset,
  SamplingClientEvaluator,
  TrajectoryGroup,
} from '@cookbook/training';
import type { RLSamplingClient } from './clients.js';
import { computeTrajectoryMetrics } from './metrics.js';
import { doGroupRollout } from './rollouts.js';

/** How {@link RLTestSetEvaluator} turns a sampler into a policy. */
export interface RLTestSetEvaluatorOptions {
  /** The policy over a sampler (the training loop passes its own). Default: a token completer with the settings below. */
  policyFor?: (sampler: RLSamplingClient) => TokenCompleter;
  /** Most tokens sampled per turn by the default policy. Default 256. */
  maxTokens?: number;
  /** Temperature of the default policy. Default 1. */
  temperature?: number;
}

/**
 * Rolls out every group of a test dataset and reports `<name>/env/all/reward/total` and friends. With
 * `ctx.transcriptPath`, the first `numGroupsToLog` groups go to an HTML transcript there.
 */
export class RLTestSetEvaluator implements SamplingClientEvaluator {
  readonly kind = 'sampling_client' as const;
  private readonly policyFor: (sampler: RLSamplingClient) => TokenCompleter;

  constructor(
    readonly dataset: RLDataset,
    readonly name = 'test',
    readonly numGroupsToLog = 4,
    options: RLTestSetEvaluatorOptions = {},
  ) {
    this.policyFor =
      options.policyFor ??
      ((samplingClient) =>
        new TinkerTokenCompleter({
          samplingClient,
          maxTokens: options.maxTokens ?? 256,
          temperature: options.temperature ?? 1,
        }));
  }

  async evaluate(
    sampler: RLSamplingClient,
    ctx?: Pick<EvalContext, 'transcriptPath'>,
  ): Promise<Record<string, number>> {
    const policy = this.policyFor(sampler);
    const transcriptPath = ctx?.transcriptPath;
    const builders: EnvGroupBuilder[] = [];
    for (let b = 0; b < this.dataset.length; b++) builders.push(...this.dataset.getBatch(b));
    const nLog = transcriptPath === undefined ? 0 : Math.min(this.numGroupsToLog, builders.length);
    const logged =
      nLog > 0 && transcriptPath !== undefined
        ? initTrace(`Evaluation ${this.name}`, transcriptPath, () =>
            Promise.all(
              builders.slice(0, nLog).map((b, j) => scopeHeader(`Group ${j}`, () => doGroupRollout(b, policy))),
            ),
          )
        : Promise.resolve([] as TrajectoryGroup[]);
    const rest = Promise.all(builders.slice(nLog).map((b) => doGroupRollout(b, policy)));
    const groups = [...(await logged), ...(await rest)];
    const metrics = computeTrajectoryMetrics(
      groups,
      builders.map((b) => b.logtreeTag?.()),
    );
    const out: Record<string, number> = {};
    for (const [k, v] of Object.entries(metrics)) out[`${this.name}/${k}`] = v;
    return out;
  }
}
