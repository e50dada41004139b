/**
 * `/v1/completions`: raw text (or token ids) in, text out, no chat template. A string prompt is encoded with the
 * tokenizer's special tokens (a Llama 3 BOS), as Hugging Face and vLLM do. The default stop is the model's EOS; a
 * request's `stop` strings replace nothing: the EOS text joins them (the sampler takes strings or ids, not both). The
 * text ends before the stop (OpenAI's rule); `logprobs` covers the tokens of that text.
 */
import { ModelInput, type StopCondition } from '@cookbook/core';
import type { ModelSetup } from '@cookbook/renderers';
import type { SampledChoice } from './sampling.js';
import { firstStop, tokenText } from './sampling.js';

/** OpenAI's legacy completions logprobs object. */
export interface CompletionLogprobs {
  tokens: string[];
  token_logprobs: number[];
  top_logprobs: Record<string, number>[] | null;
  text_offset: number[];
}

/** One choice of a completion. */
export interface CompletionChoice {
  index: number;
  text: string;
  logprobs: CompletionLogprobs | null;
  finish_reason: 'stop' | 'length';
}

/** The tokens of one prompt. */
export function completionPrompt(setup: ModelSetup, prompt: string | number[]): ModelInput {
  return ModelInput.fromInts(
    typeof prompt === 'string' ? setup.tokenizer.encode(prompt, { addSpecialTokens: true }) : prompt,
  );
}

/** The stop condition of a completion request; undefined: the model's EOS. */
export function completionStop(
  setup: ModelSetup,
  stop: string | string[] | null | undefined,
): {
  stop: StopCondition | undefined;
  userStops: string[];
} {
  const userStops = stop === undefined || stop === null ? [] : typeof stop === 'string' ? [stop] : stop;
  if (userStops.length === 0) return { stop: undefined, userStops };
  const eos = setup.tokenizer.eosToken;
  return { stop: eos === undefined ? userStops : [...new Set([eos, ...userStops])], userStops };
}

/**
 * A sampled sequence as a completion choice: the tokens of the text (a trailing EOS dropped; with a stop string, the
 * tokens up to the one that completed it) and the text cut before the stop.
 */
export function completionChoice(
  setup: ModelSetup,
  choice: SampledChoice,
  index: number,
  options: { userStops: readonly string[]; logprobs: number | null | undefined; promptText: string },
): CompletionChoice {
  const { tokens, logprobs, stopReason } = choice.sequence;
  const decode = (t: readonly number[]) => setup.tokenizer.decode(t);
  const eosText = setup.tokenizer.eosToken;
  const stops = [...options.userStops, ...(eosText === undefined ? [] : [eosText])];
  let count = tokens.length;
  let text = decode(tokens);
  if (stopReason === 'stop') {
    const hit = firstStop(text, stops);
    if (hit !== undefined) {
      text = text.slice(0, hit.index);
      // The fewest tokens whose text reaches the cut: the stop's own tokens (or the EOS) are not text.
      while (count > 0 && decode(tokens.slice(0, count - 1)).length >= hit.index) count--;
    } else if (tokens.at(-1) === setup.tokenizer.eosTokenId) {
      count--;
      text = decode(tokens.slice(0, count));
    }
  }
  let out: CompletionLogprobs | null = null;
  if (options.logprobs !== undefined && options.logprobs !== null) {
    const toks: string[] = [];
    const offsets: number[] = [];
    let offset = options.promptText.length;
    for (let i = 0; i < count; i++) {
      const t = tokenText(decode, tokens[i] as number).token;
      toks.push(t);
      offsets.push(offset);
      offset += t.length;
    }
    out = {
      tokens: toks,
      token_logprobs: (logprobs ?? []).slice(0, count),
      top_logprobs:
        options.logprobs > 0 && choice.top !== undefined
          ? choice.top
              .slice(0, count)
              .map((row) => Object.fromEntries(row.map(([id, lp]) => [tokenText(decode, id).token, lp])))
          : null,
      text_offset: offsets,
    };
  }
  return { index, text, logprobs: out, finish_reason: stopReason === 'length' ? 'length' : 'stop' };
}
