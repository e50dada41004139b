import { datumFromModelInputWeights, ModelInput } from '@cookbook/core';
import { getTokenizer } from '@cookbook/tokenizers';
import { describe, expect, it } from 'vitest';
import { type CompleterSamplingClient, TinkerMessageCompleter, TinkerTokenCompleter } from './completers.js';
import { colorizeExample, formatColorized } from './display.js';
import { Llama3Renderer } from './llama3-renderer.js';

const tok = getTokenizer('local/llama3-tiny');

function fakeClient(tokens: number[], logprobs?: number[]): CompleterSamplingClient & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    calls,
    async sample(req) {
      calls.push(req);
      return {
        sequences: [{ tokens, ...(logprobs ? { logprobs } : {}), stopReason: 'stop' as const }],
        promptCacheHitTokens: 0,
      };
    },
  };
}

describe('completers', () => {
  it('TinkerTokenCompleter forwards parameters and returns logprobs', async () => {
    const client = fakeClient([1, 2], [-0.5, -1]);
    const c = new TinkerTokenCompleter({ samplingClient: client, maxTokens: 7 });
    const out = await c.complete(ModelInput.fromInts([5]), [9]);
    expect(out).toEqual({ tokens: [1, 2], maybeLogprobs: [-0.5, -1] });
    expect(client.calls[0]).toMatchObject({
      numSamples: 1,
      samplingParams: { maxTokens: 7, temperature: 1, stop: [9] },
    });
    // No seed asked: none sent (the sampler picks); a seed asked for is sent with the call.
    expect((client.calls[0] as { samplingParams: object }).samplingParams).not.toHaveProperty('seed');
    await c.complete(ModelInput.fromInts([5]), [9], { seed: 42 });
    expect(client.calls[1]).toMatchObject({ samplingParams: { maxTokens: 7, seed: 42, stop: [9] } });
  });
  it('TinkerMessageCompleter renders, samples with the renderer stops and parses', async () => {
    const r = new Llama3Renderer(tok);
    const eot = tok.convertTokenToId('<|eot_id|>')!;
    const client = fakeClient([...tok.encode('Hi!'), eot]);
    const c = new TinkerMessageCompleter({ samplingClient: client, renderer: r, maxTokens: 16, temperature: 0.5 });
    expect(await c.complete([{ role: 'user', content: 'Hello' }])).toEqual({ role: 'assistant', content: 'Hi!' });
    const req = client.calls[0] as { prompt: ModelInput; samplingParams: { stop: number[]; temperature: number } };
    expect(req.prompt.toInts()).toEqual(r.buildGenerationPrompt([{ role: 'user', content: 'Hello' }]).toInts());
    expect(req.samplingParams).toMatchObject({ stop: [eot], temperature: 0.5 });
  });
});

describe('colorizeExample', () => {
  it('colours runs and decodes multi-byte characters split across tokens', () => {
    const r = new Llama3Renderer(tok);
    const { modelInput, weights } = r.buildSupervisedExample([
      { role: 'user', content: 'Say 🙂' },
      { role: 'assistant', content: '🙂🙂' },
    ]);
    const datum = datumFromModelInputWeights(modelInput, weights);
    const plain = colorizeExample(datum, tok, 'weights', { plain: true });
    expect(plain).toBe(
      '[0<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nSay 🙂<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n][+🙂🙂<|eot_id|>]',
    );
    expect(colorizeExample(datum, tok)).toContain('\u001b[32m🙂🙂<|eot_id|>\u001b[0m');
    expect(formatColorized(tok.encode('a b c'), [1, -1, 0], tok, { plain: true })).toBe('[+a][- b][0 c]');
  });
});
