/**
 * `cookbook true_thinking_score`: how much each reasoning step really moves the answer (upstream
 * `recipes/true_thinking_score`). Greedy reasoning per problem, split into steps; each step's score from four
 * early-exit confidences (intact / perturbed step × intact / perturbed earlier steps). Writes `metrics.jsonl`,
 * `tts_per_problem.jsonl`, `tts_summary.json` and `tts.html` (steps coloured by score).
 */
import { join } from 'node:path';
import { configToKeyStyle } from '@cookbook/core';
import { runTrueThinkingScore, TTSConfigSchema } from '@cookbook/eval';
import { defineRecipe } from '../recipe.js';

const lib = TTSConfigSchema.shape;

export const trueThinkingScoreSchema = TTSConfigSchema.extend({
  logPath: lib.logPath.default('.cookbook-runs/true_thinking_score'),
  modelName: lib.modelName.default('local/qwen3-tiny'),
  dataset: lib.dataset.default('offline'),
  reasoning: lib.reasoning.default('shipped'),
  nProblems: lib.nProblems.default(6),
  maxTokens: lib.maxTokens.default(64),
});

export const trueThinkingScore = defineRecipe({
  name: 'true_thinking_score',
  description:
    'How much each reasoning step moves the answer (true-thinking score; default: shipped problems and reasoning on local/qwen3-tiny, offline)',
  schema: trueThinkingScoreSchema,
  notes: [
    'Offline (no TINKER_API_KEY / TINKER_BASE_URL): local/qwen3-tiny, a tiny stand-in, scores the shipped problems’',
    'written reasoning (reasoning=shipped): the run shows the mechanics (step split, perturbation, four scoring calls',
    'per step, the summary and the page), not what a reasoning model does. reasoning=model scores its own greedy',
    'reasoning instead; a reasoning without any number is skipped and counted (n_problems_skipped_no_numbers).',
    'Hosted, upstream’s settings: TINKER_API_KEY=… cookbook true_thinking_score model_name=Qwen/Qwen3.5-4B',
    '  dataset=math reasoning=model n_problems=50 max_tokens=4096 (dataset=gsm8k for GSM8K; both read from the Hub).',
  ].join('\n'),
  async run(config, io) {
    const result = await runTrueThinkingScore(config, {
      log: io.err,
      hparams: configToKeyStyle(trueThinkingScoreSchema, config, { keyStyle: 'snake_case' }),
    });
    const a = result.value?.aggregate;
    if (a === undefined) return;
    io.out(
      `${a.n_problems_scored} of ${a.n_problems} problems scored (${a.n_problems_skipped_no_numbers} without numbers skipped), ${a.n_steps_total} steps: ` +
        `mean TTS ${a.mean_tts!.toFixed(4)}, TTS ≥ 0.7 ${(100 * a['frac_high_tts_0.7']!).toFixed(1)}%, ≥ 0.3 ${(100 * a['frac_high_tts_0.3']!).toFixed(1)}%, ` +
        `decorative ${(100 * a['frac_decorative_0.005']!).toFixed(1)}%, self-verification ${a.n_self_verification} (${a.n_sv_decorative} decorative)`,
    );
    io.out(`page: ${join(config.logPath, 'tts.html')}`);
  },
});
