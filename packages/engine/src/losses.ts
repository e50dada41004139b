// The built-in Tinker losses (tinker-api.md §4), applied per token and summed over tokens and datums, with input
// validation. Which losses exist, what inputs and config each takes, is declared once, in the wire's
// BUILTIN_LOSSES; here each one is implemented as its value and ∂L/∂lp per token (the model turns ∂L/∂lp into
// LoRA gradients), in a table the compiler requires to hold every declared loss.
import {
  BUILTIN_LOSSES,
  LOSS_FN_NAMES,
  LOSS_INPUT_DTYPES,
  type LossFnType,
  type LossInputKey,
} from '@cookbook/tinker-wire';
import { EngineInputError } from './errors.js';
import type { SegmentLoss } from './transformer.js';

/** Values of a tensor: numbers or int64 as bigints. */
export type TensorValues =
  | number[]
  | bigint[]
  | Float32Array
  | Float64Array
  | Int32Array
  | Uint32Array
  | BigInt64Array
  | BigUint64Array;

/** A dense row-major tensor (the engine-side form of Tinker's TensorData). */
export interface EngineTensor {
  data: TensorValues;
  /** Dimensions; omitted = 1-D of data.length. */
  shape?: number[];
  dtype: 'int64' | 'float32';
}

/** One training example: model input tokens (length N) and per-position loss inputs of leading length N. */
export interface EngineDatum {
  tokens: Int32Array | number[];
  lossFnInputs: Record<string, EngineTensor>;
}

/** The loss_fn_inputs keys `lossFn` cannot do without. */
export function requiredLossInputs(lossFn: LossFnType): readonly string[] {
  return BUILTIN_LOSSES[lossFn].required;
}

/** Checks the loss name and config keys; returns the config with defaults filled in. */
export function resolveLossConfig(lossFn: string, cfg: Record<string, number> | undefined): Record<string, number> {
  if (!Object.hasOwn(BUILTIN_LOSSES, lossFn)) {
    throw new EngineInputError(`unknown loss_fn "${lossFn}"; expected one of ${LOSS_FN_NAMES.join(', ')}`);
  }
  const defaults: Readonly<Record<string, number | null>> = BUILTIN_LOSSES[lossFn as LossFnType].config;
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(cfg ?? {})) {
    if (!Object.hasOwn(defaults, k)) {
      const allowed = Object.keys(defaults);
      throw new EngineInputError(
        `loss_fn_config key "${k}" is not accepted by ${lossFn} (${allowed.length ? `allowed: ${allowed.join(', ')}` : 'it takes no config'})`,
      );
    }
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      throw new EngineInputError(`loss_fn_config.${k} must be a finite number, got ${String(v)}`);
    }
    out[k] = v;
  }
  for (const [k, d] of Object.entries(defaults)) {
    if (out[k] !== undefined) continue;
    if (d === null) throw new EngineInputError(`${lossFn} requires loss_fn_config.${k}`);
    out[k] = d;
  }
  return out;
}

/** The largest finite float32. */
const FLOAT32_MAX = 3.4028234663852886e38;

/** The values as f64, each finite and representable in the tensor's dtype (a float32 beyond ±FLOAT32_MAX is ∞). */
function values(t: EngineTensor, name: string, where: string): Float64Array {
  const d = t.data;
  const bound = t.dtype === 'float32' ? FLOAT32_MAX : Number.MAX_SAFE_INTEGER;
  const out = new Float64Array(d.length);
  for (let i = 0; i < d.length; i++) {
    const v = Number(d[i]);
    if (!(Math.abs(v) <= bound)) {
      throw new EngineInputError(
        `${where}.loss_fn_inputs.${name}.data[${i}] = ${v}: ${t.dtype === 'int64' ? 'an' : 'a'} ${t.dtype} value must be finite and within ±${bound}`,
      );
    }
    out[i] = v;
  }
  return out;
}

function shapeOf(t: EngineTensor, name: string, where: string): number[] {
  const shape = t.shape ?? [t.data.length];
  const n = shape.reduce((a, b) => a * b, 1);
  if (n !== t.data.length) {
    throw new EngineInputError(`${where}: ${name} has shape [${shape}] (${n} values) but ${t.data.length} values`);
  }
  return shape;
}

/** A datum after validation: typed arrays, K targets per row, its other loss inputs widened to f64. */
export interface PreparedDatum {
  tokens: Int32Array;
  N: number;
  K: number;
  targets: Int32Array;
  /**
   * Each loss input the datum carries but `target_tokens`, by key: `weights` shaped like the targets (N·K), every
   * other one a value per row (N).
   */
  inputs: Partial<Record<Exclude<LossInputKey, 'target_tokens'>, Float64Array>>;
}

