/**
 * Warm starts: a short SFT run on demonstrations, trained once and cached, that gives a later run (RL, preference
 * learning, distillation) a starting point that can already do its task a little. Real post-training starts from a
 * model that follows instructions; the built-in offline models (`local/…`, tiny stand-ins) cannot, so their runs warm
 * start on demonstrations an environment produces (reference answers, a scripted player) and then improve by the
 * method under study.
 *
 * Invariants: the cache record (`<cacheDir>/<name>-<key>.json`) is written atomically after the state is saved, so
 * it always names a finished checkpoint; the key covers everything that changes the weights (model, LoRA rank, the
 * datums' tokens and weights, the SFT settings, the seed); a record is trusted only after the service confirms the
 * checkpoint still exists (`weights_info`), so a pruned or foreign checkpoint is trained again, never loaded blind.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ConfigError, DataError, type Datum, type Message, seededPermutation, tensorToNumbers } from '@cookbook/core';
import { type ProgressBar, progressBar, type TextSink, writeFileAtomicSync } from '@cookbook/logging';
import { type Renderer, TrainOnWhat } from '@cookbook/renderers';
import {
  BadRequestError,
  NotFoundError,
  type ServiceClientLike,
  type TrainingClientLike,
} from '@cookbook/tinker-client';
import { type EpochPlan, LOOP_ADAM, type RunContext, runEpochs } from '@cookbook/training';
import { conversationToDatum } from './conversation-to-datum.js';

/** What a warm start trains on: conversations with the renderer that turns them into tokens, or ready datums. */
export type WarmStartDemonstrations =
  | {
      conversations: readonly (readonly Message[])[];
      renderer: Renderer;
      /**
       * Which messages carry loss. Default: `customized` (each message's `trainable` flag) when the messages carry
       * the flag, as environments' demonstrations do, else every assistant message.
       */
      trainOnWhat?: TrainOnWhat;
    }
  | { datums: readonly Datum[] };

/** The SFT settings of a warm start. */
export interface WarmStartSft {
  /** Optimizer steps. */
  steps: number;
  /** Datums per step (the demonstrations are cycled in a seeded order). */
  batchSize: number;
  /** Adam learning rate at the first step; it decays linearly to 0 at the last. */
  learningRate: number;
}

/** The calls a warm start makes on the service: create the run, and check a cached checkpoint still exists. */
export interface WarmStartServiceClient {
  createLoraTrainingClient(
    ...args: Parameters<ServiceClientLike['createLoraTrainingClient']>
  ): Promise<
    Pick<TrainingClientLike, 'forwardBackward' | 'optimStep' | 'saveState' | 'saveWeightsForSampler' | 'forward'>
  >;
  createRestClient(): Promise<{
    getWeightsInfo(tinkerPath: string): Promise<{ base_model: string; lora_rank?: number }>;
  }>;
}

/** Options of {@link warmStart}. */
export interface WarmStartOptions {
  service: WarmStartServiceClient;
  /** Base model of the LoRA run (the later run loads the result as its `loadCheckpointPath`). */
  baseModel: string;
  loraRank: number;
  demonstrations: WarmStartDemonstrations;
  sft: WarmStartSft;
  /** Seeds the order of the demonstrations; part of the cache key. */
  seed: number;
  /** Names the cache entry (the recipe or task, e.g. `arithmetic`); part of the key. Letters, digits, `._-`. */
  name: string;
  /** Where cache records go. Default {@link defaultWarmStartDir}. */
  cacheDir?: string;
  /** Ignore (and replace) a cached record. Default false. */
  refresh?: boolean;
  /** Notices (one line each: cache hit, start, result). Default: none. */
  log?: (line: string) => void;
  /**
   * Progress of the SFT steps (`warm start |███ | step 3/12 … loss 1.234` with elapsed and ETA): `true` = stderr
   * (default), `false` = none, or a sink. One updating line on a terminal, plain lines elsewhere.
   */
  progress?: boolean | TextSink;
}

