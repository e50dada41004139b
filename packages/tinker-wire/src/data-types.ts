/**
 * The protocol's data types (tinker-api.md §3): model inputs and their chunks, tensors, datums, and the parameter
 * objects of training and sampling (AdamParams, LoraConfig, SamplingParams).
 *
 * **The rule for absent fields.** Official Python SDKs serialise requests with pydantic; depending on the version
 * they leave out every field that holds its default (`exclude_unset`) or only the nulls (`exclude_none`). A request
 * schema therefore treats an absent field exactly like the SDK default it stands for, field by field:
 *
 * | object | field | absent means |
 * |---|---|---|
 * | chunk | `type` | inferred from the fields present: `tokens: [int]` → `encoded_text`, `location` → `image_asset_pointer`, `data` → `image`, `dmel` → `dmel` |
 * | Datum | `loss_fn_inputs` | `{}` |
 * | TensorData | `dtype` | by key as the SDK converts plain lists (`target_tokens` → int64; `weights`, `advantages`, `logprobs`, `clip_low_threshold`, `clip_high_threshold` → float32), else int64 when every value is an integer, float32 otherwise |
 * | TensorData | `shape` | 1-D, `[data.length]` |
 * | ForwardBackwardInput | `loss_fn_config` | none (the loss's own defaults) |
 * | SamplingParams | every field | `max_tokens`: the server's bound, `seed`: random, `stop`: the model's EOS, `temperature` 1, `top_k` −1, `top_p` 1 |
 * | AdamParams | every field | the SDK's default for it, as {@link AdamParamsSchema} declares it |
 * | LoraConfig | every field but `rank` | `seed` random, `train_unembed` / `train_mlp` / `train_attn` true |
 * | requests | `type`, `overwrite`, `optimizer`, `num_samples`, `topk_prompt_logprobs`, `allow_metadata_only`, `tags` | their literal / false / false / 1 / 0 / false / [] |
 *
 * A `null` is read as absent everywhere (`exclude_none`); unknown fields are ignored (a newer SDK may add some).
 * What the protocol forbids is still refused: wrong types, a chunk `type` that names no chunk kind, a dtype other
 * than int64 / float32, negative token ids, `top_p` outside (0, 1], a `rank` that is not a positive integer, …
 * Bounds that depend on the server (how many samples, how long a context) are the service's, not the protocol's.
 */
import { z } from 'zod';
import { LOSS_INPUT_DTYPES, LossFnTypeSchema } from './losses.js';

