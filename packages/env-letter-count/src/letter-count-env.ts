/**
 * `letter_count`, the worked example of an environment package: the policy is asked how many letters a word has and
 * earns 1 when the last integer of its reply is right. The whole env is this file — a message-level env, a group
 * builder, a seeded dataset and the `EnvSpec` the registry stores — and `index.ts` registers it.
 */
import { getTextContent, type Message, mulberry32, shuffleInPlace } from '@cookbook/core';
import {
  defineEnv,
  type Env,
  type EnvBuildContext,
  EnvFromMessageEnv,
  type EnvGroupBuilder,
  type MessageEnv,
  type MessageStepResult,
  type RLDataset,
} from '@cookbook/training';
import { z } from 'zod';

/** The words asked about (common English words, 2 to 10 letters). */
export const WORDS: readonly string[] = [
  'at',
  'sun',
  'tree',
  'apple',
  'garden',
  'kitchen',
  'elephant',
  'mountain',
  'butterfly',
  'strawberry',
  'go',
  'cat',
  'book',
  'river',
  'pencil',
  'holiday',
  'blanket',
  'umbrella',
  'chocolate',
  'basketball',
];

/** The question for `word`. */
export function letterCountPrompt(word: string): Message[] {
  return [{ role: 'user', content: `How many letters are in the word "${word}"? Answer with a number.` }];
}

/** The last integer of `text`, if any. */
function lastInteger(text: string): number | undefined {
  const matches = text.match(/\d+/g);
  const last = matches?.at(-1);
  return last === undefined ? undefined : Number(last);
}

/** One question, one reply. */
export class LetterCountMessageEnv implements MessageEnv {
  constructor(readonly word: string) {}

  async initialMessages(): Promise<Message[]> {
    return letterCountPrompt(this.word);
  }

  async step(reply: Message): Promise<MessageStepResult> {
    const correct = lastInteger(getTextContent(reply)) === this.word.length ? 1 : 0;
    return { reward: correct, episodeDone: true, nextMessages: [], metrics: { correct } };
  }
}

/** `groupSize` attempts at one word; the demonstration answers it. */
export class LetterCountGroupBuilder implements EnvGroupBuilder {
  constructor(
    readonly word: string,
    readonly groupSize: number,
    readonly renderer: EnvBuildContext['renderer'],
  ) {}

  async makeEnvs(): Promise<Env[]> {
    return Array.from(
      { length: this.groupSize },
      () => new EnvFromMessageEnv(this.renderer, new LetterCountMessageEnv(this.word)),
    );
  }

  logtreeTag(): string {
    return 'letter_count';
  }

  async demonstrations(): Promise<Message[][]> {
    return [[...letterCountPrompt(this.word), { role: 'assistant', content: String(this.word.length) }]];
  }
}

/** A seeded shuffle (mulberry32): the same seed gives the same order on every machine. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  return shuffleInPlace([...items], mulberry32(seed));
}

/** Batches of `groupsPerBatch` words, cycling through a seeded order of the word list. */
export class LetterCountDataset implements RLDataset {
  private readonly order: string[];

  constructor(
    words: readonly string[],
    readonly groupsPerBatch: number,
    readonly groupSize: number,
    readonly length: number,
    seed: number,
    readonly renderer: EnvBuildContext['renderer'],
  ) {
    this.order = shuffled(words, seed);
  }

  getBatch(index: number): EnvGroupBuilder[] {
    return Array.from({ length: this.groupsPerBatch }, (_, k) => {
      const word = this.order[(index * this.groupsPerBatch + k) % this.order.length]!;
      return new LetterCountGroupBuilder(word, this.groupSize, this.renderer);
    });
  }
}

const letterCountShape = {
  maxWordLength: z
    .number()
    .int()
    .min(2)
    .max(10)
    .default(10)
    .describe('letter_count: ask only about words of at most this many letters'),
};

/** `env=letter_count`: the registry entry (name, settings, how to build the data sets). */
export const letterCountEnv = defineEnv({
  name: 'letter_count',
  description: 'How many letters are in a word? (the example env package)',
  configShape: letterCountShape,
  async build(config, ctx) {
    const words = WORDS.filter((w) => w.length <= config.maxWordLength);
    return {
      train: (seed, batches) =>
        new LetterCountDataset(words, ctx.groupsPerBatch, ctx.groupSize, batches, seed, ctx.renderer),
      test: (seed) => new LetterCountDataset(words, words.length, ctx.groupSize, 1, seed + 1, ctx.renderer),
      demonstrations: true,
      headline: 'env/all/correct',
    };
  },
});
