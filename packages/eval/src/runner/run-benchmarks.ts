/**
 * The eval loop (upstream `run_benchmarks`): sample every example of every benchmark `numSamples` times from a model,
 * grade, and write `results.jsonl` (a line per sample, as it finishes), `results.json` (per benchmark: score, counts,
 * pass@k), `results.html` (per-example transcripts) and one `metrics.jsonl` row (`eval/<benchmark>/…`), inside the
 * shared run lifecycle; beside them upstream's layout (`<benchmark>/result.json`, `<benchmark>/trajectories.jsonl`,
 * `summary.json`, see `upstream-format.ts`), and with `evalStore` a run in upstream's eval store (`eval-store.ts`). An interrupted or killed run continues where it stopped: with `behaviorIfLogDirExists`
 * `resume` (the CLI's default), finished samples are read back and only the missing ones are drawn — after checking
 * that the model and sampling settings are those the folder was sampled with (`sampling.json`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, configToKeyStyle } from '@cookbook/core';
import { type CheckLogDirOptions, checkLogDir, type TextSink, writeFileAtomicSync } from '@cookbook/logging';
import { loadModelSetup, type Renderer } from '@cookbook/renderers';
import type { RestClient, SamplingClientLike, ServiceClient } from '@cookbook/tinker-client';
import { type RunResult, runConfigShape, runLoop, serviceClientFor } from '@cookbook/training';
import { z } from 'zod';
import type { Benchmark } from '../benchmark.js';
import { type ResolvedModel, resolveModel } from '../model-resolution.js';
import { writeResultsHtml } from '../report/results-html.js';
import { recordInEvalStore } from './eval-store.js';
import {
  type BenchmarkSummary,
  latestRecords,
  ResultsWriter,
  readResults,
  resultId,
  type SampleRecord,
  sampleKey,
  splitResultId,
  summarizeAll,
  summaryMetrics,
  writeSummary,
} from './results.js';
import { type SampleTask, sampleAll } from './sample-all.js';
import { type ResolvedSampling, resolveSampling } from './sampling-settings.js';
import { writeUpstreamFormat } from './upstream-format.js';

/** Names a benchmark may not have: the files of an eval folder (each benchmark gets a folder of its name). */
const RESERVED_NAMES = new Set([
  'results.jsonl',
  'results.json',
  'results.html',
  'sampling.json',
  'summary.json',
  'metrics.jsonl',
  'config.json',
  'report.html',
  'transcripts',
  'eval_store.json',
  'checkpoints.jsonl',
]);

/** The file recording what a log folder was sampled with (checked on resume). */
export const SAMPLING_FILE = 'sampling.json';

