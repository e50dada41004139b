/**
 * Episode collection of the GEM trainer (step 3 of the seed's algorithm): rounds of one episode per env, all envs
 * concurrently, until the buffer holds at least `batchSize` transitions.
 *
 * Differences from the seed: every episode is reset with a seed derived from (config seed, step, round, env) and every
 * turn samples with a seed derived from (config seed, step, round, env, turn), so a step replays exactly on resume; a
 * failed sample call is retried `retries` times, and an episode that still fails is counted (and reported by the
 * caller) instead of vanishing; a run of rounds that all fail stops the run with a {@link TrainingError} instead of
 * looping forever.
 */
import { type ModelInput, type StopCondition, TrainingError } from '@cookbook/core';
import type { SamplingClientLike } from '@cookbook/tinker-client';
import type { Env } from '../core/env.js';
import type { GemTransition } from './algorithm.js';

/** One played episode. */
export interface Episode {
  transitions: GemTransition[];
  observations: string[];
  actions: string[];
  /**
   * Per turn, the tool call the tool wrapper ran for that action (its `info`: tool name, input, output), or undefined
   * when the action went to the env. Absent for episodes without a tool wrapper.
   */
  toolCalls?: (EpisodeToolCall | undefined)[];
}

/** A tool call of one turn, as the tool wrapper reported it. */
export interface EpisodeToolCall {
  name: string;
  input: string;
  output: string;
}

/** The tool call a step's info reports (`use_tool` with `tool_type`, `tool_input`, `tool_output`), if any. */
function toolCallOf(info: Record<string, unknown>): EpisodeToolCall | undefined {
  if (info.use_tool !== true || typeof info.tool_type !== 'string') return undefined;
  return {
    name: info.tool_type,
    input: typeof info.tool_input === 'string' ? info.tool_input : '',
    output: typeof info.tool_output === 'string' ? info.tool_output : '',
  };
}

/** Options of {@link collectEpisodes}. */
export interface CollectOptions {
  envs: readonly Env[];
  sampler: Pick<SamplingClientLike, 'sample'>;
  prompt: (observation: string) => ModelInput;
  decode: (tokens: readonly number[]) => string;
  stop: StopCondition;
  maxTokens: number;
  temperature: number;
  batchSize: number;
  retries: number;
  /** Seed of the episode of env `env` in round `round`. */
  episodeSeed: (round: number, env: number) => number;
  /**
   * Sampling seed of turn `turn` of that episode: the same seed, prompt and weights give the same tokens on a sampler
   * that honours seeds (the embedded service does). Omitted: the sampler picks one (random).
   */
  samplingSeed?: (round: number, env: number, turn: number) => number;
  /** Turns per episode before it is cut (a guard against an env that never ends). Default 1000. */
  maxTurns?: number;
  onProgress?: (transitions: number) => void;
  signal?: AbortSignal;
}

/** What a collection returns. */
export interface CollectResult {
  episodes: Episode[];
  /** Episodes abandoned because sampling kept failing. */
  failedEpisodes: number;
  /** Sample calls that failed and were retried (successfully or not). */
  sampleErrors: number;
  /** Turns whose generation hit max_tokens. */
  truncatedTurns: number;
  lastError: string | undefined;
}

const FAILING_ROUNDS_LIMIT = 3;

/** Collects episodes until `batchSize` transitions. @throws TrainingError when 3 rounds in a row produce nothing. */
export async function collectEpisodes(options: CollectOptions): Promise<CollectResult> {
  const result: CollectResult = {
    episodes: [],
    failedEpisodes: 0,
    sampleErrors: 0,
    truncatedTurns: 0,
    lastError: undefined,
  };
  let transitions = 0;
  let failingRounds = 0;
  for (let round = 0; transitions < options.batchSize; round++) {
    if (options.signal?.aborted && transitions > 0) break;
    const played = await Promise.all(
      options.envs.map((env, i) =>
        playEpisode(env, options.episodeSeed(round, i), options, result, (turn) =>
          options.samplingSeed?.(round, i, turn),
        ),
      ),
    );
    let gained = 0;
    for (const ep of played) {
      if (ep === undefined) continue;
      result.episodes.push(ep);
      gained += ep.transitions.length;
    }
    transitions += gained;
    options.onProgress?.(transitions);
    failingRounds = gained === 0 ? failingRounds + 1 : 0;
    if (failingRounds >= FAILING_ROUNDS_LIMIT) {
      throw new TrainingError(
        `no episode could be played in ${FAILING_ROUNDS_LIMIT} rounds (${result.failedEpisodes} failed episodes); last sampling error: ${result.lastError ?? 'none'}`,
      );
    }
  }
  return result;
}

async function playEpisode(
  env: Env,
  seed: number,
  options: CollectOptions,
  result: CollectResult,
  turnSeed: (turn: number) => number | undefined,
): Promise<Episode | undefined> {
  const episode: Episode = { transitions: [], observations: [], actions: [] };
  let { observation } = await env.reset(seed);
  const maxTurns = options.maxTurns ?? 1000;
  for (let turn = 0; turn < maxTurns; turn++) {
    const prompt = options.prompt(observation);
    const seed = turnSeed(turn);
    let sampled: { tokens: number[]; logprobs?: number[] | undefined; stopReason: string } | undefined;
    for (let attempt = 0; attempt <= options.retries && sampled === undefined; attempt++) {
      try {
        const response = await options.sampler.sample({
          prompt,
          numSamples: 1,
          samplingParams: {
            maxTokens: options.maxTokens,
            temperature: options.temperature,
            stop: options.stop,
            ...(seed === undefined ? {} : { seed }),
          },
        });
        const seq = response.sequences[0];
        if (seq === undefined || seq.logprobs === undefined || seq.logprobs.length !== seq.tokens.length) {
          throw new TrainingError('the sampler returned no sequence with per-token logprobs');
        }
        sampled = seq;
      } catch (error) {
        result.sampleErrors++;
        result.lastError = error instanceof Error ? error.message : String(error);
      }
    }
    if (sampled === undefined) {
      result.failedEpisodes++;
      return undefined;
    }
    if (sampled.stopReason === 'length') result.truncatedTurns++;
    const action = options.decode(sampled.tokens);
    const step = await env.step(action);
    const done = step.terminated || step.truncated;
    episode.observations.push(observation);
    episode.actions.push(action);
    const tool = toolCallOf(step.info);
    if (tool !== undefined || episode.toolCalls !== undefined) {
      episode.toolCalls ??= Array.from({ length: episode.actions.length - 1 }, () => undefined);
      episode.toolCalls.push(tool);
    }
    episode.transitions.push({
      obsTokens: prompt.toInts(),
      actTokens: sampled.tokens,
      actLogprobs: sampled.logprobs!,
      reward: step.reward,
      done,
    });
    if (done) return episode;
    observation = step.observation;
  }
  return episode;
}
