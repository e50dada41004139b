// A trainable LoRA model over a frozen base: forward/backward with the Tinker losses, AdamW, state files,
// PEFT adapter and merged-checkpoint export, and sampler snapshots.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LossFnType } from '@cookbook/tinker-wire';
import { type AdamParams, adamwStep } from './adamw.js';
import { CheckpointError } from './errors.js';
import { writeDirAtomic } from './fs-atomic.js';
import { sgemm } from './kernels/kernel.js';
import { type LoraSpec, LoraWeights, type ResolvedLoraSpec, resolveLoraSpec } from './lora.js';
import type { EngineDatum } from './losses.js';
import { type BaseModel, saveHfCheckpoint } from './model/base-model.js';
import { SafetensorsFile, writeSafetensors } from './model/safetensors.js';
import { allocWeights, hfTensors } from './model/weights.js';
import { type ForwardBackwardResult, forwardBackwardData } from './pack.js';
import type { SamplerOptions } from './sample-request.js';
import { Sampler } from './sampler.js';
import { TrainWorkspace } from './train-workspace.js';

const STATE_FORMAT = 'cookbook-engine-lora-state';

/** PEFT tensor key of an adapter matrix. */
function peftKey(path: string, which: 'A' | 'B'): string {
  return `base_model.model.${path}.lora_${which}.weight`;
}

/** A LoRA adapter being trained on a frozen base model. All methods are synchronous except file I/O. */
export class LoraModel {
  /** Number of optimizer steps taken. */
  step = 0;
  /** @internal */
  readonly lora: LoraWeights;
  private adamM: Float32Array;
  private adamV: Float32Array;
  private adamT = 0;
  private readonly ws: TrainWorkspace;

  constructor(
    readonly base: BaseModel,
    spec: LoraSpec,
  ) {
    this.lora = new LoraWeights(base.config, resolveLoraSpec(spec));
    this.adamM = new Float32Array(this.lora.params.length);
    this.adamV = new Float32Array(this.lora.params.length);
    this.ws = new TrainWorkspace(base);
  }

  /** The LoRA configuration with defaults filled in (alpha = 32 unless given). */
  get loraConfig(): ResolvedLoraSpec {
    return { ...this.lora.spec };
  }

  /**
   * Computes target logprobs and the summed loss over `data`; unless `opts.backward === false`, accumulates the
   * LoRA gradients (they add up across calls until {@link optimStep}). Throws EngineInputError on bad input
   * before touching any gradient.
   */
  forwardBackward(
    data: EngineDatum[],
    lossFn: LossFnType | string,
    lossFnConfig?: Record<string, number>,
    opts: { backward?: boolean } = {},
  ): ForwardBackwardResult {
    return forwardBackwardData(this.base, this.lora, this.ws, data, lossFn, lossFnConfig, opts.backward !== false);
  }

  /** Forward only: logprobs and loss, no gradient. */
  forward(data: EngineDatum[], lossFn: LossFnType | string, lossFnConfig?: Record<string, number>) {
    return this.forwardBackward(data, lossFn, lossFnConfig, { backward: false });
  }

  /** One AdamW step on the accumulated gradients, which are then zeroed. `adam` comes resolved (see AdamParams). */
  optimStep(adam: AdamParams): { metrics: Record<string, number> } {
    this.adamT++;
    this.step++;
    const { gradNorm } = adamwStep(this.lora.params, this.lora.grads, this.adamM, this.adamV, this.adamT, adam);
    return { metrics: { 'grad_norm:mean': gradNorm, 'learning_rate:mean': adam.learningRate, 'step:max': this.step } };
  }

  /** Discards accumulated gradients. */
  zeroGrad(): void {
    this.lora.grads.fill(0);
  }

  private namedParams(): { name: string; shape: number[]; data: Float32Array }[] {
    const out: { name: string; shape: number[]; data: Float32Array }[] = [];
    for (const m of this.lora.modules) {
      out.push({ name: peftKey(m.path, 'A'), shape: [m.adapter.rank, m.inFeatures], data: m.adapter.A_RI });
      out.push({ name: peftKey(m.path, 'B'), shape: [m.outFeatures, m.adapter.rank], data: m.adapter.B_OR });
    }
    return out;
  }

