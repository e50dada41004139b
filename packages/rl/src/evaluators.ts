/**
 * Evaluators run every `eval_every` steps (upstream `RLTestSetEvaluator`): roll the test dataset out with the
 * current policy and report its trajectory metrics under `test/…`.
 */
import type { TokenCompleter } from '@cookbook/core';
import { initTrace, scopeHeader } from '@cookbook/logging';
import { computeTrajectoryMetrics } from './metrics.js';
import { doGroupRollout } from './rollouts.js';
import type { EnvGroupBuilder, RLDataset, TrajectoryGroup } from './types.js';

/** Something that scores a policy. */
export interface RLEvaluator {
  /** Used in metric names and transcript file names. */
  readonly name: string;
  /** Metrics of `policy`; `transcriptPath` (when given) is where to write an HTML transcript of a few rollouts. */
  evaluate(policy: TokenCompleter, transcriptPath?: string): Promise<Record<string, number>>;
}

/** Rolls out every group of a test dataset and reports `<name>/env/all/reward/total` and friends. */
export class RLTestSetEvaluator implements RLEvaluator {
  constructor(
    readonly dataset: RLDataset,
    readonly name = 'test',
    readonly numGroupsToLog = 4,
  ) {}

  async evaluate(policy: TokenCompleter, transcriptPath?: string): Promise<Record<string, number>> {
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
