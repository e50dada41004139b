// A trainable LoRA model over a frozen base: forward/backward with the Tinker losses, AdamW, state files,
// PEFT adapter export (merged exports: `@cookbook/weights`), and sampler snapshots.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointError } from '@cookbook/core';
import type { LossFnType } from '@cookbook/tinker-wire';
import { SafetensorsFile, sha256File, writeSafetensors } from '@cookbook/weights';
import { type AdamParams, adamwStep } from './adamw.js';
import { writeDirAtomic } from './fs-atomic.js';
import { type LoraSpec, LoraWeights, type ResolvedLoraSpec, resolveLoraSpec } from './lora.js';
import type { EngineDatum } from './losses.js';
import type { BaseModel } from './model/base-model.js';
import { type ForwardBackwardResult, forwardBackwardData } from './pack.js';
import type { SamplerOptions } from './sample-request.js';
import { Sampler } from './sampler.js';
import { TrainWorkspace } from './train-workspace.js';

const STATE_FORMAT = 'cookbook-engine-lora-state';

/**
 * Checks a checkpoint file against the SHA-256 recorded (in `where`) when it was saved; checkpoints written before
 * checksums have none (`recorded` undefined), and {@link checkFinite} is what catches their damage.
 */
function checkIntegrity(file: string, recorded: unknown, where: string): void {
  if (typeof recorded === 'string' && sha256File(file) !== recorded) {
    throw new CheckpointError(
      `${file} is corrupt: its SHA-256 does not match the one recorded in ${where} when it was saved; load an earlier checkpoint`,
    );
  }
}

