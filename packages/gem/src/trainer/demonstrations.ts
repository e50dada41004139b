/**
 * Demonstrations for a warm start of the GEM trainer: a scripted player plays episodes through the same wrappers and
 * template the trainer uses, and each turn becomes a cross-entropy datum (prompt tokens weight 0, the move and the stop
 * token weight 1) — the exact prompts the policy will see. With `noise` > 0 the player makes a random move
 * (`env.sampleRandomAction()`) that often, so the demonstrations are imperfect and leave RL room to improve. With
 * `maxPromptTokens` each prompt is cut from the left to its last N tokens (cheaper SFT; the move's context stays).
 */
import { ConfigError, type Datum, datumFromTokensWeights, Sfc32Rng } from '@cookbook/core';
import type { Renderer } from '@cookbook/renderers';
import type { Env } from '../core/env.js';
import { promptTokens, stopCondition, type TemplateName } from './templates.js';

/** Options of {@link gemDemonstrationDatums}. */
export interface GemDemonstrationOptions {
  makeEnv: () => Env;
  /** The observation the policy sees → the next action text. */
  player: (observation: string) => string;
  episodes: number;
  renderer: Renderer;
  template: TemplateName;
  /** Seeds the episodes and the noise (use another seed than training). */
  seed: number;
  /** Probability of a random move instead of the player's. Default 0. */
  noise?: number;
  /**
   * Keep only the last N prompt tokens of each turn (the move's local context: the latest hint and the generation
   * header), so SFT on a CPU costs a fraction of the full prompts. Default: the whole prompt.
   */
  maxPromptTokens?: number;
}

/** What {@link gemDemonstrationDatums} returns. */
export interface GemDemonstrations {
  datums: Datum[];
  /** Mean undiscounted return of the demonstrated episodes. */
  meanReturn: number;
}

/** Plays `episodes` demonstrations and returns one datum per turn. */
export async function gemDemonstrationDatums(options: GemDemonstrationOptions): Promise<GemDemonstrations> {
  if (!Number.isInteger(options.episodes) || options.episodes < 1) {
    throw new ConfigError(`warm start episodes must be a positive integer, got ${options.episodes}`, {
      key: 'warm_start_episodes',
    });
  }
  const stop = stopCondition(options.renderer);
  const tokenizer = options.renderer.tokenizer;
  const stopTokens = typeof stop[0] === 'number' ? [stop[0]] : tokenizer.encode(String(stop[0] ?? ''));
  const rng = new Sfc32Rng(options.seed);
  const datums: Datum[] = [];
  let total = 0;
  for (let e = 0; e < options.episodes; e++) {
    const env = options.makeEnv();
    let { observation } = await env.reset(rng.int(0, 0x7fffffff));
    for (let turn = 0; turn < 1000; turn++) {
      const action = rng.random() < (options.noise ?? 0) ? env.sampleRandomAction() : options.player(observation);
      const full = promptTokens(options.template, observation, options.renderer).toInts();
      const keep = options.maxPromptTokens;
      const prompt = keep !== undefined && full.length > keep ? full.slice(full.length - keep) : full;
      const act = [...tokenizer.encode(action), ...stopTokens];
      datums.push(datumFromTokensWeights([...prompt, ...act], [...prompt.map(() => 0), ...act.map(() => 1)]));
      const r = await env.step(action);
      total += r.reward;
      if (r.terminated || r.truncated) break;
      observation = r.observation;
    }
  }
  return { datums, meanReturn: total / options.episodes };
}
