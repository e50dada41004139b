/**
 * A tiny RL task for proofs and benchmarks on the embedded service: after "Name an even digit:" the policy samples
 * one token; reward 1 for an even digit (`sign = -1` negates the reward, which flips every advantage).
 * `warmStartOnDigits` makes a random-init model answer with digits at all (a few cross-entropy steps on all ten
 * digits, uniformly), so RL starts near 50 % reward and has room to move either way.
 */
import { type Tokenizer } from '@cookbook/tokenizers';
import { datumFromTokensWeights, ModelInput } from '@cookbook/core';

import type { TrainingClient } from '@cookbook/tinker-client';
import type { Action, Env, EnvGroupBuilder, RLDataset, StepResult } from '@cookbook/training';

export interface DigitTask {
  prompt: number[];
  digits: number[];
}

export function digitTask(tokenizer: Tokenizer): DigitTask {
  return {
    prompt: tokenizer.encode('Name an even digit:'),
    digits: Array.from({ length: 10 }, (_, d) => tokenizer.encode(String(d))[0]!),
  };
}

class EvenDigitEnv implements Env {
  constructor(
    readonly task: DigitTask,
    readonly sign: number,
  ) {}

  async initialObservation() {
    return { observation: ModelInput.fromInts(this.task.prompt), stopCondition: [] as number[] };
  }

  async step(action: Action): Promise<StepResult> {
    const d = this.task.digits.indexOf(action[0] ?? -1);
    const even = d >= 0 && d % 2 === 0 ? 1 : 0;
    return {
      reward: this.sign * even,
      episodeDone: true,
      nextObservation: ModelInput.empty(),
      nextStopCondition: [],
      metrics: { even, digit: d >= 0 ? 1 : 0 },
    };
  }
}

export function evenDigitDataset(
  task: DigitTask,
  options: { numBatches: number; groupsPerBatch: number; groupSize: number; sign?: number },
): RLDataset {
  const builder: EnvGroupBuilder = {
    makeEnvs: async () =>
      Array.from({ length: options.groupSize }, () => new EvenDigitEnv(task, options.sign ?? 1)),
    logtreeTag: () => 'even_digit',
  };
  return {
    length: options.numBatches,
    getBatch: () => Array.from({ length: options.groupsPerBatch }, () => builder),
  };
}

/** Cross-entropy steps on prompt → each digit until the mean loss per digit is near ln 10 (uniform digits). */
export async function warmStartOnDigits(
  client: TrainingClient,
  task: DigitTask,
  options: { learningRate?: number; maxSteps?: number; targetLoss?: number } = {},
): Promise<number> {
  const data = task.digits.map((d) => datumFromTokensWeights([...task.prompt, d], [...task.prompt.map(() => 0), 1]));
  let loss = Number.POSITIVE_INFINITY;
  for (let i = 0; i < (options.maxSteps ?? 25); i++) {
    const fb = client.forwardBackward(data, 'cross_entropy');
    const opt = client.optimStep({ learningRate: options.learningRate ?? 2e-2 });
    loss = ((await fb).metrics['loss:sum'] ?? 0) / data.length;
    await opt;
    if (loss < (options.targetLoss ?? 2.5)) break;
  }
  return loss;
}
