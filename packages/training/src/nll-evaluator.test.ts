import { datumFromTokensWeights } from '@cookbook/core';
import type { ForwardBackwardOutput } from '@cookbook/tinker-client';
import { getTokenizer } from '@cookbook/tokenizers';
import { describe, expect, it } from 'vitest';
import type { EvalTrainingClient } from './evaluator.js';
import { bitsPerByte, computeMeanNll, NLLEvaluator, nllTotals } from './nll-evaluator.js';

describe('computeMeanNll', () => {
  it('is −Σ logprob·w / Σw over the batch, NaN without weight', () => {
    expect(computeMeanNll([[-1, -2], [-4]], [[1, 1], [2]])).toBeCloseTo((1 + 2 + 8) / 4);
    expect(computeMeanNll([[-1]], [[0]])).toBeNaN();
  });
});

describe('bits per byte', () => {
  const tok = getTokenizer('local/qwen3-tiny');

  it('counts nats of scored tokens and the UTF-8 bytes they decode to, whatever their weight', () => {
    const text = tok.encode('Paris é');
    // tokens = [x, ...text]; targets = text; weights 1 on the text.
    const d = datumFromTokensWeights([0, ...text], [0, ...text.map(() => 1)]);
    const lp = text.map(() => -Math.LN2); // one bit per token
    const t = nllTotals(lp, d, tok);
    expect(t.tokens).toBe(text.length);
    expect(t.bytes).toBe(Buffer.byteLength('Paris é', 'utf8')); // 8 bytes: é is two
    expect(bitsPerByte(t)).toBeCloseTo(text.length / 8);
    // Halved weights (mean reduction) score the same tokens.
    const half = datumFromTokensWeights([0, ...text], [0, ...text.map(() => 0.5)]);
    expect(nllTotals(lp, half, tok)).toEqual(t);
    expect(bitsPerByte({ nats: 0, bytes: 0 })).toBeNaN();
  });

  it('skips unweighted tokens between scored runs', () => {
    const a = tok.encode('ab');
    const b = tok.encode('cd');
    const tokens = [0, ...a, 5, ...b];
    const weights = [0, ...a.map(() => 1), 0, ...b.map(() => 1)];
    const d = datumFromTokensWeights(tokens, weights);
    const t = nllTotals(
      tokens.slice(1).map(() => -1),
      d,
      tok,
    );
    expect(t.tokens).toBe(a.length + b.length);
    expect(t.bytes).toBe(4);
    expect(t.nats).toBe(a.length + b.length);
  });
});

describe('NLLEvaluator', () => {
  it('reports <name>/nll and <name>/bpb from forward logprobs', async () => {
    const tok = getTokenizer('local/qwen3-tiny');
    const text = tok.encode('hello');
    const d = datumFromTokensWeights([0, ...text], [0, ...text.map(() => 1)]);
    const calls: string[] = [];
    const client: EvalTrainingClient = {
      forward: async (data, lossFn) => {
        calls.push(lossFn);
        const out: ForwardBackwardOutput = {
          lossFnOutputs: data.map((x) => ({
            logprobs: { data: Array.from({ length: x.modelInput.length }, () => -2), dtype: 'float32' as const },
          })),
          metrics: {},
          lossFnOutputType: 'cross_entropy',
        };
        return out;
      },
    };
    const ev = new NLLEvaluator([d, d], 'held', tok);
    const m = await ev.evaluate(client, { step: 0, logPath: '.' });
    expect(calls).toEqual(['cross_entropy']);
    expect(m['held/nll']).toBeCloseTo(2);
    expect(m['held/bpb']).toBeCloseTo((2 * text.length) / (Math.LN2 * 5));
    expect(Object.keys(await new NLLEvaluator([d]).evaluate(client))).toEqual(['test/nll']);
  });
});