/** Every value of a loaded tensor is finite: a flipped exponent bit shows as NaN or ±Infinity. */
function checkFinite(file: string, name: string, data: Float32Array): void {
  for (let i = 0; i < data.length; i++) {
    if (!Number.isFinite(data[i]!)) {
      throw new CheckpointError(
        `${file} is corrupt: tensor ${name} holds a non-finite value (${data[i]}) at index ${i}; load an earlier checkpoint`,
      );
    }
  }
}

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

  /** Bytes this model holds beyond its base: adapter, gradients, Adam moments and the training workspace. */
  get memoryBytes(): number {
    return (
      this.lora.params.byteLength +
      this.lora.grads.byteLength +
      this.adamM.byteLength +
      this.adamV.byteLength +
      this.ws.bytes
    );
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
   * `optimizer` (default true) the Adam moments) and `state.json` (config, step, the base model and the tensor
   * file's SHA-256, checked on load).
   */
  async saveState(dir: string, opts: { optimizer?: boolean } = {}): Promise<void> {
    const optimizer = opts.optimizer !== false;
    const tensors = [{ name: 'params', shape: [this.lora.params.length], data: this.lora.params }];
    if (optimizer) {
      tensors.push({ name: 'adam_m', shape: [this.adamM.length], data: this.adamM });
      tensors.push({ name: 'adam_v', shape: [this.adamV.length], data: this.adamV });
    }
    await writeDirAtomic(dir, (tmp) => {
      const sha256 = writeSafetensors(join(tmp, 'lora_state.safetensors'), tensors);
      const meta = {
        format: STATE_FORMAT,
        version: 1,
        base_model: this.base.name,
        lora: this.lora.spec,
        step: this.step,
        adam_step: this.adamT,
        optimizer,
        num_params: this.lora.params.length,
        sha256,
      };
      writeFileSync(join(tmp, 'state.json'), `${JSON.stringify(meta, null, 2)}\n`);
    });
  }

  /**
   * Loads a state written by {@link saveState}. With `optimizer` (default true) the Adam moments and step are
   * restored too (the folder must contain them); without, the moments restart from zero.
   * @throws CheckpointError naming the file when the state was saved for another base model or LoRA config, when
   *   its tensor file does not match its recorded SHA-256, or when a tensor holds NaN or ±Infinity
   */
  async loadState(dir: string, opts: { optimizer?: boolean } = {}): Promise<void> {
    const optimizer = opts.optimizer !== false;
    const metaFile = join(dir, 'state.json');
    if (!existsSync(metaFile)) throw new CheckpointError(`${dir} is not a training state (no state.json)`);
    let meta: {
      format?: string;
      base_model?: unknown;
      lora?: ResolvedLoraSpec;
      step?: number;
      adam_step?: number;
      optimizer?: boolean;
      sha256?: unknown;
    };
    try {
      meta = JSON.parse(readFileSync(metaFile, 'utf8')) as typeof meta;
    } catch {
      throw new CheckpointError(`${metaFile} is corrupt: it is not valid JSON`);
    }
    if (meta.format !== STATE_FORMAT) throw new CheckpointError(`${metaFile}: unknown format "${meta.format}"`);
    if (typeof meta.base_model === 'string' && meta.base_model !== this.base.name) {
      throw new CheckpointError(
        `${metaFile}: this state was saved for base model "${meta.base_model}", not "${this.base.name}"; load it into a model of "${meta.base_model}"`,
      );
    }
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
    const file = join(dir, 'lora_state.safetensors');
    checkIntegrity(file, meta.sha256, metaFile);
    const f = SafetensorsFile.open(file);
    try {
      // Everything is read and checked before anything is set: a corrupt file leaves the model as it was.
      const params = f.read('params').data;
      if (params.length !== this.lora.params.length) {
        throw new CheckpointError(`${dir}: ${params.length} LoRA parameters, expected ${this.lora.params.length}`);
      }
      checkFinite(file, 'params', params);
      const moments = optimizer ? { m: f.read('adam_m').data, v: f.read('adam_v').data } : undefined;
      if (moments) {
        for (const [name, t] of [['adam_m', moments.m] as const, ['adam_v', moments.v] as const]) {
          if (t.length !== this.adamM.length) {
            throw new CheckpointError(`${dir}: ${name} has ${t.length} values, expected ${this.adamM.length}`);
          }
          checkFinite(file, name, t);
        }
      }
      this.lora.params.set(params);
      this.lora.grads.fill(0);
      this.step = meta.step ?? 0;
      if (moments) {
        this.adamM.set(moments.m);
        this.adamV.set(moments.v);
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
      const sha256 = writeSafetensors(join(tmp, 'adapter_model.safetensors'), this.namedParams(), { format: 'pt' });
      const ours = { seed: s.seed, base_model: this.base.name, sha256 };
      writeFileSync(join(tmp, 'cookbook_lora.json'), `${JSON.stringify(ours, null, 2)}\n`);
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
}

/** Creates a trainable LoRA adapter on `base` (A seeded by `lora.seed`, B zero, alpha 32 by default). */
export function createLoraModel(base: BaseModel, lora: LoraSpec): LoraModel {
  return new LoraModel(base, lora);
}

/**
 * Reads a PEFT adapter folder written by {@link LoraModel.exportPeftAdapter} into adapter weights for `base`. When
 * the folder is ours (`cookbook_lora.json`), its recorded base model and SHA-256 are checked; every value is checked
 * finite.
 * @throws CheckpointError naming the file on a base-model mismatch, a checksum mismatch or a non-finite value
 */
export function loadPeftAdapter(base: BaseModel, dir: string): LoraWeights {
  const cfgFile = join(dir, 'adapter_config.json');
  if (!existsSync(cfgFile)) throw new CheckpointError(`${dir} has no adapter_config.json`);
  const readJson = <T>(file: string): T => {
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as T;
    } catch {
      throw new CheckpointError(`${file} is corrupt: it is not valid JSON`);
    }
  };
  const cfg = readJson<{ r?: number; lora_alpha?: number; target_modules?: string[] }>(cfgFile);
  const oursFile = join(dir, 'cookbook_lora.json');
  const ours = existsSync(oursFile) ? readJson<{ base_model?: unknown; sha256?: unknown }>(oursFile) : {};
  if (typeof ours.base_model === 'string' && ours.base_model !== base.name) {
    throw new CheckpointError(
      `${oursFile}: these weights were saved for base model "${ours.base_model}", not "${base.name}"`,
    );
  }
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
  const file = join(dir, 'adapter_model.safetensors');
  checkIntegrity(file, ours.sha256, oursFile);
  const f = SafetensorsFile.open(file);
  try {
    for (const m of lora.modules) {
      for (const which of ['A', 'B'] as const) {
        const key = peftKey(m.path, which);
        const got = f.read(key).data;
        const dst = which === 'A' ? m.adapter.A_RI : m.adapter.B_OR;
        if (got.length !== dst.length)
          throw new CheckpointError(`${dir}: ${key} has ${got.length} values, expected ${dst.length}`);
        checkFinite(file, key, got);
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
