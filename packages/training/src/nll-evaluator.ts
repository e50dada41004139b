/**
 * Held-out negative log-likelihood (upstream `supervised/nll_evaluator.py`, `supervised/common.py:
 * compute_mean_nll`) and bits per byte: the NLL of the weighted target tokens in bits, divided by the UTF-8 bytes
 * those tokens decode to, so models with different tokenizers compare.
 */
import { type Datum, type TensorData, tensorToNumbers } from '@cookbook/core';
import { deferred } from '@cookbook/logging';
import type { EvalContext, EvalTrainingClient, TrainingClientEvaluator } from './evaluator.js';

/**
 * Mean negative log-likelihood over a batch: −Σ(logprob·weight) / Σweight, NaN when every weight is 0.
 * `logprobs[i]` and `weights[i]` belong to datum i and have the same length.
 */
export function computeMeanNll(
  logprobs: readonly (TensorData | ArrayLike<number>)[],
  weights: readonly (TensorData | ArrayLike<number>)[],
): number {
  let num = 0;
  let den = 0;
  for (let i = 0; i < logprobs.length; i++) {
    const lp = asNumbers(logprobs[i]!);
    const w = asNumbers(weights[i] ?? []);
    const n = Math.min(lp.length, w.length);
    for (let j = 0; j < n; j++) {
      num += lp[j]! * w[j]!;
      den += w[j]!;
    }
  }
  return den > 0 ? -num / den : Number.NaN;
}

function asNumbers(x: TensorData | ArrayLike<number>): ArrayLike<number> {
  return 'dtype' in x && 'data' in x && !Array.isArray(x) ? tensorToNumbers(x as TensorData) : (x as ArrayLike<number>);
}

/** The weights of a datum's `weights` input as numbers (empty when it has none). */
export function datumWeights(datum: Datum): number[] {
  const w = datum.lossFnInputs.weights;
  return w === undefined ? [] : tensorToNumbers(w);
}

/** The target tokens of a datum (empty when it has none). */
export function datumTargetTokens(datum: Datum): number[] {
  const t = datum.lossFnInputs.target_tokens;
  return t === undefined ? [] : tensorToNumbers(t);
}

/** What bits per byte needs of a tokenizer. */
export interface ByteCountingTokenizer {
  decode(tokens: readonly number[]): string;
}

/** Totals behind {@link bitsPerByte}: nats over the scored tokens and the UTF-8 bytes they decode to. */
export interface NllTotals {
  /** −Σ logprob over target tokens with weight > 0. */
  nats: number;
  /** Target tokens with weight > 0. */
  tokens: number;
  /** UTF-8 bytes of those tokens (each maximal run of scored tokens decoded at once, so multi-byte text counts once). */
  bytes: number;
}

/**
 * NLL totals of one datum: every target token with a positive weight counts once (whatever its weight, so a
 * mean-reduced datum and a 0/1-weighted one give the same totals).
 */
export function nllTotals(
  logprobs: TensorData | ArrayLike<number>,
  datum: Datum,
  tokenizer: ByteCountingTokenizer,
): NllTotals {
  const lp = asNumbers(logprobs);
  const w = datumWeights(datum);
  const targets = datumTargetTokens(datum);
  const n = Math.min(lp.length, w.length, targets.length);
  let nats = 0;
  let tokens = 0;
  let bytes = 0;
  let run: number[] = [];
  const flush = () => {
    if (run.length > 0) bytes += Buffer.byteLength(tokenizer.decode(run), 'utf8');
    run = [];
  };
  for (let j = 0; j < n; j++) {
    if (w[j]! > 0) {
      nats -= lp[j]!;
      tokens++;
      run.push(targets[j]!);
    } else {
      flush();
    }
  }
  flush();
  return { nats, tokens, bytes };
}

/** Bits per byte of `totals`: nats / (ln 2 · bytes); NaN when no byte was scored. */
export function bitsPerByte(totals: Pick<NllTotals, 'nats' | 'bytes'>): number {
  return totals.bytes > 0 ? totals.nats / (Math.LN2 * totals.bytes) : Number.NaN;
}

/** Batches of datums: a list, or anything with `length` and `getBatch` (a supervised dataset fits). */
export interface DatumBatches {
  readonly length: number;
  getBatch(index: number): Datum[];
}

/**
 * Mean NLL of held-out data under the current weights, via `forward` (no gradients). Reports `<name>/nll` and,
 * given a tokenizer, `<name>/bpb` (bits per byte).
 */
export class NLLEvaluator implements TrainingClientEvaluator {
  readonly kind = 'training_client' as const;
  readonly name: string;
  private readonly tokenizer: ByteCountingTokenizer | undefined;
  private readonly batches: () => Datum[][];

  /**
   * @param data a dataset (every batch is evaluated) or a list of datums (one batch).
   * @param tokenizer decodes target tokens to count bytes for `<name>/bpb`; without it only `<name>/nll`.
   */
  constructor(data: DatumBatches | readonly Datum[], name = 'test', tokenizer?: ByteCountingTokenizer) {
    this.name = name;
    this.tokenizer = tokenizer;
    if (Array.isArray(data)) {
      const datums = [...(data as readonly Datum[])];
      this.batches = () => [datums];
    } else {
      const ds = data as DatumBatches;
      let cached: Datum[][] | undefined;
      this.batches = () => {
        cached ??= Array.from({ length: ds.length }, (_, i) => ds.getBatch(i));
        return cached;
      };
    }
  }

  async evaluate(client: EvalTrainingClient, _ctx?: EvalContext): Promise<Record<string, number>> {
    const batches = this.batches();
    // Submit every batch before awaiting any, so the service pipelines them.
    const futures = batches.map((b) => deferred(client.forward(b, 'cross_entropy')));
    const logprobs: (TensorData | number[])[] = [];
    const weights: number[][] = [];
    let nats = 0;
    let bytes = 0;
    for (const [i, f] of futures.entries()) {
      const out = await f;
      for (const [j, d] of batches[i]!.entries()) {
        const lp = out.lossFnOutputs[j]?.logprobs;
        if (lp === undefined) continue;
        logprobs.push(lp);
        weights.push(datumWeights(d));
        if (this.tokenizer !== undefined) {
          const t = nllTotals(lp, d, this.tokenizer);
          nats += t.nats;
          bytes += t.bytes;
        }
      }
    }
    const metrics: Record<string, number> = { [`${this.name}/nll`]: computeMeanNll(logprobs, weights) };
    if (this.tokenizer !== undefined) metrics[`${this.name}/bpb`] = bitsPerByte({ nats, bytes });
    return metrics;
  }
}
