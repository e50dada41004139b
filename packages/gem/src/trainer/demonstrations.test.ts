import { tensorToNumbers } from '@cookbook/core';
import { getRenderer } from '@cookbook/renderers';
import { getTokenizer } from '@cookbook/tokenizers';
import { describe, expect, it } from 'vitest';
import { make } from '../core/registry.js';
import { guessTheNumberPlayer } from '../games/players.js';
import { applyWrappers, getWrapperFns } from '../wrappers/factory.js';
import { gemDemonstrationDatums } from './demonstrations.js';
import { promptTokens } from './templates.js';

const renderer = getRenderer('qwen3', getTokenizer('local/qwen3-tiny'));
const makeEnv = () => applyWrappers(make('game:GuessTheNumber-v0-easy'), getWrapperFns('concat'));

describe('gemDemonstrationDatums', () => {
  it('one datum per turn: the trainer’s prompt, loss on the move and the stop token only', async () => {
    const demos = await gemDemonstrationDatums({
      makeEnv,
      player: guessTheNumberPlayer,
      episodes: 3,
      renderer,
      template: 'qwen3_game',
      seed: 7,
    });
    // Bisection wins every easy game.
    expect(demos.meanReturn).toBe(1);
    const d = demos.datums[0]!;
    const weights = tensorToNumbers(d.lossFnInputs.weights!);
    const targets = tensorToNumbers(d.lossFnInputs.target_tokens!);
    const env = makeEnv();
    // The first turn's prompt is the env's reset observation in the template (the episode seeds come from `seed`).
    const firstWeighted = weights.findIndex((w) => w > 0);
    const promptLen = firstWeighted + 1;
    const decodedPrompt = renderer.tokenizer.decode([...d.modelInput.toInts().slice(0, promptLen)]);
    expect(decodedPrompt).toMatch(
      /^<\|im_start\|>user\nYou are playing language games\.[\s\S]*<\|im_start\|>assistant\n$/,
    );
    expect(renderer.tokenizer.decode(targets.slice(firstWeighted))).toBe('\\boxed{5}<|im_end|>');
    expect(weights.slice(firstWeighted).every((w) => w === 1)).toBe(true);
    expect(promptTokens('qwen3_game', (await env.reset(1)).observation, renderer).length).toBeGreaterThan(100);
  });

  it('noise makes some moves random; maxPromptTokens keeps the last N prompt tokens', async () => {
    const base = {
      makeEnv,
      player: guessTheNumberPlayer,
      episodes: 16,
      renderer,
      template: 'qwen3_game' as const,
      seed: 3,
    };
    const noisy = await gemDemonstrationDatums({ ...base, noise: 0.7 });
    expect(noisy.meanReturn).toBeLessThan(1);
    const short = await gemDemonstrationDatums({ ...base, maxPromptTokens: 24 });
    for (const d of short.datums) {
      const w = tensorToNumbers(d.lossFnInputs.weights!);
      expect(w.findIndex((x) => x > 0)).toBe(23);
    }
    await expect(gemDemonstrationDatums({ ...base, episodes: 0 })).rejects.toThrow(/positive integer/);
  });
});
