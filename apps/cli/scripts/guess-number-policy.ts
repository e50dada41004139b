/**
 * The exact expected win rate of a policy on the offline guess-the-number game ([0, high], two guesses), from its
 * token probabilities rather than sampled games: the first guess's distribution, and the second guess's in each
 * (first guess, answer) context. A policy whose second guess does not depend on the answer is capped at 0.5 on
 * [0, 3]; bisection wins 0.75. A maintainer's diagnostic for the offline stand-in. Usage (from the repository root,
 * with COOKBOOK_LOCAL_TINKER_ROOT set to the service root holding the checkpoints):
 *
 *   node --conditions=@cookbook/source --import tsx apps/cli/scripts/guess-number-policy.ts [high=3] PATH|MODEL …
 */
import type { Message } from '@cookbook/core';
import { ModelInput } from '@cookbook/core';
import { GuessNumberMessageEnv } from '@cookbook/rl';
import { connectService } from '../src/recipes/common.js';
import { rlRenderer } from '../src/recipes/rl-common.js';

const args = process.argv.slice(2);
const high = Number(args.find((a) => a.startsWith('high='))?.slice(5) ?? 3);
const models = args.filter((a) => !a.startsWith('high='));
const renderer = rlRenderer({ modelName: 'local/qwen3-tiny', rendererName: null });
const service = connectService(null);
const answers = ['Too low', 'Too high'] as const;

for (const model of models) {
  const sampler = model.startsWith('tinker://')
    ? await service.createSamplingClient({ modelPath: model })
    : await service.createSamplingClient({ baseModel: model });
  const env = new GuessNumberMessageEnv(0, { low: 0, high, maxTurns: 2 });
  const opening = await env.initialMessages();
  /** P(reply = g) for g in [0, high]: the number's tokens after the generation prompt. */
  const replies = async (messages: Message[]): Promise<number[]> => {
    const prompt = renderer.buildGenerationPrompt(messages).toInts();
    const out: number[] = [];
    for (let g = 0; g <= high; g++) {
      const ids = [...prompt, ...renderer.tokenizer.encode(String(g))];
      const lps = await sampler.computeLogprobs(ModelInput.fromInts(ids));
      out.push(Math.exp(lps.slice(prompt.length).reduce<number>((s, lp) => s + (lp ?? 0), 0)));
    }
    return out;
  };
  const first = await replies(opening);
  const second = new Map<string, number[]>();
  for (let g = 0; g <= high; g++) {
    for (const answer of answers) {
      if ((answer === 'Too low' && g === high) || (answer === 'Too high' && g === 0)) continue;
      const history: Message[] = [
        ...opening,
        { role: 'assistant', content: String(g) },
        { role: 'user', content: answer },
      ];
      second.set(`${g}|${answer}`, await replies(history));
    }
  }
  let win = 0;
  for (let s = 0; s <= high; s++) {
    for (let g = 0; g <= high; g++) {
      const again = g === s ? 1 : second.get(`${g}|${g < s ? 'Too low' : 'Too high'}`)![s]!;
      win += (first[g]! * again) / (high + 1);
    }
  }
  const fmt = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(' ');
  console.log(`${model}\n  expected win rate ${win.toFixed(3)}; first guess ${fmt(first)}`);
  for (const [k, d] of second) console.log(`  after ${k.replace('|', ', ')}: ${fmt(d)}`);
}
process.exit(0);
