/**
 * A sampler double for runner tests: it reads the conversation from the prompt tokens and answers with a function of
 * the conversation and the sample's seed, optionally after a delay; it counts calls and the most calls in flight.
 */
import { getTokenizer } from '@cookbook/tokenizers';
import type { ModelInput } from '@cookbook/core';
import { getRenderer, type Renderer } from '@cookbook/renderers';
import type { SampleArgs, SampleResponse } from '@cookbook/tinker-client';
import type { Benchmark } from '../benchmark.js';
import { benchmarkFromExamples } from '../tasks/jsonl-tasks.js';

export const renderer: Renderer = getRenderer('qwen3_disable_thinking', getTokenizer('local/qwen3-tiny'));
const imEnd = renderer.tokenizer.convertTokenToId('<|im_end|>')!;

/** The user turns of a rendered Qwen3 prompt, in order. */
export function userTurns(prompt: ModelInput): string[] {
  const text = renderer.tokenizer.decode(prompt.toInts());
  return [...text.matchAll(/<\|im_start\|>user\n([\s\S]*?)<\|im_end\|>/g)].map((m) => m[1]!);
}

export type Respond = (users: string[], seed: number) => string | Promise<string>;

export class FakeSampler {
  calls = 0;
  inFlight = 0;
  maxInFlight = 0;
  /** The sampling parameters of each call, with the first user turn (in call order). */
  readonly params: { user: string; temperature?: number; maxTokens?: number }[] = [];
  constructor(
    private readonly respond: Respond,
    private readonly delayMs = 0,
  ) {}

  async sample(args: SampleArgs): Promise<SampleResponse> {
    this.calls++;
    const p = args.samplingParams;
    this.params.push({
      user: userTurns(args.prompt)[0] ?? '',
      ...(p?.temperature !== undefined ? { temperature: p.temperature } : {}),
      ...(p?.maxTokens !== undefined ? { maxTokens: p.maxTokens } : {}),
    });
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
      const text = await this.respond(userTurns(args.prompt), args.samplingParams?.seed ?? 0);
      return {
        sequences: [{ tokens: [...renderer.tokenizer.encode(text), imEnd], stopReason: 'stop' }],
        promptCacheHitTokens: 0,
      };
    } finally {
      this.inFlight--;
    }
  }
}

/** `What is a + b?` → `a + b = (a+b).`, right on even seeds and off by one on odd ones. */
export const arithmeticRespond: Respond = (users, seed) => {
  const m = /What is (\d+) \+ (\d+)\?/.exec(users.at(-1) ?? '');
  if (!m) return 'I do not know.';
  const value = Number(m[1]) + Number(m[2]) + (seed % 2);
  return `${m[1]} + ${m[2]} = ${value}.`;
};

/** A small arithmetic benchmark graded with `contains`. */
export function arithmeticBenchmark(n: number, name = 'arith'): Benchmark {
  return benchmarkFromExamples(
    name,
    Array.from({ length: n }, (_, i) => ({
      id: `q${i}`,
      messages: [{ role: 'user' as const, content: `What is ${i + 2} + ${2 * i + 1}?` }],
      answer: String(3 * i + 3),
    })),
    'contains',
  );
}
