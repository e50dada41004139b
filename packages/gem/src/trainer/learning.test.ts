/**
 * The GEM trainer learns, and the rise is RL's: on the embedded service (the untrained `local/qwen3-tiny` stand-in), a
 * short run on a two-turn task raises `sampler/episode_return` from the first third of the run to the last, and ends
 * above two controls from the same seed — advantages negated (`advantage_transform=negate`) and advantages zeroed
 * (`zero`: no update, so whatever the zero run does is drift of the sampling alone).
 *
 * The task: each turn the reply earns the share of its characters that are spaces or letters (capped so that a whole
 * reply of them scores 1), i.e. words rather than symbols. The stand-in answers at random at first (≈ 0.5), so there is
 * room both ways, and the per-turn rewards exercise the trainer's discounting and ReBN over turns.
 *
 * Margins from measured spread (GEM_LEARNING_SEEDS=0,1,2,3,4 runs the five seeds; figures in the gem README): the
 * margins are set below the smallest gap seen over those seeds and well above the run-to-run spread of the zero control.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalTinker } from '@cookbook/local-tinker';
import { ServiceClient } from '@cookbook/tinker-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Env, ResetResult, StepResult } from '../core/env.js';
import type { GemTrainConfigInput, GemTrainDeps } from './config.js';
import { trainGem } from './train.js';

/** Two turns; each turn earns the share of word characters (letters, spaces) in the reply, special tokens removed. */
class WordsEnv implements Env {
  turn = 0;
  async reset(): Promise<ResetResult> {
    this.turn = 0;
    return { observation: 'Say something.', info: {} };
  }
  async step(action: string): Promise<StepResult> {
    this.turn++;
    const text = action.replace(/<\|[^|]*\|>/g, '');
    const words = [...text].filter((c) => /[\p{L} ]/u.test(c)).length;
    const reward = text.length === 0 ? 0 : words / text.length;
    const over = this.turn >= 2;
    return { observation: 'Say more.', reward, terminated: over, truncated: false, info: {} };
  }
  sampleRandomAction(): string {
    return 'hello';
  }
}

const STEPS = 6;
const thirds = (xs: readonly number[]) => {
  const t = Math.floor(xs.length / 3);
  const mean = (ys: readonly number[]) => ys.reduce((a, b) => a + b, 0) / ys.length;
  return { first: mean(xs.slice(0, t)), last: mean(xs.slice(-t)) };
};

describe('the GEM trainer learns (embedded service)', () => {
  let dir: string;
  let server: Awaited<ReturnType<typeof startLocalTinker>>;
  let service: ServiceClient;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gem-learning-'));
    server = await startLocalTinker({ port: 0, root: join(dir, 'service') });
    service = new ServiceClient({ baseURL: server.baseURL, warn: () => {} });
  });
  afterAll(async () => {
    await service.close();
    await server.close();
  });

  const run = async (name: string, seed: number, advantageTransform: 'none' | 'negate' | 'zero') => {
    const logPath = join(dir, `${name}-${seed}`);
    const config: GemTrainConfigInput = {
      logPath,
      modelName: 'local/qwen3-tiny',
      loraRank: 8,
      batchSize: 16,
      numEnv: 8,
      maxTokens: 6,
      maxSteps: STEPS,
      learningRate: 1e-2,
      template: 'qwen3_game',
      seed,
      advantageTransform,
    };
    const deps: GemTrainDeps = {
      console: false,
      progress: false,
      log: () => {},
      serviceClient: service,
      makeEnv: () => new WordsEnv(),
    };
    await trainGem(config, deps);
    return readFileSync(join(logPath, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as Record<string, number>)['sampler/episode_return']!);
  };

  const seeds = (process.env.GEM_LEARNING_SEEDS ?? '0').split(',').map(Number);
  for (const seed of seeds) {
    it(`seed ${seed}: RL rises and ends above the negated and the zeroed control`, async () => {
      const learn = await run('learn', seed, 'none');
      const negate = await run('negate', seed, 'negate');
      const zero = await run('zero', seed, 'zero');
      const [l, n, z] = [thirds(learn), thirds(negate), thirds(zero)];
      const report = JSON.stringify({ seed, learn: l, negate: n, zero: z });
      if (process.env.GEM_LEARNING_SEEDS !== undefined) console.log(report);
      expect(learn, report).toHaveLength(STEPS);
      expect(l.last - l.first, report).toBeGreaterThan(0.1);
      expect(l.last, report).toBeGreaterThan(z.last + 0.1);
      expect(l.last, report).toBeGreaterThan(n.last + 0.2);
    }, 300_000);
  }
});
