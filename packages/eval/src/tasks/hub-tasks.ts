/**
 * Benchmarks read from the Hugging Face Hub (network): GSM8K, MATH-500, MMLU (multiple choice) and IFEval
 * (instructions), through the datasets-server rows API. Offline they fail at once with a message that says how to
 * run from a local JSONL file instead; `HF_HUB_OFFLINE=1` is honoured.
 */
import { ConfigError, DataError } from '@cookbook/core';
import type { BenchmarkExample, GradedSample } from '../benchmark.js';
import { SUPPORTED_INSTRUCTIONS } from '../graders/instructions.js';
import { extractGsm8kAnswer } from '../graders/math-grading.js';
import { fetchHubRows, HubRowsError } from './hub-rows.js';
import { formatMultipleChoice } from './jsonl-tasks.js';

/** Appended to GSM8K questions (as in the math RL recipes). */
export const GSM8K_PROMPT_SUFFIX = ' Provide a numerical answer without units, written inside \\boxed{}.';
/** Appended to MATH questions. */
export const MATH_PROMPT_SUFFIX = ' Write your answer in \\boxed{} format.';

/** A Hub benchmark: where its rows live and how a row becomes an example. */
export interface HubBenchmarkSpec {
  dataset: string;
  config: string;
  split: string;
  /** Grader name of its examples. */
  grader: string;
  /** One row as an example; undefined skips the row (with a reason counted in the notice). */
  toExample(row: Record<string, unknown>, index: number): BenchmarkExample | undefined;
  /** What the benchmark is, for `--help`. */
  description: string;
  /** Extra metrics of its upstream-format result.json. */
  aggregate?: (samples: readonly GradedSample[]) => Record<string, number>;
}

function text(row: Record<string, unknown>, field: string, dataset: string, index: number): string {
  const v = row[field];
  if (typeof v !== 'string')
    throw new DataError(`row ${index} has no string field "${field}"`, { file: dataset, field });
  return v;
}

/** The built-in Hub benchmarks by name. */
export const HUB_BENCHMARKS: Readonly<Record<string, HubBenchmarkSpec>> = {
  gsm8k: {
    dataset: 'openai/gsm8k',
    config: 'main',
    split: 'test',
    grader: 'math',
    description: 'grade-school math word problems (test split), answer in \\boxed{}',
    toExample(row, i) {
      const answer = extractGsm8kAnswer(text(row, 'answer', 'openai/gsm8k', i));
      if (answer === undefined) return undefined;
      return {
        id: String(i),
        messages: [{ role: 'user', content: text(row, 'question', 'openai/gsm8k', i) + GSM8K_PROMPT_SUFFIX }],
        answer,
      };
    },
  },
  math500: {
    dataset: 'HuggingFaceH4/MATH-500',
    config: 'default',
    split: 'test',
    grader: 'math',
    description: 'MATH-500 competition problems, answer in \\boxed{}',
    toExample(row, i) {
      const id = typeof row.unique_id === 'string' ? row.unique_id : String(i);
      return {
        id,
        messages: [{ role: 'user', content: text(row, 'problem', 'MATH-500', i) + MATH_PROMPT_SUFFIX }],
        answer: text(row, 'answer', 'MATH-500', i),
        metadata: { subject: row.subject, level: row.level },
      };
    },
  },
  mmlu: {
    dataset: 'cais/mmlu',
    config: 'all',
    split: 'test',
    grader: 'multiple_choice',
    description: 'MMLU multiple choice (57 subjects, test split), answer with a letter',
    toExample(row, i) {
      const choices = row.choices;
      const answer = row.answer;
      if (!Array.isArray(choices) || typeof answer !== 'number') return undefined;
      const strChoices = choices.map(String);
      return {
        id: String(i),
        messages: [{ role: 'user', content: formatMultipleChoice(text(row, 'question', 'cais/mmlu', i), strChoices) }],
        choices: strChoices,
        answer: 'ABCDEFGHIJ'[answer] ?? String(answer),
        metadata: { subject: row.subject },
      };
    },
  },
  ifeval: {
    dataset: 'google/IFEval',
    config: 'default',
    split: 'train',
    grader: 'instructions',
    description: 'IFEval prompts with verifiable instructions (language detection left out)',
    // Upstream's IFEval metrics: strict = every instruction followed, loose = mean fraction followed.
    aggregate(samples) {
      const n = samples.length;
      return {
        'ifeval/strict_accuracy': n > 0 ? samples.filter((s) => s.correct).length / n : 0,
        'ifeval/loose_accuracy': n > 0 ? samples.reduce((a, s) => a + s.score, 0) / n : 0,
      };
    },
    toExample(row, i) {
      const ids = row.instruction_id_list;
      const kwargs = Array.isArray(row.kwargs) ? row.kwargs : [];
      if (!Array.isArray(ids)) return undefined;
      const instructions = ids
        .map((id, j) => ({ id: String(id), kwargs: (kwargs[j] ?? {}) as Record<string, unknown> }))
        .filter((s) => SUPPORTED_INSTRUCTIONS.includes(s.id));
      if (instructions.length === 0) return undefined;
      return {
        id: String(row.key ?? i),
        messages: [{ role: 'user', content: text(row, 'prompt', 'google/IFEval', i) }],
        instructions,
        ...(instructions.length < ids.length
          ? { metadata: { instructions_left_out: ids.length - instructions.length } }
          : {}),
      };
    },
  },
};

/** Options of {@link loadHubBenchmark}. */
export interface LoadHubOptions {
  /** Read at most this many rows. Default: all. */
  maxRows?: number;
  fetch?: typeof globalThis.fetch;
  /** Notices (rows skipped). */
  log?: (line: string) => void;
}

function hubError(name: string, spec: HubBenchmarkSpec, why: string, cause?: unknown): DataError {
  return new DataError(
    `cannot load benchmark ${name} from the Hugging Face Hub (${spec.dataset}): ${why}. Offline, give a JSONL task ` +
      `file instead: benchmarks=path/to/${name}.jsonl (one {"id", "question", "answer"} per line)`,
    { cause },
  );
}

/** Most rows read from one Hub dataset. */
export const MAX_HUB_ROWS = 100_000;

/** The examples of a built-in Hub benchmark (network). */
export async function loadHubBenchmark(name: string, options: LoadHubOptions = {}): Promise<BenchmarkExample[]> {
  const spec = HUB_BENCHMARKS[name];
  if (spec === undefined) {
    throw new ConfigError(`unknown Hub benchmark "${name}"; choose one of ${Object.keys(HUB_BENCHMARKS).join(', ')}`, {
      key: 'benchmarks',
    });
  }
  let rows: Record<string, unknown>[];
  try {
    rows = await fetchHubRows({
      dataset: spec.dataset,
      config: spec.config,
      split: spec.split,
      limit: Math.min(options.maxRows ?? MAX_HUB_ROWS, MAX_HUB_ROWS),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  } catch (error) {
    if (error instanceof HubRowsError) throw hubError(name, spec, error.reason, error);
    throw error;
  }
  const examples: BenchmarkExample[] = [];
  let skipped = 0;
  rows.forEach((row, index) => {
    const ex = spec.toExample(row, index);
    if (ex === undefined) skipped++;
    else examples.push(ex);
  });
  if (skipped > 0) options.log?.(`${name}: ${skipped} rows skipped (no gradable answer or instruction)`);
  if (examples.length === 0) throw hubError(name, spec, 'no usable rows were returned');
  return examples;
}
