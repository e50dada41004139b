/**
 * Demonstrations from environments: expert conversations (reference answers, a scripted player) that a warm start
 * trains on before RL, so a model that cannot do a task yet starts where RL has a signal. Each group builder that
 * can, produces them (`EnvGroupBuilder.demonstrations`); this walks a dataset's batches to collect a number of them.
 */
import { ConfigError, type Message } from '@cookbook/core';
import type { RLDataset } from '@cookbook/training';

/**
 * The first `count` demonstrations of `dataset`, batch after batch (use a dataset built with another seed than the
 * training set's). Batches wrap around when the dataset has fewer demonstrations than asked for.
 * @throws ConfigError when the dataset's group builders produce no demonstrations.
 */
export async function collectDemonstrations(dataset: RLDataset, count: number): Promise<Message[][]> {
  if (!Number.isInteger(count) || count < 1) {
    throw new ConfigError(`the number of demonstrations must be a positive integer, got ${count}`);
  }
  const out: Message[][] = [];
  for (let i = 0; out.length < count; i++) {
    if (i >= dataset.length && out.length === 0) break;
    for (const builder of dataset.getBatch(i % Math.max(1, dataset.length))) {
      if (builder.demonstrations === undefined) continue;
      for (const conversation of await builder.demonstrations()) {
        if (out.length < count) out.push(conversation);
      }
    }
    if (i >= dataset.length * 64 + count) break; // builders that return nothing: do not loop forever
  }
  if (out.length === 0) {
    throw new ConfigError("this environment's groups produce no demonstrations, so it cannot be warm-started", {
      key: 'warm_start',
    });
  }
  return out;
}