/** The eval config: one description and one default per field. */
export const BenchmarkRunConfigSchema = z.object({
  ...runConfigShape,
  logPath: runConfigShape.logPath.describe(
    'Eval folder: results.jsonl, results.json, results.html, sampling.json, metrics.jsonl, config.json, report.html',
  ),
  behaviorIfLogDirExists: runConfigShape.behaviorIfLogDirExists.describe(
    'When log_path exists: resume (keep its finished samples, draw the rest), delete it, ask (terminal only) or raise',
  ),
  modelPath: z
    .string()
    .nullable()
    .default(null)
    .describe(
      'Checkpoint to evaluate: tinker://…/sampler_weights/… or a run folder (its last checkpoint); null = base model',
    ),
  modelName: z
    .string()
    .nullable()
    .default(null)
    .describe('Base model (tokenizer, and what is sampled without model_path); null = the checkpoint’s base model'),
  rendererName: z
    .string()
    .nullable()
    .default(null)
    .describe('Chat format; null = the checkpoint’s renderer_name metadata, else the model’s recommended one'),
  numSamples: z.number().int().positive().max(1024).default(1).describe('Samples per example (n of pass@k)'),
  passK: z
    .array(z.number().int().positive())
    .nullable()
    .default(null)
    .describe('k values of pass@k (each ≤ num_samples), e.g. [1,4]; null = 1 and num_samples'),
  temperature: z
    .number()
    .nonnegative()
    .nullable()
    .default(null)
    .describe(
      'Sampling temperature (0 = greedy); null = the benchmark’s default (upstream’s 0.6 for native ones), else 1',
    ),
  topP: z.number().gt(0).max(1).default(1).describe('Nucleus sampling threshold'),
  maxTokens: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(null)
    .describe(
      'Most tokens per reply; null = the benchmark’s default (upstream’s 32768 for native ones, cut to 64 for local/* ' +
        'models and to the context length of others), else 1000, or 64 for local/* models',
    ),
  seed: z.number().int().default(0).describe('Run seed; each sample’s seed derives from it, the example and the index'),
  maxExamples: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(null)
    .describe('First N examples of each benchmark; null = all'),
  concurrency: z
    .number()
    .int()
    .positive()
    .max(1024)
    .nullable()
    .default(null)
    .describe('Samples in flight at once; null = the benchmark’s default (upstream’s 64 for native ones), else 16'),
  timeoutSeconds: z
    .number()
    .positive()
    .nullable()
    .default(null)
    .describe('Wall-clock limit of one sample (all its turns); null = the benchmark’s default, else 300'),
  maxTurns: z.number().int().positive().default(16).describe('Most model turns in one multi-turn episode'),
  systemPrompt: z.string().nullable().default(null).describe('System message for examples that have none'),
  retryErrors: z.boolean().default(false).describe('On resume, sample again the samples that ended with an error'),
  evalStore: z
    .string()
    .nullable()
    .default(null)
    .describe(
      'Eval store folder (upstream layout: runs.jsonl + runs/<run_id>/metadata.json) to record a finished eval in; null = none',
    ),
});
/** The parsed eval config. */
export type BenchmarkRunConfig = z.infer<typeof BenchmarkRunConfigSchema>;
/** The eval config before defaults. */
export type BenchmarkRunConfigInput = z.input<typeof BenchmarkRunConfigSchema>;

/** What the service must offer the eval loop. */
export interface EvalServiceClient {
  createSamplingClient(args: { baseModel?: string; modelPath?: string }): Promise<Pick<SamplingClientLike, 'sample'>>;
  createRestClient(): Promise<Pick<RestClient, 'getTrainingRun'>>;
  close?(): Promise<void>;
}

/** What the loop needs besides its config. */
export interface BenchmarkRunDeps {
  /** The benchmarks, or a loader (run before anything is written, so a bad task file fails early). */
  benchmarks: readonly Benchmark[] | (() => Promise<readonly Benchmark[]>);
  /** Sample from this client instead of resolving `modelPath` / `modelName` on the service. */
  samplingClient?: Pick<SamplingClientLike, 'sample'>;
  /** Use this renderer instead of resolving one. */
  renderer?: Renderer;
  /** Default: a ServiceClient on `baseUrl` (or the environment / embedded service), closed at the end. */
  serviceClient?: EvalServiceClient;
  /** Written to config.json instead of the parsed config. */
  hparams?: unknown;
  console?: boolean | TextSink;
  progress?: boolean | TextSink;
  log?: (line: string) => void;
  logDirOptions?: CheckLogDirOptions;
  /** Called after each sample is recorded. */
  onSample?: (record: SampleRecord) => void;
}

/** What {@link runBenchmarks} returns besides the run status. */
export interface BenchmarkRunValue {
  summary: Record<string, BenchmarkSummary>;
  model: ResolvedModel;
  /** Samples drawn by this call. */
  sampled: number;
  /** Samples found already done (resume). */
  reused: number;
}

/** The k values of pass@k: as asked (checked ≤ n), or 1 and n. */
export function resolvePassK(passK: readonly number[] | null, numSamples: number): number[] {
  const ks = passK ?? [1, numSamples];
  for (const k of ks) {
    if (k > numSamples) {
      throw new ConfigError(`pass_k=${k} is larger than num_samples=${numSamples}; raise num_samples or lower k`, {
        key: 'pass_k',
      });
    }
  }
  return [...new Set(ks)].sort((a, b) => a - b);
}

type SamplingIdentity = Record<string, unknown>;

/**
 * What the samples of a folder depend on. `temperature` and `max_tokens` are those of benchmarks without defaults of
 * their own (the config's, else this package's); `benchmark_settings` lists, per benchmark, those that differ.
 */
