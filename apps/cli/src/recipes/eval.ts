/**
 * `cookbook eval`: run benchmarks on a checkpoint or a base model (upstream `run_inspect_evals.py` /
 * `run_benchmarks`). The model: `model_path=tinker://…/sampler_weights/…` or a run folder (e.g.
 * `.cookbook-runs/sl_basic`), or `model_name=…` for a base model; the base model and renderer come from the
 * checkpoint's training run unless given (explicit > checkpoint metadata > recommended). Benchmarks: the small task
 * files shipped with the CLI (offline), upstream's native benchmarks (online from the Hub, or `<name>:sample` for
 * their shipped offline samples), the other Hub benchmarks (online) or JSONL paths. Writes results.jsonl,
 * results.json, results.html, metrics.jsonl and report.html under log_path, upstream's layout beside them
 * (`<benchmark>/result.json`, `trajectories.jsonl`, `summary.json`) and a run in the eval store; a rerun resumes.
 * `regrade=true` grades the saved replies again without sampling.
 */
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, configToKeyStyle } from '@cookbook/core';
import {
  type Benchmark,
  BenchmarkRunConfigSchema,
  benchmarkFromExamples,
  benchmarkFromTaskFile,
  customGrader,
  GRADERS,
  type Grader,
  HUB_BENCHMARKS,
  loadHubBenchmark,
  loadNativeBenchmark,
  NATIVE_BENCHMARKS,
  nativeSpec,
  RESULTS_HTML,
  regradeResults,
  runBenchmarks,
  summaryTableText,
} from '@cookbook/eval';
import { REPORT_FILE } from '@cookbook/logging';
import { z } from 'zod';
import { defineRecipe, type RecipeIO } from '../recipe.js';
import { SHIPPED_TASKS, shippedTaskPath } from './eval-tasks.js';

const lib = BenchmarkRunConfigSchema.shape;

export const evalSchema = BenchmarkRunConfigSchema.extend({
  logPath: lib.logPath.default('.cookbook-runs/eval'),
  behaviorIfLogDirExists: lib.behaviorIfLogDirExists.default('resume'),
  benchmarks: z
    .array(z.string().min(1))
    .min(1)
    .default(['concise', 'arithmetic', 'capitals', 'followups', 'reply_format'])
    .describe(
      `Comma-separated: shipped offline tasks (${Object.keys(SHIPPED_TASKS).join(', ')}), upstream's native ` +
        `benchmarks (${Object.keys(NATIVE_BENCHMARKS).join(', ')}; network, or <name>:sample for the shipped ` +
        `offline sample), other Hub benchmarks (${Object.keys(HUB_BENCHMARKS)
          .filter((n) => !(n in NATIVE_BENCHMARKS))
          .join(', ')}; network) or .jsonl task files`,
    ),
  grader: z
    .string()
    .default('auto')
    .describe(`Grader of JSONL examples that name none: auto (by shape) or ${Object.keys(GRADERS).join(', ')}`),
  graderModule: z
    .string()
    .nullable()
    .default(null)
    .describe(
      'A .js/.mjs file whose default export grade(response, answer) → boolean | score grades every JSONL example',
    ),
  regrade: z.boolean().default(false).describe('Grade the replies saved in log_path again, without sampling'),
  // One store for every eval of the project (upstream's use: one store, a run per evaluated checkpoint).
  evalStore: lib.evalStore.default('.cookbook-runs/eval_store'),
});

type EvalConfig = z.infer<typeof evalSchema>;

async function loadGraderModule(path: string): Promise<Grader> {
  const abs = resolve(path);
  if (!existsSync(abs)) throw new ConfigError(`grader_module=${path}: no such file ${abs}`, { key: 'grader_module' });
  const mod = (await import(pathToFileURL(abs).href)) as { default?: unknown; grade?: unknown };
  const fn = mod.default ?? mod.grade;
  if (typeof fn !== 'function') {
    throw new ConfigError(`grader_module=${path} exports no function (default export or "grade")`, {
      key: 'grader_module',
    });
  }
  return customGrader(fn as Parameters<typeof customGrader>[0]);
}