/** Treat `null` like an absent field (the SDK leaves nulls out, other clients may send them). */
export function opt<T extends z.ZodType>(schema: T) {
  return z.preprocess((v) => (v === null ? undefined : v), schema.optional());
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const NUMBER_KINDS = {
  string: { ok: (x: unknown) => typeof x === 'string', what: 'a string' },
  number: { ok: (x: unknown) => typeof x === 'number' && Number.isFinite(x), what: 'a finite number' },
  int: { ok: (x: unknown) => Number.isSafeInteger(x), what: 'an integer' },
  nonnegativeInt: { ok: (x: unknown) => Number.isSafeInteger(x) && (x as number) >= 0, what: 'a non-negative integer' },
} as const;

/**
 * A list of numbers, checked in one pass that stops at the first bad element (one issue, naming its index and
 * value). `z.array(z.number())` reports every bad element: a million-element list of strings made a million issues
 * (hundreds of MB, and a stack overflow while they were collected) from a 4 MB body.
 */
export function numberList(kind: Exclude<keyof typeof NUMBER_KINDS, 'string'> = 'number') {
  return checkedList<number>(kind);
}

/** A list of strings, checked like {@link numberList}: the first bad element is the one issue. */
export function stringList() {
  return checkedList<string>('string');
}

function checkedList<T>(kind: keyof typeof NUMBER_KINDS) {
  const { ok, what } = NUMBER_KINDS[kind];
  return z
    .custom<T[]>((v) => Array.isArray(v), { message: 'Invalid input: expected array' })
    .superRefine((v, ctx) => {
      for (let i = 0; i < v.length; i++) {
        if (ok(v[i])) continue;
        const x = v[i];
        const shown = typeof x === 'number' ? String(x) : (JSON.stringify(x) ?? String(x));
        ctx.addIssue({
          code: 'custom',
          path: [i],
          message: `expected ${what}, got ${shown.length > 40 ? `${shown.slice(0, 40)}…` : shown}`,
        });
        return;
      }
    });
}

// ---------------------------------------------------------------- chunks and model inputs (§3.1)

export const EncodedTextChunkSchema = z.object({
  type: z.literal('encoded_text'),
  tokens: numberList('int'),
});

export const ImageChunkSchema = z.object({
  type: z.literal('image'),
  data: z.string(),
  format: z.enum(['png', 'jpeg']),
  expected_tokens: opt(z.number().int().nonnegative()),
  height: opt(z.number().int().nonnegative()),
  width: opt(z.number().int().nonnegative()),
  tokens: opt(z.number().int().nonnegative()),
});

export const ImageAssetPointerChunkSchema = z.object({
  type: z.literal('image_asset_pointer'),
  format: z.enum(['png', 'jpeg']),
  location: z.string(),
  expected_tokens: opt(z.number().int().nonnegative()),
});

export const DmelChunkSchema = z.object({ type: z.literal('dmel'), dmel: z.string() });

/** The chunk kind a chunk without `type` is, from the fields it has (see the table above). */
export function inferChunkType(chunk: unknown): unknown {
  if (!isRecord(chunk) || (chunk.type !== undefined && chunk.type !== null)) return chunk;
  const type = Array.isArray(chunk.tokens)
    ? 'encoded_text'
    : chunk.location !== undefined
      ? 'image_asset_pointer'
      : chunk.data !== undefined
        ? 'image'
        : chunk.dmel !== undefined
          ? 'dmel'
          : 'encoded_text';
  return { ...chunk, type };
}

export const ModelInputChunkSchema = z.preprocess(
  inferChunkType,
  z.discriminatedUnion('type', [
    EncodedTextChunkSchema,
    ImageChunkSchema,
    ImageAssetPointerChunkSchema,
    DmelChunkSchema,
  ]),
);

export const ModelInputSchema = z.object({ chunks: z.array(ModelInputChunkSchema) });

// ---------------------------------------------------------------- tensors and datums (§3.2–3.3)

export const TensorDTypeSchema = z.enum(['int64', 'float32']);

/** The dtype the SDK gives a plain list under each loss input key (SDK `types/datum.py`), from the loss declaration. */
export const DTYPE_BY_KEY: Readonly<Record<string, 'int64' | 'float32'>> = LOSS_INPUT_DTYPES;

export const TensorDataSchema = z.object({
  data: numberList(),
  dtype: TensorDTypeSchema,
  shape: opt(numberList('nonnegativeInt')),
  sparse_crow_indices: opt(numberList('nonnegativeInt')),
  sparse_col_indices: opt(numberList('nonnegativeInt')),
});
export type WireTensorData = z.infer<typeof TensorDataSchema>;

/** Fills the `dtype` of loss inputs that left it out: by key, else by whether every value is an integer. */
function inferDtypes(inputs: unknown): unknown {
  if (!isRecord(inputs)) return inputs;
  const out: Record<string, unknown> = {};
  for (const [key, t] of Object.entries(inputs)) {
    if (isRecord(t) && (t.dtype === undefined || t.dtype === null) && Array.isArray(t.data)) {
      const byKey = DTYPE_BY_KEY[key];
      const integral = t.data.every((v) => typeof v === 'number' && Number.isInteger(v));
      out[key] = { ...t, dtype: byKey ?? (integral ? 'int64' : 'float32') };
    } else out[key] = t;
  }
  return out;
}

export const DatumSchema = z.object({
  model_input: ModelInputSchema,
  loss_fn_inputs: z.preprocess(
    (v) => (v === undefined || v === null ? {} : inferDtypes(v)),
    z.record(z.string(), TensorDataSchema),
  ),
});
export type WireDatum = z.infer<typeof DatumSchema>;

export const ForwardBackwardInputSchema = z.object({
  data: z.array(DatumSchema),
  loss_fn: LossFnTypeSchema,
  /** The SDK types values as float or str; the service says which keys and values a loss accepts. */
  loss_fn_config: opt(z.record(z.string(), z.union([z.number(), z.string()]))),
});
export type WireForwardBackwardInput = z.infer<typeof ForwardBackwardInputSchema>;

// ---------------------------------------------------------------- parameters (§3.8)

/**
 * AdamW's parameters: the one owner of their defaults (the official SDK's `AdamParams`) and bounds. The service checks
 * a request against this schema once, where it arrives; the client fills an absent field from
 * {@link ADAM_PARAMS_DEFAULTS}; the engine takes the resolved values and checks nothing again. (The cookbook's loops
 * send `eps` 1e-8, the upstream cookbook's setting, explicitly; 1e-12 is what a caller who leaves it out gets.)
 */
export const AdamParamsSchema = z.object({
  learning_rate: z.number().nonnegative().default(1e-4).describe('Step size'),
  beta1: z.number().min(0).lt(1).default(0.9).describe('Decay of the first moment (running mean of the gradient)'),
  beta2: z.number().min(0).lt(1).default(0.95).describe('Decay of the second moment (running mean of its square)'),
  eps: z.number().positive().default(1e-12).describe("Added to the second moment's square root in the denominator"),
  weight_decay: z
    .number()
    .nonnegative()
    .default(0)
    .describe('Decoupled weight decay: p −= learning_rate·weight_decay·p'),
  grad_clip_norm: z
    .number()
    .nonnegative()
    .default(0)
    .describe('Clip the global gradient norm to this value; 0 = no clipping'),
});
export type WireAdamParams = z.infer<typeof AdamParamsSchema>;

/** What each absent field of {@link AdamParamsSchema} means: its defaults, read from the schema. */
export const ADAM_PARAMS_DEFAULTS: Readonly<WireAdamParams> = Object.freeze(AdamParamsSchema.parse({}));

export const LoraConfigSchema = z
  .object({
    rank: z.number().int().positive(),
    seed: opt(z.number().int()),
    train_unembed: z.boolean().default(true),
    train_mlp: z.boolean().default(true),
    train_attn: z.boolean().default(true),
  })
  .refine((c) => c.train_unembed || c.train_mlp || c.train_attn, {
    message: 'at least one of train_unembed, train_mlp, train_attn must be true',
  });
export type WireLoraConfig = z.infer<typeof LoraConfigSchema>;

export const StopSchema = z.union([z.string(), stringList(), numberList('int')]);

export const SamplingParamsSchema = z.object({
  max_tokens: opt(z.number().int().nonnegative()),
  seed: opt(z.number().int()),
  stop: z.preprocess((v) => v, StopSchema.nullable().optional()),
  temperature: z.number().nonnegative().default(1),
  top_k: z.number().int().default(-1),
  top_p: z.number().gt(0).max(1).default(1),
});
export type WireSamplingParams = z.infer<typeof SamplingParamsSchema>;