/** What {@link warmStart} returns. */
export interface WarmStartResult {
  /** The saved state (`tinker://…/weights/…`): pass it as `loadCheckpointPath` (weights only, fresh optimizer). */
  statePath: string;
  /** True when the state came from the cache. */
  cached: boolean;
  /** Wall time of this call, in seconds (training, or only the cache check). */
  seconds: number;
  /** Wall time of the SFT run that produced the state, in seconds. */
  trainSeconds: number;
  /** Mean NLL per weighted token of the first and the last SFT step. */
  initialLoss: number;
  finalLoss: number;
  /** The cache key (hex) and the record's path. */
  key: string;
  recordPath: string;
}

/** The record written for each finished warm start. */
interface WarmStartRecord {
  version: 1;
  key: string;
  identity: Record<string, unknown>;
  state_path: string;
  base_model: string;
  lora_rank: number;
  initial_loss: number;
  final_loss: number;
  train_seconds: number;
  created_at: string;
}

const NAME = /^[A-Za-z0-9._-]{1,80}$/;

/**
 * The default cache folder: `warm-start/` inside the embedded service's data root (`COOKBOOK_LOCAL_TINKER_ROOT`, else
 * `~/.cache/cookbook/local-tinker`), so removing that root removes the records with the checkpoints they name.
 */
export function defaultWarmStartDir(): string {
  const root = process.env.COOKBOOK_LOCAL_TINKER_ROOT || join(homedir(), '.cache', 'cookbook', 'local-tinker');
  return join(root, 'warm-start');
}

/** The datums of `demonstrations` (conversations rendered with the loss on the assistant turns). */
export function warmStartDatums(demonstrations: WarmStartDemonstrations): Datum[] {
  if ('datums' in demonstrations) return [...demonstrations.datums];
  const { conversations, renderer, trainOnWhat } = demonstrations;
  return conversations.map((c) => {
    const mode =
      trainOnWhat ??
      (c.length > 0 && c.every((m) => m.trainable !== undefined)
        ? TrainOnWhat.CUSTOMIZED
        : TrainOnWhat.ALL_ASSISTANT_MESSAGES);
    return conversationToDatum(c, renderer, null, mode);
  });
}

/** A hash of the datums' tokens, targets and weights: any change to the data changes it. */
export function hashDatums(datums: readonly Datum[]): string {
  const h = createHash('sha256');
  for (const d of datums) {
    h.update(JSON.stringify(d.modelInput.toInts()));
    for (const key of Object.keys(d.lossFnInputs).sort()) {
      h.update(key);
      h.update(JSON.stringify(tensorToNumbers(d.lossFnInputs[key]!)));
    }
    h.update('\n');
  }
  return h.digest('hex');
}

function validate(options: WarmStartOptions, datums: readonly Datum[]): void {
  const { steps, batchSize, learningRate } = options.sft;
  if (!NAME.test(options.name)) {
    throw new ConfigError(`warm start name "${options.name}" must be 1–80 letters, digits, ".", "_" or "-"`, {
      key: 'name',
    });
  }
  if (!Number.isInteger(steps) || steps < 1) {
    throw new ConfigError(`warm start steps must be a positive integer, got ${steps}`, { key: 'steps' });
  }
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw new ConfigError(`warm start batch size must be a positive integer, got ${batchSize}`, { key: 'batch_size' });
  }
  if (!(learningRate > 0) || !Number.isFinite(learningRate)) {
    throw new ConfigError(`warm start learning rate must be a positive number, got ${learningRate}`, {
      key: 'learning_rate',
    });
  }
  if (datums.length === 0) throw new DataError('a warm start needs at least one demonstration');
  if (!datums.some((d) => (d.lossFnInputs.weights ? tensorToNumbers(d.lossFnInputs.weights) : []).some((w) => w > 0))) {
    throw new DataError('no demonstration has a weighted token: nothing to learn (are there assistant messages?)', {
      field: 'weights',
    });
  }
}