  /**
   * Saves the training state to folder `dir` (atomically): `lora_state.safetensors` (adapter, and with
   * `optimizer` (default true) the Adam moments) and `state.json` (config, step).
   */
  async saveState(dir: string, opts: { optimizer?: boolean } = {}): Promise<void> {
    const optimizer = opts.optimizer !== false;
    const tensors = [{ name: 'params', shape: [this.lora.params.length], data: this.lora.params }];
    if (optimizer) {
      tensors.push({ name: 'adam_m', shape: [this.adamM.length], data: this.adamM });
      tensors.push({ name: 'adam_v', shape: [this.adamV.length], data: this.adamV });
    }
    const meta = {
      format: STATE_FORMAT,
      version: 1,
      base_model: this.base.name,
      lora: this.lora.spec,
      step: this.step,
      adam_step: this.adamT,
      optimizer,
      num_params: this.lora.params.length,
    };
    await writeDirAtomic(dir, (tmp) => {
      writeSafetensors(join(tmp, 'lora_state.safetensors'), tensors);
      writeFileSync(join(tmp, 'state.json'), `${JSON.stringify(meta, null, 2)}\n`);
    });
  }

  /**
   * Loads a state written by {@link saveState}. With `optimizer` (default true) the Adam moments and step are
   * restored too (the folder must contain them); without, the moments restart from zero.
   */
  async loadState(dir: string, opts: { optimizer?: boolean } = {}): Promise<void> {
    const optimizer = opts.optimizer !== false;
    const metaFile = join(dir, 'state.json');
    if (!existsSync(metaFile)) throw new CheckpointError(`${dir} is not a training state (no state.json)`);
    const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as {
      format?: string;
      lora?: ResolvedLoraSpec;
      step?: number;
      adam_step?: number;
      optimizer?: boolean;
    };
    if (meta.format !== STATE_FORMAT) throw new CheckpointError(`${metaFile}: unknown format "${meta.format}"`);
    const s = this.lora.spec;
    const l = meta.lora;
    if (
      !l ||
      l.rank !== s.rank ||
      l.trainAttn !== s.trainAttn ||
      l.trainMlp !== s.trainMlp ||
      l.trainUnembed !== s.trainUnembed
    ) {
      throw new CheckpointError(
        `${dir}: LoRA config ${JSON.stringify(l)} does not match this model's ${JSON.stringify(s)}`,
      );
    }
    if (optimizer && !meta.optimizer) throw new CheckpointError(`${dir} was saved without optimizer state`);
    const f = SafetensorsFile.open(join(dir, 'lora_state.safetensors'));
    try {
      const params = f.read('params').data;
      if (params.length !== this.lora.params.length) {
        throw new CheckpointError(`${dir}: ${params.length} LoRA parameters, expected ${this.lora.params.length}`);
      }
      this.lora.params.set(params);
      this.lora.grads.fill(0);
      this.step = meta.step ?? 0;
      if (optimizer) {
        this.adamM.set(f.read('adam_m').data);
        this.adamV.set(f.read('adam_v').data);
        this.adamT = meta.adam_step ?? this.step;
      } else {
        this.adamM.fill(0);
        this.adamV.fill(0);
        this.adamT = 0;
      }
    } finally {
      f.close();
    }
  }

  /** Writes the adapter as a PEFT folder (adapter_config.json + adapter_model.safetensors), atomically. */
  async exportPeftAdapter(dir: string): Promise<void> {
    const s = this.lora.spec;
    const targets = [...new Set(this.lora.modules.map((m) => m.target))];
    const config = {
      peft_type: 'LORA',
      task_type: 'CAUSAL_LM',
      base_model_name_or_path: this.base.name,
      r: s.rank,
      lora_alpha: s.alpha,
      lora_dropout: 0,
      target_modules: targets,
      bias: 'none',
      fan_in_fan_out: false,
      inference_mode: true,
      modules_to_save: null,
    };
    await writeDirAtomic(dir, (tmp) => {
      writeFileSync(join(tmp, 'adapter_config.json'), `${JSON.stringify(config, null, 2)}\n`);
      writeSafetensors(join(tmp, 'adapter_model.safetensors'), this.namedParams(), { format: 'pt' });
      writeFileSync(join(tmp, 'cookbook_lora.json'), `${JSON.stringify({ seed: s.seed }, null, 2)}\n`);
    });
  }

  /** Sampler weights are a PEFT adapter folder; {@link loadSampler} turns one back into a Sampler. */
  async saveSamplerWeights(dir: string): Promise<void> {
    await this.exportPeftAdapter(dir);
  }

  /** A sampler over the base plus a snapshot of the current adapter (later training does not affect it). */
  sampler(opts?: SamplerOptions): Sampler {
    return new Sampler(this.base, this.lora.snapshot(), opts);
  }