/** Validates one datum for `lossFn` against the model's vocabulary and context length. */
export function prepareDatum(
  d: EngineDatum,
  index: number,
  lossFn: LossFnType,
  vocabSize: number,
  maxLen: number,
): PreparedDatum {
  const where = `data[${index}]`;
  const N = d.tokens.length;
  if (N === 0) throw new EngineInputError(`${where}.model_input is empty`);
  if (N > maxLen) {
    throw new EngineInputError(`${where}.model_input has ${N} tokens, more than the context length ${maxLen}`);
  }
  const tokens = Int32Array.from(d.tokens);
  for (let i = 0; i < N; i++) {
    const t = Number(d.tokens[i]);
    if (!Number.isInteger(t) || t < 0 || t >= vocabSize) {
      throw new EngineInputError(`${where}.model_input: token id ${t} is outside the vocabulary [0, ${vocabSize})`);
    }
  }
  const spec = BUILTIN_LOSSES[lossFn];
  const accepted: readonly LossInputKey[] = [...spec.required, ...spec.optional];
  for (const k of Object.keys(d.lossFnInputs)) {
    if (!accepted.includes(k as LossInputKey)) {
      throw new EngineInputError(
        `${where}.loss_fn_inputs.${k} is not accepted by the ${lossFn} loss (it takes ${accepted.join(', ')})`,
      );
    }
  }
  for (const k of spec.required) {
    if (!d.lossFnInputs[k])
      throw new EngineInputError(`${where}.loss_fn_inputs.${k} is required by the ${lossFn} loss`);
  }
  const tt = d.lossFnInputs.target_tokens!;
  const tshape = shapeOf(tt, 'target_tokens', where);
  if (tshape[0] !== N) {
    throw new EngineInputError(
      `${where}.loss_fn_inputs.target_tokens has leading length ${tshape[0]} but model_input has ${N} tokens`,
    );
  }
  if (tshape.length > 2 || (tshape.length === 2 && !spec.topKTargets)) {
    throw new EngineInputError(
      `${where}: target_tokens has shape [${tshape}], expected [${N}]${spec.topKTargets ? ` or [${N}, K]` : ''} (N = model_input length)`,
    );
  }
  const K = tshape.length === 2 ? tshape[1]! : 1;
  if (K < 1) throw new EngineInputError(`${where}: target_tokens has an empty second dimension`);
  const tv = values(tt, 'target_tokens', where);
  const targets = new Int32Array(tv.length);
  for (let i = 0; i < tv.length; i++) {
    const t = tv[i]!;
    if (!Number.isInteger(t) || t < 0 || t >= vocabSize) {
      throw new EngineInputError(
        `${where}.loss_fn_inputs.target_tokens: token id ${t} is outside the vocabulary [0, ${vocabSize})`,
      );
    }
    targets[i] = t;
  }
  const inputs: PreparedDatum['inputs'] = {};
  for (const name of Object.keys(LOSS_INPUT_DTYPES) as LossInputKey[]) {
    const t = d.lossFnInputs[name];
    if (name === 'target_tokens' || !t || !accepted.includes(name)) continue;
    const shape = shapeOf(t, name, where);
    const want = name === 'weights' && K > 1 ? [N, K] : [N];
    if (shape.length !== want.length || shape.some((s, i) => s !== want[i])) {
      throw new EngineInputError(`${where}: ${name} has shape [${shape}], expected [${want}] like target_tokens`);
    }
    inputs[name] = values(t, name, where);
  }
  return { tokens, N, K, targets, inputs };
}

/** The loss of rows [r0, r0 + n) of one datum given their lp; writes dlp = ∂L/∂lp and returns the summed loss. */
type LossRows = SegmentLoss['rows'];

/**
 * Each built-in loss's rows over a prepared datum and its resolved config (see {@link resolveLossConfig}). Notation
 * as in tinker-api.md §4: lp the learner's logprob, q the sampler's (`logprobs`), A `advantages`, w `weights`,
 * r = exp(lp − q); a clip bound given per token as an input overrides the config's.
 */