function readRecord(path: string, key: string, log: (line: string) => void): WarmStartRecord | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const r = JSON.parse(readFileSync(path, 'utf8')) as Partial<WarmStartRecord>;
    if (r.version === 1 && r.key === key && typeof r.state_path === 'string' && typeof r.final_loss === 'number') {
      return r as WarmStartRecord;
    }
    log(`warm start: ignoring ${path} (not a record of this warm start); training again`);
  } catch (err) {
    log(
      `warm start: ignoring unreadable ${path} (${err instanceof Error ? err.message : String(err)}); training again`,
    );
  }
  return undefined;
}

/** Whether the service still holds the record's checkpoint, for the same model and rank. */
async function stillValid(service: WarmStartServiceClient, record: WarmStartRecord): Promise<boolean> {
  try {
    const info = await (await service.createRestClient()).getWeightsInfo(record.state_path);
    return info.base_model === record.base_model && (info.lora_rank ?? record.lora_rank) === record.lora_rank;
  } catch (err) {
    if (err instanceof NotFoundError || err instanceof BadRequestError) return false;
    throw err;
  }
}

function weightSum(datums: readonly Datum[]): number {
  let s = 0;
  for (const d of datums) if (d.lossFnInputs.weights) for (const w of tensorToNumbers(d.lossFnInputs.weights)) s += w;
  return s;
}

/**
 * The open run a warm start trains in: no log folder, loggers or signals of its own (it runs inside a recipe's run,
 * or a library call), starting at step 0; `onTotalSteps` starts its progress line.
 */
function warmStartRun(logPath: string, onTotalSteps: (totalSteps: number) => void): RunContext {
  return {
    logPath,
    startStep: 0,
    resumeFrom: undefined,
    logger: { logHparams() {}, logMetrics() {}, close: async () => {} },
    log() {},
    signal: new AbortController().signal,
    own: (resource) => resource,
    setTotalSteps: onTotalSteps,
    setProgressDetail() {},
    setProgressCount() {},
  };
}

/**
 * Runs SFT of `baseModel` on the demonstrations once and caches the saved state; later calls with the same identity
 * return the cached state at once, after checking the service still holds it (a pruned checkpoint is trained again).
 * Trains through the epoch driver (`runEpochs`): the learning rate decays linearly; steps are pipelined (each step
 * is submitted before the previous one is awaited).
 * @throws ConfigError for bad settings, DataError for empty or unweighted demonstrations.
 */