function samplingIdentity(
  config: BenchmarkRunConfig,
  model: ResolvedModel,
  settings: ReadonlyMap<string, ResolvedSampling>,
): SamplingIdentity {
  const plain = resolveSampling(config, { name: '' }, model.baseModel);
  const perBenchmark: Record<string, { temperature: number; max_tokens: number }> = {};
  for (const [name, s] of settings) {
    if (s.temperature !== plain.temperature || s.maxTokens !== plain.maxTokens) {
      perBenchmark[name] = { temperature: s.temperature, max_tokens: s.maxTokens };
    }
  }
  return {
    model_path: model.modelPath,
    base_model: model.baseModel,
    renderer_name: model.rendererName,
    temperature: plain.temperature,
    top_p: config.topP,
    max_tokens: plain.maxTokens,
    seed: config.seed,
    max_turns: config.maxTurns,
    system_prompt: config.systemPrompt,
    ...(Object.keys(perBenchmark).length > 0 ? { benchmark_settings: perBenchmark } : {}),
  };
}

/** Refuses to mix samples of different models or settings in one folder. */
function checkSamplingIdentity(logPath: string, now: SamplingIdentity, sampledBenchmarks: ReadonlySet<string>): void {
  const path = join(logPath, SAMPLING_FILE);
  if (!existsSync(path)) return;
  let before: SamplingIdentity;
  try {
    before = JSON.parse(readFileSync(path, 'utf8')) as SamplingIdentity;
  } catch {
    return;
  }
  const diffs = Object.keys(now)
    .filter((k) => k !== 'benchmark_settings')
    .filter((k) => JSON.stringify(before[k] ?? null) !== JSON.stringify(now[k] ?? null))
    .map((k) => `${k}: ${JSON.stringify(before[k] ?? null)} there, ${JSON.stringify(now[k])} now`);
  // A benchmark's own settings count where the folder has its samples; a benchmark new to the folder may be added.
  const settingsOf = (id: SamplingIdentity, name: string) =>
    (id.benchmark_settings as Record<string, unknown> | undefined)?.[name] ?? {
      temperature: id.temperature,
      max_tokens: id.max_tokens,
    };
  for (const name of sampledBenchmarks) {
    const was = JSON.stringify(settingsOf(before, name));
    const is = JSON.stringify(settingsOf(now, name));
    if (was !== is) diffs.push(`${name}: ${was} there, ${is} now`);
  }
  if (diffs.length > 0) {
    throw new ConfigError(
      `${logPath} holds samples drawn with other settings (${diffs.join('; ')}); resuming would mix them. ` +
        'Use another log_path, or behavior_if_log_dir_exists=delete to start over',
      { key: 'behavior_if_log_dir_exists' },
    );
  }
}