const IMPLEMENTATIONS: { readonly [L in LossFnType]: (d: PreparedDatum, cfg: Record<string, number>) => LossRows } = {
  cross_entropy: (d) => {
    const { K } = d;
    const w = d.inputs.weights;
    return (r0, n, lp, dlp) => {
      let s = 0;
      for (let i = 0; i < n * K; i++) {
        const wi = w ? w[r0 * K + i]! : 1;
        s -= lp[i]! * wi;
        dlp[i] = -wi;
      }
      return s;
    };
  },
  importance_sampling: (d) => {
    const { weights: w, logprobs: q, advantages: adv } = d.inputs;
    return (r0, n, lp, dlp) => {
      let s = 0;
      for (let i = 0; i < n; i++) {
        const j = r0 + i;
        const wi = w ? w[j]! : 1;
        const r = Math.exp(lp[i]! - q![j]!);
        s -= wi * r * adv![j]!;
        dlp[i] = -wi * r * adv![j]!;
      }
      return s;
    };
  },
  ppo: (d, cfg) => {
    const {
      weights: w,
      logprobs: q,
      advantages: adv,
      clip_low_threshold: clipLow,
      clip_high_threshold: clipHigh,
    } = d.inputs;
    const lo = cfg.clip_low_threshold!;
    const hi = cfg.clip_high_threshold!;
    return (r0, n, lp, dlp) => {
      let s = 0;
      for (let i = 0; i < n; i++) {
        const j = r0 + i;
        const wi = w ? w[j]! : 1;
        const a = adv![j]!;
        const l = clipLow ? clipLow[j]! : lo;
        const h = clipHigh ? clipHigh[j]! : hi;
        const r = Math.exp(lp[i]! - q![j]!);
        const rc = Math.min(Math.max(r, l), h);
        const unclipped = r * a;
        const clipped = rc * a;
        // min(r·A, clip(r)·A): the gradient flows through r unless the clipped branch is active and clamped
        if (unclipped <= clipped) {
          s -= wi * unclipped;
          dlp[i] = -wi * unclipped;
        } else {
          s -= wi * clipped;
          dlp[i] = r > l && r < h ? -wi * unclipped : 0;
        }
      }
      return s;
    };
  },
  cispo: (d, cfg) => {
    const {
      weights: w,
      logprobs: q,
      advantages: adv,
      clip_low_threshold: clipLow,
      clip_high_threshold: clipHigh,
    } = d.inputs;
    const lo = cfg.clip_low_threshold!;
    const hi = cfg.clip_high_threshold!;
    return (r0, n, lp, dlp) => {
      let s = 0;
      for (let i = 0; i < n; i++) {
        const j = r0 + i;
        const wi = w ? w[j]! : 1;
        const l = clipLow ? clipLow[j]! : lo;
        const h = clipHigh ? clipHigh[j]! : hi;
        const rc = Math.min(Math.max(Math.exp(lp[i]! - q![j]!), l), h);
        s -= wi * rc * lp[i]! * adv![j]!;
        dlp[i] = -wi * rc * adv![j]!;
      }
      return s;
    };
  },
  dro: (d, cfg) => {
    const { weights: w, logprobs: q, advantages: adv } = d.inputs;
    const beta = cfg.beta!;
    return (r0, n, lp, dlp) => {
      let s = 0;
      for (let i = 0; i < n; i++) {
        const j = r0 + i;
        const wi = w ? w[j]! : 1;
        const a = adv![j]!;
        const diff = lp[i]! - q![j]!;
        s -= wi * (lp[i]! * a - 0.5 * beta * diff * diff);
        dlp[i] = -wi * (a - beta * diff);
      }
      return s;
    };
  },
};

/** Builds the per-row loss of one datum. `logprobs` receives the learner's target logprobs. */
export function segmentLoss(lossFn: LossFnType, cfg: Record<string, number>, d: PreparedDatum): SegmentLoss {
  return { K: d.K, targets: d.targets, logprobs: new Float32Array(d.N * d.K), rows: IMPLEMENTATIONS[lossFn](d, cfg) };
}

/**
 * Validates a whole batch for `lossFn` against a model (vocabulary, context length, loss inputs and their shapes,
 * finite values, loss config) without running it: the one batch check, used by the model before every pass and by a
 * service that wants to refuse a bad request at submission. Messages name the wire fields (`data[i].…`).
 * @throws EngineInputError naming the datum, the field and the value.
 */
export function validateBatch(
  data: readonly EngineDatum[],
  lossFn: string,
  lossFnConfig: Record<string, number> | undefined,
  model: { vocabSize: number; maxContextLength: number },
): void {
  resolveLossConfig(lossFn, lossFnConfig);
  if (data.length === 0) throw new EngineInputError('forward_backward_input.data is empty');
  for (const [i, d] of data.entries())
    prepareDatum(d, i, lossFn as LossFnType, model.vocabSize, model.maxContextLength);
}