/** The benchmarks named on the command line, loaded (Hub ones need the network). */
export async function loadBenchmarks(config: EvalConfig, log: (line: string) => void): Promise<Benchmark[]> {
  const custom = config.graderModule !== null ? await loadGraderModule(config.graderModule) : undefined;
  const grader = custom ?? config.grader;
  if (typeof grader === 'string' && grader !== 'auto' && !(grader in GRADERS)) {
    throw new ConfigError(`grader=${grader}: choose auto or one of ${Object.keys(GRADERS).join(', ')}`, {
      key: 'grader',
    });
  }
  const out: Benchmark[] = [];
  for (const name of config.benchmarks) {
    const shipped = shippedTaskPath(name);
    if (shipped !== undefined) {
      out.push(benchmarkFromTaskFile(shipped, { name, grader }));
    } else if (nativeSpec(name) !== undefined) {
      // Upstream's benchmark: its own prompts and grader (a grader_module replaces the grader).
      const b = await loadNativeBenchmark(name, {
        systemPrompt: config.systemPrompt,
        ...(config.maxExamples ? { maxRows: config.maxExamples } : {}),
        log,
      });
      out.push(custom !== undefined ? { ...b, grader: custom } : b);
    } else if (name in HUB_BENCHMARKS) {
      const spec = HUB_BENCHMARKS[name]!;
      const examples = await loadHubBenchmark(name, {
        ...(config.maxExamples ? { maxRows: config.maxExamples } : {}),
        log,
      });
      const b = benchmarkFromExamples(name, examples, custom ?? spec.grader);
      out.push(spec.aggregate ? { ...b, aggregate: spec.aggregate } : b);
    } else if (/\.jsonl?$/i.test(name) || existsSync(name)) {
      const path = resolve(name);
      if (!existsSync(path) || statSync(path).isDirectory()) {
        throw new ConfigError(`benchmarks: ${name} is not a task file (no such file ${path})`, { key: 'benchmarks' });
      }
      out.push(benchmarkFromTaskFile(path, { grader }));
    } else {
      throw new ConfigError(
        `benchmarks: unknown benchmark "${name}"; choose ${[...new Set([...Object.keys(SHIPPED_TASKS), ...Object.keys(NATIVE_BENCHMARKS), ...Object.keys(HUB_BENCHMARKS)])].join(', ')} (a native one with :sample for its offline sample) or a .jsonl path`,
        { key: 'benchmarks' },
      );
    }
  }
  return out;
}

async function runEval(config: EvalConfig, io: RecipeIO): Promise<void> {
  if (config.regrade) {
    const benchmarks = await loadBenchmarks(config, io.err);
    const { summary, regraded, changed, kept } = await regradeResults(config.logPath, benchmarks, config.passK);
    io.out(summaryTableText(summary));
    io.out(`re-graded ${regraded} samples (${changed} changed, ${kept} kept as they were)`);
    io.out(`results: ${join(config.logPath, RESULTS_HTML)}`);
    return;
  }
  const result = await runBenchmarks(config, {
    benchmarks: () => loadBenchmarks(config, io.err),
    hparams: configToKeyStyle(evalSchema, config, { keyStyle: 'snake_case' }),
    log: io.err,
  });
  const value = result.value;
  if (value === undefined) return;
  io.out(summaryTableText(value.summary));
  if (result.status === 'interrupted') io.out('interrupted: run the same command again to continue');
  io.out(`results: ${join(config.logPath, RESULTS_HTML)}  report: ${join(config.logPath, REPORT_FILE)}`);
}

export const evalRecipe = defineRecipe({
  name: 'eval',
  description:
    'Benchmarks on a checkpoint or base model with pass@k (offline: model_path=.cookbook-runs/sl_basic or model_name=local/qwen3-tiny)',
  schema: evalSchema,
  run: runEval,
});
