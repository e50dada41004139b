/**
 * Datum construction with upstream's shift-by-one layout (`supervised/common.py: datum_from_model_input_weights`).
 */
import { DataError } from './errors.js';
import { ModelInput, type ModelInputChunk, type ModelInputJSON } from './model-input.js';
import { type TensorData, tensorFromFloat32, tensorFromInt64, tensorShape, tensorToNumbers } from './tensor-data.js';

/** One training example: the model input and the loss function's per-position inputs. */
export interface Datum {
  modelInput: ModelInput;
  lossFnInputs: Record<string, TensorData>;
}

/** The JSON form of a datum. */
export interface DatumJSON {
  model_input: ModelInputJSON;
  loss_fn_inputs: Record<string, TensorData>;
}

/** The wire form of a datum. */
export function datumToJSON(datum: Datum): DatumJSON {
  return { model_input: datum.modelInput.toJSON(), loss_fn_inputs: datum.lossFnInputs };
}

/** A datum from its wire form. */
export function datumFromJSON(json: DatumJSON): Datum {
  return { modelInput: ModelInput.fromJSON(json.model_input), lossFnInputs: json.loss_fn_inputs };
}

/** How per-example weights are normalised: `mean` divides by their sum, `none` keeps them. */
export type WeightReduction = 'none' | 'mean';

/**
 * Build a cross-entropy datum from a full sequence and per-token weights.
 * The input is every token but the last; the targets are every token but the first; the weight of
 * target i is the weight of token i+1. With `maxLength`, the sequence is first truncated from the end.
 */
export function datumFromModelInputWeights(
  modelInput: ModelInput,
  weights: ArrayLike<number>,
  maxLength?: number,
  reduction: WeightReduction = 'none',
): Datum {
  if (weights.length !== modelInput.length) {
    throw new DataError(`weights has length ${weights.length} but the model input has ${modelInput.length} tokens`, {
      field: 'weights',
    });
  }
  let chunks: ModelInputChunk[] = modelInput.chunks.map((c) => c);
  let total = modelInput.length;
  if (maxLength !== undefined && total > maxLength) {
    while (chunks.length > 0 && total > maxLength) {
      const last = chunks[chunks.length - 1]!;
      const len = last.type === 'encoded_text' ? last.tokens.length : (last.expected_tokens ?? 0);
      if (last.type === 'encoded_text' && total - len < maxLength) {
        const keep = len - (total - maxLength);
        chunks = [...chunks.slice(0, -1), { type: 'encoded_text', tokens: last.tokens.slice(0, keep) }];
        total = maxLength;
      } else {
        chunks = chunks.slice(0, -1);
        total -= len;
      }
    }
  }
  chunks = chunks.filter((c) => !(c.type === 'encoded_text' && c.tokens.length === 0));
  while (chunks.length > 0 && chunks[chunks.length - 1]!.type !== 'encoded_text') chunks = chunks.slice(0, -1);
  const full = new ModelInput(chunks);
  const n = full.length;
  if (n < 2) throw new DataError(`a datum needs at least 2 tokens, got ${n}`, { field: 'model_input' });

  // Targets: all tokens but the first; image positions target 0.
  const allTokens: number[] = [];
  for (const c of chunks) {
    if (c.type === 'encoded_text') allTokens.push(...c.tokens);
    else for (let i = 0; i < (c.expected_tokens ?? 0); i++) allTokens.push(0);
  }
  const targets = allTokens.slice(1);
  const last = chunks[chunks.length - 1] as { type: 'encoded_text'; tokens: number[] };
  const inputChunks: ModelInputChunk[] = [
    ...chunks.slice(0, -1),
    { type: 'encoded_text' as const, tokens: last.tokens.slice(0, -1) },
  ].filter((c) => !(c.type === 'encoded_text' && c.tokens.length === 0));
  const w = Array.from(weights).slice(1, 1 + targets.length);
  if (reduction === 'mean') {
    const sum = w.reduce((a, b) => a + b, 0);
    if (sum > 0) for (let i = 0; i < w.length; i++) w[i] = w[i]! / sum;
  }
  return {
    modelInput: new ModelInput(inputChunks),
    lossFnInputs: { weights: tensorFromFloat32(w), target_tokens: tensorFromInt64(targets) },
  };
}

/** {@link datumFromModelInputWeights} for a plain token list. */
export function datumFromTokensWeights(
  tokens: ArrayLike<number>,
  weights: ArrayLike<number>,
  maxLength?: number,
  reduction: WeightReduction = 'none',
): Datum {
  return datumFromModelInputWeights(ModelInput.fromInts(Array.from(tokens)), weights, maxLength, reduction);
}

/** Check that every loss_fn_inputs tensor has leading length equal to the model input's length. */
export function validateDatum(datum: Datum, index = 0): void {
  const n = datum.modelInput.length;
  for (const [key, t] of Object.entries(datum.lossFnInputs)) {
    const shape = tensorShape(t);
    if (shape[0] !== n) {
      throw new DataError(`loss_fn_inputs.${key} has leading length ${shape[0]} but model_input has ${n} tokens`, {
        field: `data[${index}].loss_fn_inputs.${key}`,
      });
    }
  }
}

/** A numeric `loss_fn_inputs` tensor of a datum as plain numbers; a DataError names the missing key. */
export function lossInput(datum: Datum, key: string): number[] {
  const t = datum.lossFnInputs[key];
  if (t === undefined) throw new DataError(`datum has no loss_fn_inputs.${key}`, { field: `loss_fn_inputs.${key}` });
  return tensorToNumbers(t);
}

/**
 * The full token sequence of a shift-by-one datum: its input followed by the last target (what a sampler scores to
 * get the logprob of every target token, e.g. a KL or DPO reference).
 */
export function datumFullSequence(datum: Datum): ModelInput {
  const targets = lossInput(datum, 'target_tokens');
  const last = targets[targets.length - 1];
  return last === undefined ? datum.modelInput : datum.modelInput.appendInt(last);
}