  /** Writes base + scale·B·A merged into a full HF checkpoint (the head is untied if it carries an adapter). */
  async exportMerged(dir: string, opts: { dtype?: 'float32' | 'bfloat16' | 'float16' } = {}): Promise<void> {
    await saveMerged(this.base, this.lora, dir, opts.dtype);
  }
}

/** Creates a trainable LoRA adapter on `base` (A seeded by `lora.seed`, B zero, alpha 32 by default). */
export function createLoraModel(base: BaseModel, lora: LoraSpec): LoraModel {
  return new LoraModel(base, lora);
}

async function saveMerged(
  base: BaseModel,
  lora: LoraWeights,
  dir: string,
  dtype: 'float32' | 'bfloat16' | 'float16' = 'float32',
): Promise<void> {
  const untie = base.config.tieWordEmbeddings && lora.head !== null;
  const config = { ...base.config, tieWordEmbeddings: base.config.tieWordEmbeddings && !untie };
  const merged = allocWeights(config);
  const src = new Map(hfTensors(base.config, base.weights).map((t) => [t.name, t.data]));
  for (const t of hfTensors(config, merged)) {
    const from =
      t.name === 'lm_head.weight' && !src.has(t.name) ? src.get('model.embed_tokens.weight') : src.get(t.name);
    t.data.set(from!);
  }
  const byName = new Map(hfTensors(config, merged).map((t) => [t.name, t]));
  for (const m of lora.modules) {
    const t = byName.get(`${m.path}.weight`);
    if (!t) throw new CheckpointError(`merge: no base tensor for ${m.path}`);
    const a = m.adapter;
    sgemm(
      false,
      false,
      m.outFeatures,
      m.inFeatures,
      a.rank,
      a.scale,
      a.B_OR,
      a.rank,
      a.A_RI,
      m.inFeatures,
      1,
      t.data,
      m.inFeatures,
    );
  }
  const view = Object.create(base) as BaseModel;
  Object.defineProperty(view, 'config', { value: config });
  await saveHfCheckpoint(view, dir, { dtype }, merged);
}

/** Reads a PEFT adapter folder written by {@link LoraModel.exportPeftAdapter} into adapter weights for `base`. */
export function loadPeftAdapter(base: BaseModel, dir: string): LoraWeights {
  const cfgFile = join(dir, 'adapter_config.json');
  if (!existsSync(cfgFile)) throw new CheckpointError(`${dir} has no adapter_config.json`);
  const cfg = JSON.parse(readFileSync(cfgFile, 'utf8')) as {
    r?: number;
    lora_alpha?: number;
    target_modules?: string[];
  };
  const targets = new Set(cfg.target_modules ?? []);
  const attn = ['q_proj', 'k_proj', 'v_proj', 'o_proj'];
  const mlp = ['gate_proj', 'up_proj', 'down_proj'];
  const has = (l: string[]) => l.some((t) => targets.has(t));
  if ((has(attn) && !attn.every((t) => targets.has(t))) || (has(mlp) && !mlp.every((t) => targets.has(t)))) {
    throw new CheckpointError(
      `${cfgFile}: target_modules ${JSON.stringify([...targets])} must cover all attention / all MLP projections`,
    );
  }
  const spec = resolveLoraSpec({
    rank: cfg.r ?? 0,
    alpha: cfg.lora_alpha ?? 32,
    trainAttn: has(attn),
    trainMlp: has(mlp),
    trainUnembed: targets.has('lm_head'),
  });
  const lora = new LoraWeights(base.config, spec, undefined);
  const f = SafetensorsFile.open(join(dir, 'adapter_model.safetensors'));
  try {
    for (const m of lora.modules) {
      for (const which of ['A', 'B'] as const) {
        const key = peftKey(m.path, which);
        const got = f.read(key).data;
        const dst = which === 'A' ? m.adapter.A_RI : m.adapter.B_OR;
        if (got.length !== dst.length)
          throw new CheckpointError(`${dir}: ${key} has ${got.length} values, expected ${dst.length}`);
        dst.set(got);
      }
    }
  } finally {
    f.close();
  }
  return lora;
}

/** Builds a sampler over `base`, with the adapter saved in `adapterDir` (sampler weights / PEFT) if given. */
export function loadSampler(base: BaseModel, adapterDir?: string | null, opts?: SamplerOptions): Sampler {
  return new Sampler(base, adapterDir ? loadPeftAdapter(base, adapterDir) : null, opts);
}
