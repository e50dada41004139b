import { type EnvBuildContext, getEnvSpec, getRegisteredEnvNames, parseEnvConfig } from '@cookbook/training';
import { describe, expect, it } from 'vitest';
import {
  type LetterCountDataset,
  type LetterCountGroupBuilder,
  LetterCountMessageEnv,
  letterCountEnv,
  WORDS,
} from './index.js';

const renderer = {} as EnvBuildContext['renderer'];
const context = (groupsPerBatch: number): EnvBuildContext => ({
  renderer,
  groupSize: 4,
  groupsPerBatch,
  modelName: 'local/qwen3-tiny',
  samplingClient: async () => {
    throw new Error('letter_count samples no other model');
  },
});

describe('cookbook-env-letter-count', () => {
  it('registers letter_count on import, with its settings', () => {
    expect(getRegisteredEnvNames()).toContain('letter_count');
    expect(getEnvSpec('letter_count')).toBe(letterCountEnv);
    expect(parseEnvConfig(letterCountEnv, {})).toEqual({ maxWordLength: 10 });
    expect(() => parseEnvConfig(letterCountEnv, {}, { max_word_length: 1 })).toThrow(/letter_count: maxWordLength/);
    expect(() => parseEnvConfig(letterCountEnv, {}, { colour: 'red' })).toThrow(/has no setting "colour"/);
  });

  it('rewards the right count, read as the last integer of the reply', async () => {
    const env = new LetterCountMessageEnv('garden');
    expect(await env.initialMessages()).toEqual([
      { role: 'user', content: 'How many letters are in the word "garden"? Answer with a number.' },
    ]);
    expect(await env.step({ role: 'assistant', content: 'It has 6' })).toMatchObject({ reward: 1, episodeDone: true });
    expect(await env.step({ role: 'assistant', content: '6, no, 7' })).toMatchObject({ reward: 0 });
    expect(await env.step({ role: 'assistant', content: 'six' })).toMatchObject({ reward: 0 });
  });

  it('serves seeded batches of groups of the configured words, with demonstrations', async () => {
    const source = await letterCountEnv.build({ maxWordLength: 4 }, context(3));
    const words = (d: ReturnType<typeof source.train>) => d.getBatch(0).map((g) => (g as LetterCountGroupBuilder).word);
    const a = source.train(7, 5);
    expect(a.length).toBe(5);
    expect(words(a)).toEqual(words(source.train(7, 5)));
    expect(words(a)).not.toEqual(words(source.train(8, 5)));
    for (const w of words(a)) expect(w.length).toBeLessThanOrEqual(4);
    const group = a.getBatch(1)[0] as LetterCountGroupBuilder;
    expect(await group.makeEnvs()).toHaveLength(4);
    expect(await group.demonstrations()).toEqual([
      [
        { role: 'user', content: `How many letters are in the word "${group.word}"? Answer with a number.` },
        { role: 'assistant', content: String(group.word.length) },
      ],
    ]);
    // The test set asks every word once.
    const test = source.test?.(7) as LetterCountDataset;
    expect(new Set(words(test)).size).toBe(WORDS.filter((w) => w.length <= 4).length);
  });
});
