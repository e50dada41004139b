import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Datum, datumFromTokensWeights } from '@cookbook/core';
import { SupervisedDatasetFromRows, type SupervisedDatasets } from '../dataset.js';
import {
  type SupervisedTrainConfigInput,
  type SupervisedTrainDeps,
  type SupervisedTrainResult,
  trainSupervised,
} from '../train.js';

/** A run's config and deps in one object, as the tests write them. */
export type SftOptions = SupervisedTrainConfigInput & SupervisedTrainDeps;

/** `trainSupervised` with config and deps taken from one object (the schema ignores the deps' keys). */
export function runSft(options: SftOptions): Promise<SupervisedTrainResult> {
  return trainSupervised(options, options);
}

/** Synthetic datasets: row i is a short token sequence; no tokenizer needed. */
export function syntheticDatasets(numRows: number, batchSize: number, testRows = 0): SupervisedDatasets {
  const toDatum = (i: number): Datum => {
    const tokens = Array.from({ length: 6 + (i % 5) }, (_, j) => (i * 7 + j * 3) % 97);
    const weights = tokens.map((_, j) => (j >= 3 ? 1 : 0));
    return datumFromTokensWeights(tokens, weights, undefined, 'mean');
  };
  const rows = Array.from({ length: numRows }, (_, i) => i);
  const test = Array.from({ length: testRows }, (_, i) => 1000 + i);
  return {
    train: new SupervisedDatasetFromRows(rows, batchSize, toDatum),
    test: testRows > 0 ? new SupervisedDatasetFromRows(test, testRows, toDatum) : undefined,
  };
}

/** metrics.jsonl rows without wall-clock keys. */
export function readMetricRows(logPath: string): Record<string, unknown>[] {
  return readFileSync(join(logPath, 'metrics.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !k.startsWith('time/'))));
}

/** checkpoints.jsonl records reduced to what must match across runs (paths differ per run). */
export function readCheckpointSummary(logPath: string): unknown[] {
  return readFileSync(join(logPath, 'checkpoints.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .map(({ state_path, sampler_path, ...rest }) => ({
      ...rest,
      has_state: typeof state_path === 'string',
      has_sampler: typeof sampler_path === 'string',
    }));
}
