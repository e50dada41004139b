/**
 * The offline demonstration that training shows in `cookbook eval`: a short `sl_basic` run on the shipped
 * conversations beats its random-initialised base model (`local/llama3-tiny`; seen 0.375 vs 0) on the shipped
 * `reply_format` task, whose questions are held out from those
 * conversations. Two training seeds, so the gain is not one lucky shuffle.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { readTaskFile } from '@cookbook/eval';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli.js';
import { evalRecipe } from './eval.js';
import { shippedTaskPath } from './eval-tasks.js';
import { slBasic } from './sl-basic.js';
import { EXAMPLE_CONVERSATIONS } from './sl-common.js';

const recipes = [slBasic, evalRecipe];
// The random-initialised built-in: qwen3-tiny's pretrained layers already answer in one short line (reply_format
// 0.875 untrained), so the gain from training shows on a base that starts from nothing.
const MODEL = 'local/llama3-tiny';
const quiet = { out: () => undefined, err: () => undefined };

interface BenchmarkSummary {
  score: number;
  num_correct: number;
  num_examples: number;
}

function summary(logPath: string): BenchmarkSummary {
  const all = JSON.parse(readFileSync(join(logPath, 'results.json'), 'utf8')) as Record<string, BenchmarkSummary>;
  return all.reply_format!;
}

async function evaluate(model: string, logPath: string, numSamples: number): Promise<BenchmarkSummary> {
  const args = [
    'eval',
    model,
    'benchmarks=reply_format',
    `num_samples=${numSamples}`,
    `log_path=${logPath}`,
    `eval_store=${join(dirname(logPath), 'eval_store')}`,
  ];
  expect(await runCli(args, recipes, quiet)).toBe(0);
  return summary(logPath);
}

describe('a trained checkpoint beats its base on a shipped task', () => {
  it('reply_format asks nothing the SFT data trains on', () => {
    const trained = new Set(
      readFileSync(EXAMPLE_CONVERSATIONS, 'utf8')
        .trim()
        .split('\n')
        .flatMap((l) => (JSON.parse(l) as { messages: { role: string; content: string }[] }).messages)
        .filter((m) => m.role === 'user')
        .map((m) => m.content),
    );
    const examples = readTaskFile(shippedTaskPath('reply_format')!);
    expect(examples.length).toBeGreaterThanOrEqual(20);
    for (const ex of examples) {
      const question = ex.messages.at(-1)?.content;
      expect(typeof question).toBe('string');
      expect(trained.has(question as string), String(question)).toBe(false);
    }
  });

  it('sl_basic (12 steps) scores higher than its base (local/llama3-tiny) on reply_format, for two seeds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-trained-vs-base-'));
    // One sample per example for the base (each costs the full 64 tokens: it never stops), two for the checkpoints;
    // scores are means over samples, so they compare.
    const base = await evaluate(`model_name=${MODEL}`, join(dir, 'base'), 1);
    for (const seed of [0, 1]) {
      const run = join(dir, `sl_basic_${seed}`);
      const train = [
        'sl_basic',
        `log_path=${run}`,
        `shuffle_seed=${seed}`,
        `model_name=${MODEL}`,
        'max_steps=12',
        'eval_every=0',
        'infrequent_eval_every=0',
        'save_every=0',
      ];
      expect(await runCli(train, recipes, quiet)).toBe(0);
      const trained = await evaluate(`model_path=${run}`, join(dir, `trained_${seed}`), 2);
      expect(trained.num_examples).toBe(base.num_examples);
      // The base model never ends its turn within 64 tokens; the trained one often answers in one plain line.
      expect(trained.score, `seed ${seed}: trained ${trained.score} vs base ${base.score}`).toBeGreaterThan(
        base.score + 0.05,
      );
    }
  }, 120_000);
});
