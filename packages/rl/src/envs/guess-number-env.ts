/**
 * Guess the number (upstream `recipes/multiplayer_rl/guess_number`): the env holds a secret integer, the policy
 * guesses, the env answers "Too low", "Too high" or "Correct". Reward 1 on a correct guess, 0 otherwise; the
 * episode ends on a correct guess or after `maxTurns` guesses. A reply without an integer counts as a wasted turn.
 */
import type { Message } from '@cookbook/core';
import { getTextContent, Mulberry32Rng } from '@cookbook/core';
import type { Renderer } from '@cookbook/renderers';
import type { Env, EnvGroupBuilder, RLDataset } from '@cookbook/training';
import { defineEnv, EnvFromMessageEnv, type MessageEnv, type MessageStepResult } from '@cookbook/training';
import { z } from 'zod';
import { lastInteger } from './math-env.js';
import { maxTurnsField } from './max-turns-field.js';

/** Options of {@link GuessNumberMessageEnv}. */
export interface GuessNumberOptions {
  /** Smallest possible secret. Default 0. */
  low?: number;
  /** Largest possible secret. Default 1024. */
  high?: number;
  /** Most guesses. Default 10. */
  maxTurns?: number;
  /**
   * Chance that the demonstration player (see {@link playBisection}) ignores the answers so far on a guess after its
   * first and picks uniformly from the whole range instead. Default 0 (pure bisection).
   */
  demonstrationEpsilon?: number;
}

/** The env's reply to a guess. */
export function judgeGuess(guess: number | undefined, secret: number): 'Too low' | 'Too high' | 'Correct' | 'Invalid' {
  if (guess === undefined) return 'Invalid';
  if (guess < secret) return 'Too low';
  if (guess > secret) return 'Too high';
  return 'Correct';
}

/** The message-level game. */
export class GuessNumberMessageEnv implements MessageEnv {
  readonly secret: number;
  readonly low: number;
  readonly high: number;
  readonly maxTurns: number;
  private turns = 0;

  constructor(secret: number, options: GuessNumberOptions = {}) {
    this.secret = secret;
    this.low = options.low ?? 0;
    this.high = options.high ?? 1024;
    this.maxTurns = options.maxTurns ?? 10;
  }

  async initialMessages(): Promise<Message[]> {
    return [
      {
        role: 'user',
        content:
          `I'm thinking of an integer between ${this.low} and ${this.high}. Guess it: reply with just the number. ` +
          `After each guess I'll say "Too low", "Too high" or "Correct". You have ${this.maxTurns} guesses.`,
      },
    ];
  }

  async step(reply: Message): Promise<MessageStepResult> {
    this.turns++;
    const verdict = judgeGuess(lastInteger(getTextContent(reply)), this.secret);
    const correct = verdict === 'Correct';
    const done = correct || this.turns >= this.maxTurns;
    const text = verdict === 'Invalid' ? 'Please reply with a single integer.' : verdict;
    return {
      reward: correct ? 1 : 0,
      episodeDone: done,
      nextMessages: done ? [] : [{ role: 'user', content: text }],
      metrics: { correct: correct ? 1 : 0, invalid_guess: verdict === 'Invalid' ? 1 : 0 },
    };
  }
}

/**
 * Plays `env` with the bisection player (guess the middle of the range the answers so far leave open; it never looks
 * at the secret) and returns the conversation: the env's messages and the player's guesses as assistant turns, the
 * guesses `trainable`. With `epsilon` > 0 each guess after the first is, with that chance, a uniform pick from the whole
 * range (drawn from `rng`): an inattentive player, whose games teach the format and the opening but read the answers
 * only some of the time, leaving RL room to learn to read them. (Noise that stays within the open range would not:
 * on [0, 3] with two guesses every consistent second guess is as good as bisection's.)
 */
export async function playBisection(
  env: GuessNumberMessageEnv,
  options: { epsilon?: number; rng?: Mulberry32Rng } = {},
): Promise<Message[]> {
  const messages: Message[] = (await env.initialMessages()).map((m) => ({ ...m, trainable: false }));
  const epsilon = options.epsilon ?? 0;
  const rng = options.rng ?? new Mulberry32Rng(0);
  let low = env.low;
  let high = env.high;
  for (let turn = 0; turn < env.maxTurns; turn++) {
    const inattentive = turn > 0 && epsilon > 0 && rng.next() < epsilon;
    const guess = inattentive ? rng.int(env.low, env.high) : Math.floor((low + high) / 2);
    const reply: Message = { role: 'assistant', content: String(guess), trainable: true };
    messages.push(reply);
    const result = await env.step(reply);
    if (result.episodeDone) break;
    messages.push(...result.nextMessages.map((m) => ({ ...m, trainable: false })));
    const answer = getTextContent(result.nextMessages.at(-1) ?? { content: '' });
    if (answer === 'Too low') low = Math.max(low, guess + 1);
    else if (answer === 'Too high') high = Math.min(high, guess - 1);
  }
  return messages;
}

/** A group of envs sharing one secret. */
export class GuessNumberGroupBuilder implements EnvGroupBuilder {
  constructor(
    readonly secret: number,
    readonly renderer: Renderer,
    readonly groupSize: number,
    readonly options: GuessNumberOptions = {},
    /** Seeds the demonstration player's random guesses (see `demonstrationEpsilon`). */
    readonly demonstrationSeed = 0,
  ) {}

