/**
 * The GEM trainer end to end on the embedded service (local/qwen3-tiny, a random-weight stand-in): metrics and
 * checkpoints of the run contract, resume at the next step (that the resumed run repeats the uninterrupted one digit
 * for digit is train-repeat.test.ts), and sampling failures retried then counted (a fake service).
 */

import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TrainingError } from '@cookbook/core';
import { startLocalTinker } from '@cookbook/local-tinker';
import { ServiceClient, type TrainingClientLike } from '@cookbook/tinker-client';
import { getTokenizer } from '@cookbook/tokenizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PickEnv } from '../__fixtures__/pick-env.js';
import type { GemTrainConfigInput, GemTrainDeps } from './config.js';
import { trainGem } from './train.js';

const readJsonl = (p: string) =>
  readFileSync(p, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

const quiet = { console: false, progress: false, log: () => {} } satisfies GemTrainDeps;

describe('trainGem on the embedded service', () => {
  let dir: string;
  let server: Awaited<ReturnType<typeof startLocalTinker>>;
  let service: ServiceClient;
  const config = (logPath: string, extra: Partial<GemTrainConfigInput> = {}): GemTrainConfigInput => ({
    logPath,
    behaviorIfLogDirExists: 'resume',
    modelName: 'local/qwen3-tiny',
    loraRank: 4,
    batchSize: 4,
    numEnv: 2,
    maxTokens: 4,
    maxSteps: 2,
    learningRate: 1e-3,
    template: 'qwen3_game',
    ...extra,
  });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gem-train-'));
    server = await startLocalTinker({ port: 0, root: join(dir, 'service') });
    service = new ServiceClient({ baseURL: server.baseURL, warn: () => {} });
  });
  afterAll(async () => {
    await service.close();
    await server.close();
  });

  it('logs the GEM metrics per step, saves checkpoints, and resumes at the next step', async () => {
    const logPath = join(dir, 'run');
    const deps = { ...quiet, serviceClient: service, makeEnv: (i: number) => new PickEnv(i) };
    const first = await trainGem(config(logPath, { saveEvery: 1 }), deps);
    expect(first).toMatchObject({ status: 'completed', startStep: 0, stepsRun: 2, totalSteps: 2 });
    const rows = readJsonl(join(logPath, 'metrics.jsonl'));
    expect(rows.map((r) => r.step)).toEqual([0, 1]);
    for (const key of [
      'sampler/episode_return',
      'sampler/num_turns_per_episode',
      'sampler/action_num_tokens',
      'sampler/token_entropy',
      'sampler/failed_episodes',
      'train/kl_sample_train_v1',
      'train/kl_sample_train_v2',
      'time/sample',
      'time/train',
    ]) {
      expect(typeof rows[0]![key], key).toBe('number');
      expect(Number.isFinite(rows[0]![key] as number), key).toBe(true);
    }
    expect(rows[0]!['train/n_samples']).toBe(4);
    expect(rows[0]!['sampler/num_transitions'] as number).toBeGreaterThanOrEqual(4);
    // Sampler and learner share the weights at sampling time: the KL estimate is near 0.
    expect(Math.abs(rows[0]!['train/kl_sample_train_v1'] as number)).toBeLessThan(0.05);
    const cps = readJsonl(join(logPath, 'checkpoints.jsonl'));
    expect(cps.map((c) => [c.name, c.step])).toEqual([
      ['000001', 1],
      ['final', 2],
    ]);
    expect(cps[1]!.final).toBe(true);
    expect(typeof cps[1]!.state_path).toBe('string');
    expect(JSON.parse(readFileSync(join(logPath, 'config.json'), 'utf8'))).toMatchObject({
      env_id: 'game:GuessTheNumber-v0-easy',
      use_rebn: true,
      batch_size: 4,
    });

    // A longer run in the same folder continues from the final checkpoint's step.
    const second = await trainGem(config(logPath, { maxSteps: 3 }), deps);
    expect(second).toMatchObject({ status: 'completed', startStep: 2, stepsRun: 1 });
    expect(readJsonl(join(logPath, 'metrics.jsonl')).map((r) => r.step)).toEqual([0, 1, 2]);
    expect(existsSync(join(logPath, 'report.html'))).toBe(true);
  });

  it('plays a registered game through the wrappers (default env, concat)', async () => {
    const logPath = join(dir, 'game');
    const returns: number[] = [];
    const episodes: string[][] = [];
    const result = await trainGem(config(logPath, { maxSteps: 1 }), {
      ...quiet,
      serviceClient: service,
      onStep: (_, m) => returns.push(m['sampler/episode_return']!),
      onEpisode: (e) => episodes.push(e.observations),
    });
    expect(result.status).toBe('completed');
    expect(returns).toHaveLength(1);
    expect(episodes[0]![0]).toContain('You are playing Guess The Number.');
    expect(episodes[0]![0]!.endsWith('Enter your next guess.')).toBe(true);
  });

  it('refuses an unknown env id or wrapper before touching the log dir', async () => {
    const logPath = join(dir, 'bad');
    await expect(trainGem(config(logPath, { envId: 'game:GuessTheNumbr-v0-easy' }), quiet)).rejects.toThrow(
      /did you mean "game:GuessTheNumber-v0-easy"/,
    );
    await expect(trainGem(config(logPath, { envWrappers: 'concatt' }), quiet)).rejects.toThrow(/unknown env wrapper/);
    expect(existsSync(logPath)).toBe(false);
  });
});

