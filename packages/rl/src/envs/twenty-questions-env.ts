/**
 * Twenty questions (upstream `recipes/multiplayer_rl/twenty_questions`): the policy asks yes/no questions about a
 * secret noun and wins by replying `Guess: <word>`. The answerer is a second agent, a MessageCompleter that sees
 * a system prompt with the secret and the latest question only. Offline, {@link RuleBasedAnswerer} answers from a
 * small attribute table. Reward 1 on a correct guess; the game ends on a correct guess or after `maxQuestions`.
 */
import { getTextContent, type Message, type MessageCompleter, Mulberry32Rng } from '@cookbook/core';
import { type Renderer, TinkerMessageCompleter } from '@cookbook/renderers';
import type { Env, EnvGroupBuilder, RLDataset } from '@cookbook/training';
import { defineEnv, EnvFromMessageEnv, type MessageEnv, type MessageStepResult } from '@cookbook/training';
import { z } from 'zod';
import { maxTurnsField } from './max-turns-field.js';

/** A noun and the attributes that are true of it. */
export interface Noun {
  word: string;
  attributes: readonly string[];
}

/** Attribute → words that, in a question, ask about it. */
export const ATTRIBUTE_KEYWORDS: Record<string, readonly string[]> = {
  animal: ['animal', 'creature', 'alive', 'living'],
  plant: ['plant', 'grow', 'tree', 'flower'],
  food: ['food', 'eat', 'edible', 'fruit', 'vegetable'],
  machine: ['machine', 'electronic', 'electric', 'device', 'engine', 'motor'],
  vehicle: ['vehicle', 'drive', 'ride', 'transport'],
  big: ['big', 'large', 'huge', 'bigger'],
  small: ['small', 'tiny', 'little', 'smaller'],
  flies: ['fly', 'flies', 'wings', 'air'],
  water: ['water', 'swim', 'sea', 'ocean', 'river'],
  outdoors: ['outdoors', 'outside', 'nature'],
  household: ['house', 'home', 'household', 'kitchen', 'furniture'],
  pet: ['pet', 'domestic'],
  metal: ['metal', 'steel', 'iron'],
  round: ['round', 'circle', 'sphere', 'ball'],
};

/** The offline noun list: common, concrete nouns with a few attributes each. */
export const NOUNS: readonly Noun[] = [
  { word: 'dog', attributes: ['animal', 'pet', 'small', 'outdoors'] },
  { word: 'cat', attributes: ['animal', 'pet', 'small', 'household'] },
  { word: 'elephant', attributes: ['animal', 'big', 'outdoors'] },
  { word: 'eagle', attributes: ['animal', 'flies', 'outdoors'] },
  { word: 'shark', attributes: ['animal', 'water', 'big'] },
  { word: 'goldfish', attributes: ['animal', 'water', 'pet', 'small'] },
  { word: 'oak', attributes: ['plant', 'big', 'outdoors'] },
  { word: 'rose', attributes: ['plant', 'small', 'outdoors'] },
  { word: 'apple', attributes: ['food', 'plant', 'small', 'round'] },
  { word: 'bread', attributes: ['food', 'household', 'small'] },
  { word: 'carrot', attributes: ['food', 'plant', 'small'] },
  { word: 'car', attributes: ['machine', 'vehicle', 'metal', 'big', 'outdoors'] },
  { word: 'bicycle', attributes: ['vehicle', 'metal', 'outdoors'] },
  { word: 'airplane', attributes: ['machine', 'vehicle', 'metal', 'flies', 'big'] },
  { word: 'boat', attributes: ['vehicle', 'water', 'big', 'outdoors'] },
  { word: 'computer', attributes: ['machine', 'household', 'small'] },
  { word: 'refrigerator', attributes: ['machine', 'household', 'big', 'metal'] },
  { word: 'chair', attributes: ['household'] },
  { word: 'spoon', attributes: ['household', 'metal', 'small'] },
  { word: 'ball', attributes: ['round', 'small', 'outdoors'] },
  { word: 'mountain', attributes: ['big', 'outdoors'] },
  { word: 'river', attributes: ['water', 'outdoors', 'big'] },
];

/** Whether `reply` is a correct `Guess: <word>` (case-insensitive, trailing punctuation ignored). */
export function isCorrectGuess(reply: string, word: string): boolean {
  const m = /guess:\s*([a-z][a-z -]*)/i.exec(reply);
  if (!m) return false;
  return m[1]!.trim().toLowerCase() === word.toLowerCase();
}

/** The system prompt the answerer sees. */
export function answererSystemPrompt(word: string): string {
  return `You are playing twenty questions. The secret object is "${word}". Answer the player's question with only "Yes" or "No".`;
}

/**
 * A scripted answerer: finds the secret in its system prompt, then answers "Yes" when the question mentions the
 * secret or a keyword of one of its attributes, "No" otherwise.
 */
export class RuleBasedAnswerer implements MessageCompleter {
  readonly nouns: readonly Noun[];

  constructor(nouns: readonly Noun[] = NOUNS) {
    this.nouns = nouns;
  }