  async makeEnvs(): Promise<Env[]> {
    return Array.from(
      { length: this.groupSize },
      () => new EnvFromMessageEnv(this.renderer, new GuessNumberMessageEnv(this.secret, this.options)),
    );
  }

  logtreeTag(): string {
    return 'guess_number';
  }

  /** One game of the (ε-)bisection player for this group's secret. */
  async demonstrations(): Promise<Message[][]> {
    const env = new GuessNumberMessageEnv(this.secret, this.options);
    const epsilon = this.options.demonstrationEpsilon ?? 0;
    return [await playBisection(env, { epsilon, rng: new Mulberry32Rng(this.demonstrationSeed) })];
  }
}

/** Ranges up to this many secrets are drawn balanced (see {@link GuessNumberDataset}); larger ones independently. */
export const BALANCED_SECRETS_LIMIT = 1 << 16;

/**
 * Batches of guess-the-number groups with seeded secrets. Secrets are drawn balanced: the groups, in order, walk
 * through seeded shuffles of the whole range (a fresh shuffle per pass), so every secret comes up equally often and a
 * run's reward curve reflects the policy rather than which secrets happened to be drawn (secret 3 of [0, 7] is the
 * bisection's first guess, so a batch of easy secrets looks like progress). Ranges wider than
 * {@link BALANCED_SECRETS_LIMIT} draw each secret independently.
 */
export class GuessNumberDataset implements RLDataset {
  readonly length: number;
  private passOrder: { pass: number; order: number[] } | undefined;

  constructor(
    readonly renderer: Renderer,
    readonly batchSize: number,
    readonly groupSize: number,
    numBatches: number,
    readonly seed = 0,
    readonly options: GuessNumberOptions = {},
  ) {
    this.length = numBatches;
  }

  /** The secret of the `k`-th group of the run (k = batch index × batch size + position). */
  secretAt(k: number): number {
    const low = this.options.low ?? 0;
    const high = this.options.high ?? 1024;
    const count = high - low + 1;
    if (count > BALANCED_SECRETS_LIMIT) return new Mulberry32Rng(this.seed * 1_000_003 + k).int(low, high);
    const pass = Math.floor(k / count);
    // A batch's groups read the same pass (or two): shuffle each pass once, not once per group.
    if (this.passOrder?.pass !== pass) {
      const values = Array.from({ length: count }, (_, i) => low + i);
      this.passOrder = { pass, order: new Mulberry32Rng(this.seed * 1_000_003 + pass).shuffle(values) };
    }
    return this.passOrder.order[k % count]!;
  }

  getBatch(index: number): EnvGroupBuilder[] {
    return Array.from(
      { length: this.batchSize },
      (_, j) =>
        new GuessNumberGroupBuilder(
          this.secretAt(index * this.batchSize + j),
          this.renderer,
          this.groupSize,
          this.options,
          this.seed * 1_000_003 + index * this.batchSize + j,
        ),
    );
  }
}

/**
 * guess_number's warm-start length. Measured on the first pretrained stand-in (its layers did not read a chat's last
 * message; seeds 0/1/2, exact expected win rate of the warm-started policy): at 100 steps one seed of two read "Too
 * low" / "Too high" at all; at 200 steps seed 0 did (0.54, RL then 0.59 → 0.73) and seed 2 did not. The stand-in now
 * pretrains on chats too; with 200 steps RL's win rate rises in all three seeds (first third 0.61–0.66, last
 * 0.71–0.77).
 */
export const GUESS_NUMBER_WARM_START_STEPS = 200;

const guessNumberShape = {
  guessHigh: z
    .number()
    .int()
    .positive()
    .default(3)
    .describe('guess_number: secrets are in [0, guess_high] (offline default: a range the tiny model can climb)'),
  maxTurns: maxTurnsField,
  demonstrationEpsilon: z
    .number()
    .min(0)
    .max(1)
    .default(0.5)
    .describe(
      'guess_number warm start: chance that the demonstration player ignores the answers on a guess after its first ' +
        'and picks uniformly from the whole range (0 = pure bisection, which the warm start may imitate to the ceiling)',
    ),
};

/** `env=guess_number`: guess a secret in [0, guess_high]; the env answers higher/lower. */
export const guessNumberEnv = defineEnv({
  name: 'guess_number',
  description: 'Guess the secret number; the env answers "Too low" / "Too high" (reward 1 on a correct guess)',
  configShape: guessNumberShape,
  // With guess_high 3, 4 groups a step play every secret once (secrets are drawn balanced).
  runDefaults: { groupsPerBatch: 4, maxTurns: 2, warmStartSteps: GUESS_NUMBER_WARM_START_STEPS },
  async build(config, ctx) {
    const options = {
      low: 0,
      high: config.guessHigh,
      maxTurns: config.maxTurns ?? 2,
      demonstrationEpsilon: config.demonstrationEpsilon,
    };
    return {
      train: (seed, batches) =>
        new GuessNumberDataset(ctx.renderer, ctx.groupsPerBatch, ctx.groupSize, batches, seed, options),
      demonstrations: true,
      headline: 'env/all/reward/total',
    };
  },
});
