/**
 * Upstream's example rubric data (`recipes/rubric/generate_data.py`): sums of two integers in [0, 1000] after a
 * one-shot example ("What is 4 + 5?" / "9"), each with one rubric item asking whether the reply gets the sum. The
 * operands come from Python's Mersenne Twister seeded as upstream seeds it, so `seed` 42 gives upstream's files line
 * for line (train: the first `numTrain` datapoints, test: the next `numTest`).
 */
import { ConfigError, PythonRandom } from '@cookbook/core';
import { makeRubric, type RubricDatapoint } from './rubric-data.js';

/** Upstream's seed and sizes. */
export const RUBRIC_GENERATOR_DEFAULTS = { numTrain: 10_000, numTest: 1_000, seed: 42 } as const;
/** Largest generated data set (datapoints): bound before allocating. */
export const MAX_GENERATED_RUBRIC_DATAPOINTS = 1_000_000;

function generateOne(rng: PythonRandom): RubricDatapoint {
  const x = rng.randint(0, 1000);
  const y = rng.randint(0, 1000);
  return {
    convo: [
      { role: 'user', content: 'What is 4 + 5?' },
      { role: 'assistant', content: '9' },
      { role: 'user', content: `What is ${x} + ${y}?` },
    ],
    rubricItems: [makeRubric(`Does the chatbot correctly get the answer ${x + y}?`)],
  };
}

/** The addition data set: `numTrain` then `numTest` datapoints from one seeded stream. */
export function generateRubricDataset(
  options: { numTrain: number; numTest: number; seed: number } = RUBRIC_GENERATOR_DEFAULTS,
): { train: RubricDatapoint[]; test: RubricDatapoint[] } {
  const { numTrain, numTest, seed } = options;
  for (const [k, v] of [
    ['num_train', numTrain],
    ['num_test', numTest],
  ] as const) {
    if (!Number.isInteger(v) || v < 0) throw new ConfigError(`${k} must be a non-negative integer, got ${v}`);
  }
  if (numTrain + numTest > MAX_GENERATED_RUBRIC_DATAPOINTS) {
    throw new ConfigError(
      `num_train + num_test = ${numTrain + numTest} exceeds the limit of ${MAX_GENERATED_RUBRIC_DATAPOINTS}`,
    );
  }
  const rng = new PythonRandom(seed);
  const all = Array.from({ length: numTrain + numTest }, () => generateOne(rng));
  return { train: all.slice(0, numTrain), test: all.slice(numTrain) };
}