describe('trainGem sampling failures', () => {
  const optimCalls: number[] = [];
  function fakeService(failures: { count: number; always?: boolean }, replies: number[][] = [[1, 2]]) {
    let calls = 0;
    const sampler = {
      sample: async () => {
        calls++;
        if (failures.always || calls <= failures.count) throw new Error(`sampler down (call ${calls})`);
        const tokens = replies[(calls - 1) % replies.length]!;
        return {
          sequences: [{ tokens, logprobs: tokens.map(() => -0.5), stopReason: 'stop' as const }],
          promptCacheHitTokens: 0,
        };
      },
      computeLogprobs: async () => [],
    };
    const training = {
      saveWeightsAndGetSamplingClient: async () => sampler,
      forwardBackward: async (data: unknown[]) => ({
        lossFnOutputType: 'x',
        lossFnOutputs: data.map(() => ({})),
        metrics: { 'loss:sum': 0 },
      }),
      optimStep: async () => {
        optimCalls.push(1);
        return { metrics: {} };
      },
      saveState: async (name: string) => ({ path: `tinker://fake/weights/${name}` }),
      saveWeightsForSampler: async (name?: string) => ({ path: `tinker://fake/sampler_weights/${name}` }),
    } as unknown as TrainingClientLike;
    return {
      createLoraTrainingClient: async () => training,
      createTrainingClientFromState: async () => training,
    };
  }

  it('retries a failed sample, then counts abandoned episodes in the metrics and the log', async () => {
    const logPath = join(mkdtempSync(join(tmpdir(), 'gem-fail-')), 'run');
    const lines: string[] = [];
    // One env, one retry: calls 1 and 2 fail (episode 1 abandoned), calls 3 and 4 each play a one-turn episode.
    const result = await trainGem(
      { logPath, modelName: 'local/qwen3-tiny', batchSize: 2, numEnv: 1, maxSteps: 1, samplingRetries: 1 },
      { ...quiet, log: (l) => lines.push(l), serviceClient: fakeService({ count: 2 }), makeEnv: (i) => new PickEnv(i) },
    );
    const row = readJsonl(join(logPath, 'metrics.jsonl'))[0]!;
    expect(row).toMatchObject({
      'sampler/sample_errors': 2,
      'sampler/failed_episodes': 1,
      'sampler/num_episodes': 2,
      'train/n_samples': 2,
    });
    expect(result.value?.failedEpisodes).toBe(1);
    expect(
      lines.some((l) => /step 0: 1 episode\(s\) abandoned after 1 retries \(sampler down \(call 2\)\)/.test(l)),
    ).toBe(true);

    // A retry that succeeds loses nothing.
    const again = join(mkdtempSync(join(tmpdir(), 'gem-fail-')), 'run');
    await trainGem(
      { logPath: again, modelName: 'local/qwen3-tiny', batchSize: 1, numEnv: 1, maxSteps: 1, samplingRetries: 1 },
      { ...quiet, serviceClient: fakeService({ count: 1 }), makeEnv: (i) => new PickEnv(i) },
    );
    expect(readJsonl(join(again, 'metrics.jsonl'))[0]).toMatchObject({
      'sampler/sample_errors': 1,
      'sampler/failed_episodes': 0,
      'sampler/num_episodes': 1,
    });
  });

  it('skips the update when every advantage is 0, and steps when returns differ', async () => {
    const tokenizer = getTokenizer('local/qwen3-tiny');
    const run = async (replies: number[][]) => {
      optimCalls.length = 0;
      const logPath = join(mkdtempSync(join(tmpdir(), 'gem-signal-')), 'run');
      await trainGem(
        { logPath, modelName: 'local/qwen3-tiny', batchSize: 2, numEnv: 1, maxSteps: 1 },
        { ...quiet, serviceClient: fakeService({ count: 0 }, replies), makeEnv: (i) => new PickEnv(i, 2) },
      );
      return { row: readJsonl(join(logPath, 'metrics.jsonl'))[0]!, optimSteps: optimCalls.length };
    };
    // Every reply unparsable: every episode returns −0.1, ReBN gives 0 everywhere → no update.
    const flat = await run([tokenizer.encode('no guess')]);
    expect(flat.row['train/skipped_no_signal']).toBe(1);
    expect(flat.optimSteps).toBe(0);
    // A valid wrong guess (0, the episode goes on) then a format error (−0.1): returns −0.09 and −0.1 → an update.
    const varied = await run([tokenizer.encode('\\boxed{9}'), tokenizer.encode('no guess')]);
    expect(varied.row['train/skipped_no_signal']).toBe(0);
    expect(varied.optimSteps).toBe(1);
  });

  it('plays qa:jsonl through search_tool with the collection of search_collection', async () => {
    const tokenizer = getTokenizer('local/qwen3-tiny');
    const dir = mkdtempSync(join(tmpdir(), 'gem-search-'));
    writeFileSync(join(dir, 'qa.jsonl'), '{"question": "What is the capital of Germany?", "answer": "Berlin"}\n');
    writeFileSync(
      join(dir, 'docs.jsonl'),
      '{"id": "1", "title": "Berlin", "text": "Berlin is the capital of Germany."}\n{"id": "2", "title": "Rome", "text": "Rome is in Italy."}\n',
    );
    const episodes: { observations: string[]; rewards: number[] }[] = [];
    await trainGem(
      {
        logPath: join(dir, 'run'),
        modelName: 'local/qwen3-tiny',
        batchSize: 2,
        numEnv: 1,
        maxSteps: 1,
        envId: 'qa:jsonl',
        envKwargs: { path: join(dir, 'qa.jsonl') },
        envWrappers: 'search_tool,concat',
        searchCollection: join(dir, 'docs.jsonl'),
      },
      {
        ...quiet,
        serviceClient: fakeService({ count: 0 }, [
          tokenizer.encode('<search> capital of Germany </search>'),
          tokenizer.encode('<answer>Berlin</answer>'),
        ]),
        onEpisode: (e) => episodes.push(e),
      },
    );
    expect(episodes[0]!.rewards).toEqual([0.3, 1]);
    expect(episodes[0]!.observations[1]).toContain('Doc 1(Title: Berlin) Berlin is the capital of Germany.\n');
    await expect(
      trainGem(
        {
          logPath: join(dir, 'no-collection'),
          modelName: 'local/qwen3-tiny',
          envId: 'qa:jsonl',
          envKwargs: { path: join(dir, 'qa.jsonl') },
          envWrappers: 'search_tool',
        },
        { ...quiet, serviceClient: fakeService({ count: 0 }) },
      ),
    ).rejects.toThrow(/search_collection=/);
  });

  it('stops with a TrainingError when sampling never works', async () => {
    const logPath = join(mkdtempSync(join(tmpdir(), 'gem-fail-')), 'run');
    const run = trainGem(
      { logPath, modelName: 'local/qwen3-tiny', batchSize: 2, numEnv: 1, maxSteps: 1, samplingRetries: 0 },
      { ...quiet, serviceClient: fakeService({ count: 0, always: true }), makeEnv: (i) => new PickEnv(i) },
    );
    await expect(run).rejects.toThrow(TrainingError);
    await expect(run).rejects.toThrow(/no episode could be played in 3 rounds.*sampler down/);
  });
});