  async complete(messages: Message[]): Promise<Message> {
    const system = messages.find((m) => m.role === 'system');
    const secretMatch = system ? /"([^"]+)"/.exec(getTextContent(system)) : null;
    const noun = this.nouns.find((n) => n.word === secretMatch?.[1]);
    const question = getTextContent(messages[messages.length - 1] ?? { content: '' }).toLowerCase();
    const words = new Set(question.split(/[^a-z]+/).filter(Boolean));
    let yes = false;
    if (noun !== undefined) {
      if (words.has(noun.word)) yes = true;
      for (const attr of noun.attributes) {
        if ((ATTRIBUTE_KEYWORDS[attr] ?? []).some((k) => words.has(k))) yes = true;
      }
    }
    return { role: 'assistant', content: yes ? 'Yes' : 'No' };
  }
}

/** Options of {@link TwentyQuestionsMessageEnv}. */
export interface TwentyQuestionsOptions {
  /** Most questions (guesses included). Default 20. */
  maxQuestions?: number;
}

/** The message-level game for the questioner. */
export class TwentyQuestionsMessageEnv implements MessageEnv {
  readonly word: string;
  readonly answerer: MessageCompleter;
  readonly maxQuestions: number;
  private asked = 0;

  constructor(word: string, answerer: MessageCompleter, options: TwentyQuestionsOptions = {}) {
    this.word = word;
    this.answerer = answerer;
    this.maxQuestions = options.maxQuestions ?? 20;
  }

  async initialMessages(): Promise<Message[]> {
    return [
      {
        role: 'user',
        content:
          `Let's play twenty questions. I'm thinking of an object. Ask yes/no questions, one at a time, to find it. ` +
          `When you know it, reply "Guess: <word>". You have ${this.maxQuestions} questions.`,
      },
    ];
  }

  async step(reply: Message): Promise<MessageStepResult> {
    this.asked++;
    const text = getTextContent(reply);
    const correct = isCorrectGuess(text, this.word);
    const done = correct || this.asked >= this.maxQuestions;
    if (done) {
      return {
        reward: correct ? 1 : 0,
        episodeDone: true,
        nextMessages: [],
        metrics: { correct: correct ? 1 : 0, questions: this.asked },
      };
    }
    const answer = await this.answerer.complete([
      { role: 'system', content: answererSystemPrompt(this.word) },
      { role: 'user', content: text },
    ]);
    return {
      reward: 0,
      episodeDone: false,
      nextMessages: [{ role: 'user', content: getTextContent(answer) }],
      metrics: { correct: 0, questions: this.asked },
    };
  }
}

/** A group of questioners for one secret word. */
export class TwentyQuestionsGroupBuilder implements EnvGroupBuilder {
  constructor(
    readonly word: string,
    readonly renderer: Renderer,
    readonly answerer: MessageCompleter,
    readonly groupSize: number,
    readonly options: TwentyQuestionsOptions = {},
  ) {}

  async makeEnvs(): Promise<Env[]> {
    return Array.from(
      { length: this.groupSize },
      () => new EnvFromMessageEnv(this.renderer, new TwentyQuestionsMessageEnv(this.word, this.answerer, this.options)),
    );
  }

  logtreeTag(): string {
    return 'twenty_questions';
  }
}

/** Batches of twenty-questions groups over a noun list, shuffled by a seed. */
export class TwentyQuestionsDataset implements RLDataset {
  readonly length: number;
  private readonly words: string[];

  constructor(
    readonly renderer: Renderer,
    readonly answerer: MessageCompleter,
    readonly batchSize: number,
    readonly groupSize: number,
    numBatches: number,
    seed = 0,
    readonly options: TwentyQuestionsOptions = {},
    words: readonly string[] = NOUNS.map((n) => n.word),
  ) {
    this.length = numBatches;
    this.words = new Mulberry32Rng(seed).shuffle(words);
  }

  getBatch(index: number): EnvGroupBuilder[] {
    return Array.from({ length: this.batchSize }, (_, j) => {
      const word = this.words[(index * this.batchSize + j) % this.words.length]!;
      return new TwentyQuestionsGroupBuilder(word, this.renderer, this.answerer, this.groupSize, this.options);
    });
  }
}

const twentyQuestionsShape = {
  maxTurns: maxTurnsField,
  answerer: z
    .enum(['rule_based', 'model'])
    .default('rule_based')
    .describe('twenty_questions: the scripted answerer, or answerer_model through the service'),
  answererModel: z.string().nullable().default(null).describe('twenty_questions answerer model; null = model_name'),
};

/** `env=twenty_questions`: ask yes/no questions about a secret noun, then guess it; a second agent answers. */
export const twentyQuestionsEnv = defineEnv({
  name: 'twenty_questions',
  description: 'Ask yes/no questions about a secret noun, then guess it (a scripted or model answerer replies)',
  configShape: twentyQuestionsShape,
  runDefaults: { maxTurns: 4 },
  async build(config, ctx) {
    let answerer: MessageCompleter = new RuleBasedAnswerer();
    if (config.answerer === 'model') {
      const samplingClient = await ctx.samplingClient(config.answererModel ?? ctx.modelName);
      answerer = new TinkerMessageCompleter({ samplingClient, renderer: ctx.renderer, maxTokens: 5, temperature: 0 });
    }
    const options = { maxQuestions: config.maxTurns ?? 4 };
    return {
      train: (seed, batches) =>
        new TwentyQuestionsDataset(ctx.renderer, answerer, ctx.groupsPerBatch, ctx.groupSize, batches, seed, options),
      demonstrations: false,
      headline: 'env/all/reward/total',
    };
  },
});