/** Runs the benchmarks; see the module comment. */
export async function runBenchmarks(
  configInput: BenchmarkRunConfigInput,
  deps: BenchmarkRunDeps,
): Promise<RunResult<BenchmarkRunValue>> {
  const config = BenchmarkRunConfigSchema.parse(configInput);
  const passK = resolvePassK(config.passK, config.numSamples);
  const log = deps.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  // Decide about an existing folder first, so `prepare` knows whether old samples will be reused.
  const decision = await checkLogDir(config.logPath, config.behaviorIfLogDirExists, deps.logDirOptions);
  if (decision === 'exit') {
    log(`log dir ${config.logPath} left as it is; nothing to do`);
    return {
      status: 'skipped',
      logPath: config.logPath,
      startStep: 0,
      stepsRun: 0,
      totalSteps: 0,
      finalCheckpoint: undefined,
      value: undefined,
    };
  }
  let benchmarks: readonly Benchmark[] = [];
  let previous: SampleRecord[] = [];
  let service: EvalServiceClient | undefined = deps.serviceClient;
  let createdService: ServiceClient | undefined;
  let model: ResolvedModel | undefined;
  let identity: SamplingIdentity = {};
  const settings = new Map<string, ResolvedSampling>();
  return runLoop<BenchmarkRunValue>(
    {
      ...config,
      behaviorIfLogDirExists: decision === 'resume' ? 'resume' : decision === 'delete' ? 'delete' : 'raise',
      config: deps.hparams ?? configToKeyStyle(BenchmarkRunConfigSchema, config, { keyStyle: 'snake_case' }),
      console: deps.console ?? false,
      progress: deps.progress ?? true,
      // The eval resumes from results.jsonl, not from a checkpoint: the lifecycle's checkpoint notice does not apply.
      log: (line) => {
        if (!line.endsWith('no checkpoint to resume from; starting at step 0')) log(line);
      },
      ...(deps.logDirOptions ? { logDirOptions: deps.logDirOptions } : {}),
      // Everything that can fail on bad input runs before the folder is touched: tasks, model, settings check.
      prepare: async () => {
        benchmarks = typeof deps.benchmarks === 'function' ? await deps.benchmarks() : deps.benchmarks;
        if (benchmarks.length === 0) throw new ConfigError('no benchmarks to run', { key: 'benchmarks' });
        const names = new Set<string>();
        for (const b of benchmarks) {
          if (names.has(b.name)) throw new ConfigError(`benchmark "${b.name}" is listed twice`, { key: 'benchmarks' });
          // Each benchmark gets a folder <log_path>/<name>/ (upstream's layout): it may not be one of the run's files.
          if (RESERVED_NAMES.has(b.name) || b.name.startsWith('.')) {
            throw new ConfigError(
              `benchmark name "${b.name}" is a file of the eval folder; rename the benchmark (or its task file)`,
              { key: 'benchmarks' },
            );
          }
          names.add(b.name);
        }
        try {
          model =
            deps.samplingClient !== undefined && deps.renderer !== undefined
              ? {
                  modelPath: config.modelPath,
                  baseModel: config.modelName ?? 'unknown',
                  rendererName: config.rendererName ?? 'custom',
                  sources: { baseModel: 'explicit', rendererName: 'explicit' },
                }
              : await resolveModel(config, () => {
                  if (service === undefined) {
                    createdService = serviceClientFor(config);
                    service = createdService;
                  }
                  return service.createRestClient();
                });
          for (const b of benchmarks) settings.set(b.name, resolveSampling(config, b, model.baseModel));
          identity = samplingIdentity(config, model, settings);
          if (decision === 'resume') {
            previous = readResults(config.logPath);
            const sampled = new Set(previous.map((r) => splitResultId(r.id).benchmark));
            if (previous.length > 0) checkSamplingIdentity(config.logPath, identity, sampled);
          }
          // The sampler's server answers (its session opens) before the folder is created or an old one deleted.
          if (deps.samplingClient === undefined) {
            if (service === undefined) {
              createdService = serviceClientFor(config);
              service = createdService;
            }
            if ('sessionId' in service && typeof service.sessionId === 'function') await service.sessionId();
          }
        } catch (error) {
          await createdService?.close();
          throw error;
        }
      },
    },
    async (run) => {
      if (createdService !== undefined) run.own(createdService);
      const getService = () => {
        if (service === undefined) {
          createdService = run.own(serviceClientFor(config));
          service = createdService;
        }
        return service;
      };
      const resolved = model!;
      writeFileAtomicSync(join(config.logPath, SAMPLING_FILE), `${JSON.stringify(identity, null, 2)}\n`);
      run.log(
        `eval: ${resolved.modelPath ?? resolved.baseModel} (base ${resolved.baseModel}: ${resolved.sources.baseModel}; renderer ` +
          `${resolved.rendererName}: ${resolved.sources.rendererName})`,
      );
      const renderer =
        deps.renderer ??
        (await loadModelSetup({ modelName: resolved.baseModel, rendererName: resolved.rendererName })).renderer;
      const sampler =
        deps.samplingClient ??
        (await getService().createSamplingClient(
          resolved.modelPath !== null ? { modelPath: resolved.modelPath } : { baseModel: resolved.baseModel },
        ));

      // Every sample of the selection, minus those already done.
      const wanted = new Set<string>();
      const tasks: SampleTask[] = [];
      const done = new Set(
        latestRecords(previous)
          .filter((r) => !(config.retryErrors && r.error !== undefined))
          .map((r) => sampleKey(r.id, r.sample_index)),
      );
      let reused = 0;
      for (const benchmark of benchmarks) {
        const examples = benchmark.examples.slice(0, config.maxExamples ?? undefined);
        for (const example of examples) {
          for (let s = 0; s < config.numSamples; s++) {
            const key = sampleKey(resultId(benchmark.name, example.id), s);
            wanted.add(key);
            if (done.has(key)) reused++;
            else tasks.push({ benchmark, example, sampleIndex: s });
          }
        }
      }
      if (reused > 0) run.log(`resuming: ${reused} of ${wanted.size} samples already in results.jsonl`);
      const writer = new ResultsWriter(config.logPath);
      const fresh: SampleRecord[] = [];
      // Progress counts samples (rate and ETA per sample); samples reused from a resumed run count as done. The
      // detail shows each benchmark's count, with its ETA at the overall rate while it is unfinished.
      const perBenchmark = new Map<string, { done: number; total: number }>(
        benchmarks.map((b) => [b.name, { done: 0, total: 0 }]),
      );
      for (const key of wanted) perBenchmark.get(splitResultId(key).benchmark)!.total++;
      for (const key of done) if (wanted.has(key)) perBenchmark.get(splitResultId(key).benchmark)!.done++;
      const started = performance.now();
      const showDetail = () => {
        const fresh = [...perBenchmark.values()].reduce((a, b) => a + b.done, 0) - reused;
        const perSample = fresh > 0 ? (performance.now() - started) / 1000 / fresh : undefined;
        run.setProgressDetail(
          [...perBenchmark]
            .map(([name, c]) => {
              const left = c.total - c.done;
              const eta = left > 0 && perSample !== undefined ? ` eta ${Math.ceil(left * perSample)}s` : '';
              return `${name} ${c.done}/${c.total}${eta}`;
            })
            .join(' · '),
        );
      };
      run.setProgressCount(reused, wanted.size, 'sample');
      showDetail();
      // One benchmark after another (as upstream runs them), each with its own settings.
      let sampled = 0;
      for (const benchmark of benchmarks) {
        const own = tasks.filter((t) => t.benchmark === benchmark);
        if (own.length === 0 || run.signal.aborted) continue;
        const s = settings.get(benchmark.name)!;
        if (s.fromBenchmark.length > 0) {
          run.log(
            `${benchmark.name}: temperature ${s.temperature}, max_tokens ${s.maxTokens}, concurrency ` +
              `${s.concurrency}, timeout ${s.timeoutSeconds}s (${s.fromBenchmark.map(snakeCase).join(', ')} ` +
              `from the benchmark’s defaults)${s.note !== undefined ? `; ${s.note}` : ''}`,
          );
        }
        sampled += await sampleAll(
          own,
          {
            sampler,
            renderer,
            maxTokens: s.maxTokens,
            temperature: s.temperature,
            topP: config.topP,
            seed: config.seed,
            concurrency: s.concurrency,
            timeoutSeconds: s.timeoutSeconds,
            maxTurns: config.maxTurns,
            systemPrompt: config.systemPrompt,
            signal: run.signal,
          },
          (record) => {
            writer.append(record);
            fresh.push(record);
            const c = perBenchmark.get(splitResultId(record.id).benchmark);
            if (c !== undefined) c.done++;
            showDetail();
            run.setProgressCount(reused + fresh.length, wanted.size, 'sample');
            deps.onSample?.(record);
          },
        );
      }
      const records = latestRecords([...previous, ...fresh]).filter((r) => wanted.has(sampleKey(r.id, r.sample_index)));
      const names = benchmarks.map((b) => b.name);
      const summary = summarizeAll(records, passK, names);
      writeSummary(config.logPath, summary);
      await writeResultsHtml(config.logPath, { summary, records, model: resolved, passK, benchmarks });
      const upstream = writeUpstreamFormat(config.logPath, records, { benchmarks, passK, order: names });
      const complete = records.length === wanted.size;
      if (complete && config.evalStore !== null) {
        const meta = recordInEvalStore(config.evalStore, {
          logPath: config.logPath,
          modelName: resolved.baseModel,
          checkpointPath: resolved.modelPath,
          benchmarks: names,
          config: identity,
          results: upstream,
        });
        run.log(`eval store: ${join(config.evalStore, 'runs', meta.run_id)}`);
      }
      if (complete) run.logger.logMetrics(summaryMetrics(summary), 0);
      else run.log(`interrupted: ${records.length} of ${wanted.size} samples done; run again to continue`);
      return {
        totalSteps: 1,
        endStep: complete ? 1 : 0,
        value: { summary, model: resolved, sampled, reused },
      };
    },
  );
}

function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
