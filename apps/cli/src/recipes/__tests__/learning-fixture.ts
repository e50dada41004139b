/**
 * What every recipe learning test shares: one embedded service per test file, with the warm-start cache beside its
 * data (so a file's arms — learn, `zero`, `negate` — start from one warm start, trained once), and the reading of one
 * metric's column from a run's `metrics.jsonl`.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalTinker } from '@cookbook/local-tinker';
import { afterAll, beforeAll, expect } from 'vitest';
import { thirds } from '../rl-common.js';

/** A test file's embedded service: `logPath(name)` is a new run folder beside the service's data. */
export interface LearningService {
  baseURL(): string;
  logPath(name: string): string;
}

/**
 * Starts the embedded service before the file's tests (in a new temp folder named after `prefix`) and stops it after;
 * `COOKBOOK_LOCAL_TINKER_ROOT` points at its data for the file's duration, which is where the recipes cache warm starts.
 */
export function learningService(prefix: string): LearningService {
  const root = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const previousRoot = process.env.COOKBOOK_LOCAL_TINKER_ROOT;
  let server: { baseURL: string; close(): Promise<void> } | undefined;
  beforeAll(async () => {
    process.env.COOKBOOK_LOCAL_TINKER_ROOT = join(root, 'service');
    server = await startLocalTinker({ port: 0, root: join(root, 'service') });
  });
  afterAll(async () => {
    await server?.close();
    if (previousRoot === undefined) delete process.env.COOKBOOK_LOCAL_TINKER_ROOT;
    else process.env.COOKBOOK_LOCAL_TINKER_ROOT = previousRoot;
  });
  return {
    baseURL() {
      if (server === undefined) throw new Error('the learning service is used before beforeAll started it');
      return server.baseURL;
    },
    logPath: (name) => join(root, name),
  };
}

/** One run's values of `metric`, a row per step; a run that logged another number of steps fails the test here. */
export function metricColumn(logPath: string, metric: string, steps: number): number[] {
  const values = readFileSync(join(logPath, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as Record<string, number>)[metric]!);
  expect(values, `${metric} in ${logPath}/metrics.jsonl`).toHaveLength(steps);
  return values;
}

/** A run's curve with its first- and last-third means. */
export interface Curve {
  values: number[];
  first: number;
  last: number;
}

export function curve(values: number[]): Curve {
  return { values, ...thirds(values)! };
}

/** `learn [0.1,0.2,…]` a line per arm, for the failure message of a margin. */
export function curvesDetail(arms: Record<string, Curve>, digits = 3): string {
  return Object.entries(arms)
    .map(([name, c]) => `${name} ${JSON.stringify(c.values.map((x) => Number(x.toFixed(digits))))}`)
    .join('\n');
}
