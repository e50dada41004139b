// Shapes the engine's benches share: the SmolLM2-135M shape (random weights) and a cross-entropy datum over it.
import type { EngineDatum, ModelConfig } from '../src/index.js';

/** SmolLM2-135M's shape (Llama architecture, tied embeddings). */
export const SMOL_135M: ModelConfig = {
  arch: 'llama',
  vocabSize: 49152,
  hiddenSize: 576,
  intermediateSize: 1536,
  numLayers: 30,
  numHeads: 9,
  numKvHeads: 3,
  headDim: 64,
  rmsNormEps: 1e-5,
  ropeTheta: 100000,
  ropeScaling: null,
  tieWordEmbeddings: true,
  maxPositionEmbeddings: 8192,
  bosTokenId: 1,
  eosTokenIds: [2],
};

/** A cross-entropy datum of `n` tokens over a vocabulary of `V` (a fixed, spread-out token sequence). */
export function ceDatum(n: number, V: number): EngineDatum {
  const toks = Array.from({ length: n + 1 }, (_, i) => (i * 7919 + 13) % V);
  return { tokens: toks.slice(0, -1), lossFnInputs: { target_tokens: { data: toks.slice(1), dtype: 'int64' } } };
}
