/**
 * The offline starting point of the RL recipes. The built-in models (`local/…`: tiny stand-ins that show the mechanics
 * and the learning signal, not model quality; qwen3-tiny's layers are pretrained on synthetic reading exercises only)
 * never answer a task's format by themselves, so every reward in a group
 * is equal and RL has nothing to learn from. Real post-training starts from a model that already follows
 * instructions; offline, a short SFT warm start on demonstrations the environment produces (reference answers, a
 * bisection player, a rule player) stands in for it. It is trained once and cached (`@cookbook/supervised`'s
 * `warmStart`), so the next run starts at once. It is deliberately short: RL must still have room to improve.
 */
import {
  ConfigError,
  type Datum,
  datumFromTokensWeights,
  getTextContent,
  type Message,
  resolveModelRef,
} from '@cookbook/core';
import type { Renderer } from '@cookbook/renderers';
import { type WarmStartServiceClient, warmStart } from '@cookbook/supervised';
import { z } from 'zod';
import type { RecipeIO } from '../recipe.js';

/** A recipe's default warm-start strength (tuned per task so the RL metric starts well below its ceiling). */
export interface WarmStartDefaults {
  steps: number;
  examples: number;
  batchSize: number;
  learningRate: number;
}

/** The warm-start fields a recipe adds to its schema, with its own defaults. */
export function warmStartFields(d: WarmStartDefaults) {
  return {
    warmStart: z
      .enum(['auto', 'on', 'off'])
      .default('auto')
      .describe(
        'SFT warm start before RL on demonstrations the environment produces (reference answers, a scripted ' +
          'player), trained once and cached beside the embedded service data. auto = on for the built-in local/* ' +
          'models (tiny stand-ins) unless load_checkpoint_path is given; off for real checkpoints and the hosted service',
      ),
    warmStartSteps: z
      .number()
      .int()
      .positive()
      .default(d.steps)
      .describe('Warm start: SFT steps (kept short so that RL starts well below the ceiling)'),
    warmStartExamples: z
      .number()
      .int()
      .positive()
      .default(d.examples)
      .describe('Warm start: demonstrations generated from problems seeded apart from the training set'),
    warmStartBatchSize: z.number().int().positive().default(d.batchSize).describe('Warm start: datums per SFT step'),
    warmStartLearningRate: z
      .number()
      .positive()
      .default(d.learningRate)
      .describe('Warm start: Adam learning rate of the first SFT step (decays linearly to 0)'),
  };
}

/** The warm-start fields, parsed. */
export interface WarmStartConfig {
  warmStart: 'auto' | 'on' | 'off';
  warmStartSteps: number;
  warmStartExamples: number;
  warmStartBatchSize: number;
  warmStartLearningRate: number;
  modelName: string;
  loraRank: number;
  seed: number;
  loadCheckpointPath?: string | null;
}

/**
 * One datum per trainable assistant turn, shaped exactly as the RL loop samples it: the generation prompt of the
 * conversation so far (unweighted), then the turn's text and the renderer's stop token (weighted). Renderers that
 * pre-fill part of the answer in the generation prompt (Qwen3's empty think block) would otherwise teach the model to
 * write that part again after the prompt, which RL then has to unlearn.
 */
export function demonstrationDatums(conversations: readonly (readonly Message[])[], renderer: Renderer): Datum[] {
  const stop = renderer.getStopSequences()[0];
  const stopTokens = typeof stop === 'number' ? [stop] : stop === undefined ? [] : renderer.tokenizer.encode(stop);
  const out: Datum[] = [];
  for (const conversation of conversations) {
    conversation.forEach((m, i) => {
      if (m.role !== 'assistant' || m.trainable !== true) return;
      const history = conversation.slice(0, i).map(({ trainable: _t, ...rest }) => rest);
      const prompt = renderer.buildGenerationPrompt(history);
      const promptTokens = prompt.toInts();
      const completion =
        m.tool_calls !== undefined && m.tool_calls.length > 0
          ? toolCallCompletion(renderer, history, m, promptTokens)
          : [...renderer.tokenizer.encode(getTextContent(m)), ...stopTokens];
      out.push(
        datumFromTokensWeights(
          [...promptTokens, ...completion],
          [...promptTokens.map(() => 0), ...completion.map(() => 1)],
        ),
      );
    });
  }
  return out;
}

