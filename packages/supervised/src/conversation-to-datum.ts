/**
 * Conversations to training datums (upstream `supervised/data.py: conversation_to_datum`) and the NLL metric
 * (`supervised/common.py: compute_mean_nll`).
 */
import {
  type Datum,
  datumFromModelInputWeights,
  type Message,
  type TensorData,
  tensorToNumbers,
  type WeightReduction,
} from '@cookbook/core';
import { type Renderer, TrainOnWhat } from '@cookbook/renderers';

/**
 * Render `messages` with `renderer` and build a cross-entropy datum: inputs are all tokens but the last, targets all
 * but the first, weights follow `trainOnWhat`. With `maxLength`, the sequence is cut from the end first. `reduction`
 * `mean` (the SFT default) scales each example's weights to sum to 1; `none` keeps 0/1 weights.
 */
export function conversationToDatum(
  messages: readonly Message[],
  renderer: Renderer,
  maxLength?: number | null,
  trainOnWhat: TrainOnWhat = TrainOnWhat.ALL_ASSISTANT_MESSAGES,
  reduction: WeightReduction = 'mean',
): Datum {
  const { modelInput, weights } = renderer.buildSupervisedExample(messages, trainOnWhat);
  return datumFromModelInputWeights(modelInput, weights, maxLength ?? undefined, reduction);
}

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
