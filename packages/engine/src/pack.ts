// A batch of datums through the decoder: validated and prepared, concatenated into packs of up to PACK_TOKENS rows
// (attention stays inside each datum), run forward (and backward) pack by pack. Shared by the LoRA and the
// full-parameter trainers, so both see the same losses, logprobs and metrics.
import type { LossFnType } from '@cookbook/tinker-wire';
import type { BaseGrads } from './base-grads.js';
import { EngineInputError } from './errors.js';
import type { LoraWeights } from './lora.js';
import { type EngineDatum, type EngineTensor, prepareDatum, resolveLossConfig, segmentLoss } from './losses.js';
import type { BaseModel } from './model/base-model.js';
import type { TrainWorkspace } from './train-workspace.js';
import { forwardBackwardPack, type PackSegment, type SegmentLoss } from './transformer.js';

/** Result of a forward(-backward) over a batch. */
export interface ForwardBackwardResult {
  /** Per datum, in order: `logprobs` of shape (N) or (N, K). */
  lossFnOutputs: Record<string, EngineTensor>[];
  /** `loss:sum` and `tokens:sum`. */
  metrics: Record<string, number>;
}

/** Rows per pack: datums are concatenated (attention stays inside each datum) up to this many tokens. */
const PACK_TOKENS = 2048;

/**
 * Computes target logprobs and the summed loss over `data`; with `backward`, adds the gradients into the LoRA
 * weights' buffer (and into `G` when given). Throws EngineInputError on bad input before touching any gradient.
 */
export function forwardBackwardData(
  base: BaseModel,
  lora: LoraWeights | null,
  ws: TrainWorkspace,
  data: EngineDatum[],
  lossFn: LossFnType | string,
  lossFnConfig: Record<string, number> | undefined,
  backward: boolean,
  G: BaseGrads | null = null,
): ForwardBackwardResult {
  const cfg = resolveLossConfig(lossFn, lossFnConfig);
  const name = lossFn as LossFnType;
  if (data.length === 0) throw new EngineInputError('forward_backward needs at least one datum');
  const prepared = data.map((d, i) => prepareDatum(d, i, name, base.vocabSize, base.maxContextLength));
  const losses = prepared.map((p) => segmentLoss(name, cfg, p));
  let loss = 0;
  let tokens = 0;
  for (let i = 0; i < prepared.length; ) {
    let T = 0;
    const segs: PackSegment[] = [];
    const segLosses: SegmentLoss[] = [];
    const first = i;
    while (i < prepared.length && (i === first || T + prepared[i]!.N <= PACK_TOKENS)) {
      segs.push({ start: T, length: prepared[i]!.N });
      segLosses.push(losses[i]!);
      T += prepared[i]!.N;
      i++;
    }
    const tok = new Int32Array(T);
    const pos = new Int32Array(T);
    for (let j = 0; j < segs.length; j++) {
      const s = segs[j]!;
      tok.set(prepared[first + j]!.tokens, s.start);
      for (let r = 0; r < s.length; r++) pos[s.start + r] = r;
    }
    loss += forwardBackwardPack(base, lora, ws, tok, pos, segs, segLosses, backward, G);
    tokens += T;
  }
  return {
    lossFnOutputs: prepared.map((p, i) => ({
      logprobs: { data: losses[i]!.logprobs, shape: p.K > 1 ? [p.N, p.K] : [p.N], dtype: 'float32' },
    })),
    metrics: { 'loss:sum': loss, 'tokens:sum': tokens },
  };
}