/**
 * The sampled form of an assistant turn with tool calls: the renderer's rendering of the turn (its tool-call framing
 * is format-specific, not the message text) after the generation prompt, which it must extend.
 */
function toolCallCompletion(
  renderer: Renderer,
  history: readonly Message[],
  message: Message,
  promptTokens: readonly number[],
): number[] {
  const { trainable: _t, ...turn } = message;
  const full = renderer.buildSupervisedExample([...history, turn]).modelInput.toInts();
  if (full.length <= promptTokens.length || promptTokens.some((t, k) => full[k] !== t)) {
    throw new ConfigError(
      'a demonstration turn with tool calls does not extend its generation prompt in this renderer; ' +
        'warm-start with a renderer whose assistant turns start with the generation header',
      { key: 'renderer_name' },
    );
  }
  return full.slice(promptTokens.length);
}

/** Offset of the demonstrations' seed from the run's: demonstrations come from other problems than training. */
export const DEMONSTRATION_SEED_OFFSET = 7919;

/** Whether the run warm-starts: `on`, or `auto` with a built-in model and no checkpoint to start from. */
export function usesWarmStart(config: WarmStartConfig, hasDemonstrations = true): boolean {
  if (config.warmStart === 'off') return false;
  const fromCheckpoint = config.loadCheckpointPath !== undefined && config.loadCheckpointPath !== null;
  if (config.warmStart === 'on') {
    if (fromCheckpoint) {
      throw new ConfigError(
        'warm_start=on trains the base model from scratch, but load_checkpoint_path is set: give one or the other',
        { key: 'warm_start' },
      );
    }
    if (!hasDemonstrations) {
      throw new ConfigError('this environment produces no demonstrations, so it cannot be warm-started', {
        key: 'warm_start',
      });
    }
    return true;
  }
  return !fromCheckpoint && hasDemonstrations && resolveModelRef(config.modelName).kind === 'built-in';
}

/**
 * Runs (or loads from the cache) the warm start of a recipe and returns the state to start RL from, or null when the
 * run does not warm-start. `name` names the cache entry (recipe and task). Progress goes to `io.err`; one summary
 * line (trained or cached, with its wall time) to `io.out`.
 */
export async function resolveWarmStart(
  config: WarmStartConfig,
  options: {
    name: string;
    service: WarmStartServiceClient;
    renderer: Renderer;
    demonstrations: (() => Promise<Message[][]>) | undefined;
    io: RecipeIO;
  },
): Promise<string | null> {
  const demonstrations = options.demonstrations;
  if (!usesWarmStart(config, demonstrations !== undefined) || demonstrations === undefined) return null;
  const datums = demonstrationDatums(await demonstrations(), options.renderer);
  const result = await warmStart({
    service: options.service,
    baseModel: config.modelName,
    loraRank: config.loraRank,
    demonstrations: { datums },
    sft: {
      steps: config.warmStartSteps,
      batchSize: config.warmStartBatchSize,
      learningRate: config.warmStartLearningRate,
    },
    seed: config.seed,
    name: options.name,
    log: options.io.err,
  });
  options.io.out(
    `warm start: ${result.cached ? 'cached' : 'trained'} in ${result.seconds.toFixed(1)}s ` +
      `(SFT loss ${result.initialLoss.toFixed(3)} → ${result.finalLoss.toFixed(3)}; RL starts from ${result.statePath})`,
  );
  return result.statePath;
}

/** The `--help` notes of the RL recipes: what the offline model is, and how to run the same recipe for real. */
export function offlineRlNotes(recipe: string, hosted: string): string {
  return [
    'Offline (no TINKER_API_KEY / TINKER_BASE_URL): the embedded service trains local/qwen3-tiny, a tiny stand-in',
    '(Qwen3 tokenizer, hidden size 64, 2 layers, pretrained on synthetic reading exercises only) that shows the',
    'mechanics and the learning signal, not model quality. It is first warm-started by a short SFT run on demonstrations the environment produces (cached;',
    'warm_start=off to skip), on a task it can climb; the run ends with the headline metric of its first and last',
    'third. advantage_transform=negate is the control: RL with negated advantages does not rise.',
    `Real model: cookbook ${recipe} model_name=<Hugging Face checkpoint folder> (Llama 3 / Qwen3), or with`,
    `TINKER_API_KEY set (hosted service): cookbook ${recipe} ${hosted}. The warm start is then off.`,
  ].join('\n');
}