export async function warmStart(options: WarmStartOptions): Promise<WarmStartResult> {
  const start = performance.now();
  const log = options.log ?? (() => {});
  const datums = warmStartDatums(options.demonstrations);
  validate(options, datums);
  const { steps, batchSize, learningRate } = options.sft;
  const identity = {
    name: options.name,
    base_model: options.baseModel,
    lora_rank: options.loraRank,
    data: hashDatums(datums),
    num_datums: datums.length,
    steps,
    batch_size: batchSize,
    learning_rate: learningRate,
    seed: options.seed,
  };
  const key = createHash('sha256').update(JSON.stringify(identity)).digest('hex').slice(0, 20);
  const cacheDir = options.cacheDir ?? defaultWarmStartDir();
  const recordPath = join(cacheDir, `${options.name}-${key}.json`);
  const seconds = () => (performance.now() - start) / 1000;

  const cached = options.refresh ? undefined : readRecord(recordPath, key, log);
  if (cached !== undefined) {
    if (await stillValid(options.service, cached)) {
      log(`warm start: cached ${cached.state_path} (SFT loss ${cached.final_loss.toFixed(3)}, from ${recordPath})`);
      return {
        statePath: cached.state_path,
        cached: true,
        seconds: seconds(),
        trainSeconds: cached.train_seconds,
        initialLoss: cached.initial_loss,
        finalLoss: cached.final_loss,
        key,
        recordPath,
      };
    }
    log(`warm start: the cached checkpoint ${cached.state_path} is gone from the service; training again`);
  }

  log(
    `warm start: SFT of ${options.baseModel} on ${datums.length} demonstrations, ${steps} steps of ${batchSize} ` +
      `(once; cached in ${cacheDir})`,
  );
  const client = await options.service.createLoraTrainingClient({
    baseModel: options.baseModel,
    rank: options.loraRank,
  });
  // Batches cycle through the demonstrations in a seeded order, reshuffled every pass.
  const batchOf = (step: number): Datum[] => {
    const out: Datum[] = [];
    for (let j = 0; j < batchSize; j++) {
      const flat = step * batchSize + j;
      const pass = Math.floor(flat / datums.length);
      const order = seededPermutation(datums.length, options.seed * 1_000_003 + pass);
      out.push(datums[order[flat % datums.length]!]!);
    }
    return out;
  };
  let initialLoss = Number.NaN;
  let finalLoss = Number.NaN;
  let statePath = '';
  const stream = typeof options.progress === 'object' ? { stream: options.progress } : {};
  let bar: ProgressBar | undefined;
  // One epoch of `steps` batches through the epoch driver: the learning rate decays linearly, each step is submitted
  // before the previous one is collected, and the state is saved once under the cache's name (no evaluations, no
  // periodic checkpoints, no run folder: nothing is written under `cacheDir` but the record below).
  const plan: EpochPlan = {
    nBatches: steps,
    numEpochs: 1,
    maxSteps: null,
    learningRate,
    lrSchedule: 'linear',
    evalEvery: 0,
    infrequentEvalEvery: 0,
    logPath: cacheDir,
    saveEvery: 0,
    ttlSeconds: null,
  };
  const run = warmStartRun(cacheDir, (totalSteps) => {
    if (options.progress !== false) bar = progressBar(totalSteps, { label: 'warm start', unit: 'step', ...stream });
  });
  try {
    await runEpochs(run, plan, async () => ({
      client,
      submitAhead: 1,
      async submit(at) {
        const batch = batchOf(at.step);
        const fb = Promise.resolve(client.forwardBackward(batch, 'cross_entropy'));
        const optim = Promise.resolve(client.optimStep({ learningRate: at.learningRate, ...LOOP_ADAM }));
        const weight = weightSum(batch);
        return {
          inFlight: [fb, optim],
          async collect() {
            const out = await fb;
            await optim;
            return { loss: (out.metrics['loss:sum'] ?? Number.NaN) / weight };
          },
        };
      },
      onLogged(step, metrics) {
        const loss = metrics.loss ?? Number.NaN;
        if (step === 0) initialLoss = loss;
        finalLoss = loss;
        bar?.setDetail(`loss ${loss.toFixed(3)}`);
        bar?.update(step + 1);
      },
      async saveFinal(done) {
        statePath = (await client.saveState(`warm-start-${key}`)).path;
        return { name: `warm-start-${key}`, step: done, state_path: statePath, final: true };
      },
    }));
  } finally {
    bar?.finish();
  }
  const trainSeconds = seconds();
  const record: WarmStartRecord = {
    version: 1,
    key,
    identity,
    state_path: statePath,
    base_model: options.baseModel,
    lora_rank: options.loraRank,
    initial_loss: initialLoss,
    final_loss: finalLoss,
    train_seconds: trainSeconds,
    created_at: new Date().toISOString(),
  };
  writeFileAtomicSync(recordPath, `${JSON.stringify(record, null, 2)}\n`);
  log(`warm start: done in ${trainSeconds.toFixed(1)}s, loss ${initialLoss.toFixed(3)} → ${finalLoss.toFixed(3)}`);
  return { statePath, cached: false, seconds: trainSeconds, trainSeconds, initialLoss, finalLoss, key, recordPath };
}
