/**
 * The comparison data set written for this project (`data/make-comparisons.mjs`): questions that ask for the reply
 * format `Answer: <value>. Done.`; the preferred completion follows it, the other gives the same value in a format that
 * breaks it. 400 training and 100 held-out comparisons, the held-out questions unseen in training.
 */
import { fileURLToPath } from 'node:url';

/** Training comparisons of the shipped format-following data set (JSONL). */
export const FORMAT_COMPARISONS_TRAIN = fileURLToPath(
  new URL('../data/format-comparisons-train.jsonl', import.meta.url),
);
/** Held-out comparisons of the shipped format-following data set (JSONL). */
export const FORMAT_COMPARISONS_TEST = fileURLToPath(new URL('../data/format-comparisons-test.jsonl', import.meta.url));
