/**
 * A dataset of single-turn problems served as groups (upstream's per-recipe `*Dataset` classes): batch i holds
 * `batchSize` problems, each rolled out `groupSize` times.
 */
import { ConfigError } from '@cookbook/core';
import type { Env, EnvGroupBuilder, RLDataset } from '@cookbook/training';
import { ProblemGroupBuilder } from './problem-env.js';

/** Options of {@link ProblemDataset}. */
export interface ProblemDatasetOptions<P> {
  problems: readonly P[];
  /** Problems (groups) per batch. */
  batchSize: number;
  /** Rollouts per problem. */
  groupSize: number;
  /** Makes a fresh env for a problem. */
  makeEnv: (problem: P) => Env;
  /** Tag for metrics and transcripts. */
  datasetName: string;
  /** Number of batches; default: as many full batches as the problems allow. Batches wrap around the problems. */
  numBatches?: number;
}

/** An {@link RLDataset} over a list of problems. */
export class ProblemDataset<P> implements RLDataset {
  readonly options: ProblemDatasetOptions<P>;
  readonly length: number;

  constructor(options: ProblemDatasetOptions<P>) {
    if (options.problems.length === 0) throw new ConfigError(`dataset ${options.datasetName} has no problems`);
    if (options.batchSize < 1 || options.groupSize < 1) {
      throw new ConfigError(`batch size and group size must be ≥ 1 (got ${options.batchSize}, ${options.groupSize})`);
    }
    this.options = options;
    this.length = options.numBatches ?? Math.max(1, Math.floor(options.problems.length / options.batchSize));
  }

  getBatch(index: number): EnvGroupBuilder[] {
    const { problems, batchSize, groupSize, makeEnv, datasetName } = this.options;
    const out: EnvGroupBuilder[] = [];
    for (let j = 0; j < batchSize; j++) {
      const problem = problems[(index * batchSize + j) % problems.length]!;
      out.push(new ProblemGroupBuilder(() => makeEnv(problem), groupSize, datasetName));
    }
    return out;
  }
}
