/**
 * PEFT adapter export (upstream tinker-cookbook `weights.build_lora_adapter`): the adapter's tensors under the
 * Hugging Face module names PEFT and the serving engines expect, with a PEFT `adapter_config.json` (`r`,
 * `lora_alpha`, `target_modules`). Deliberate difference: only Llama 3 and Qwen3 dense models (no expert or fused
 * projections to remap), the tensors stay f32, and the output head's adapter targets `lm_head` even on a model with
 * tied embeddings (upstream names it `embed_tokens` there): the Tinker adapter changes the head's output only, which is
 * what a LoRA on `lm_head` does in PEFT.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLoraAdapter } from './adapter.js';
import { checkAdapterFitsBase, openBaseModelFolder } from './base-folder.js';
import { type OutputOptions, writeFolderAtomic } from './output-dir.js';
import { writeSafetensors } from './safetensors.js';

/** Options of {@link exportPeftAdapter}. */
export interface PeftExportOptions extends OutputOptions {
  /** A downloaded checkpoint folder (adapter_config.json + adapter_model.safetensors). */
  adapterDir: string;
  /** Output folder (must not exist unless `overwrite`). */
  outDir: string;
  /** The base model folder: the adapter is checked against its shapes when given. */
  baseDir?: string;
  /** `base_model_name_or_path` written to adapter_config.json (default: the adapter's recorded base model). */
  baseModelName?: string;
}

/** What an export wrote. */
export interface ExportSummary {
  outDir: string;
  files: string[];
  bytes: number;
}

/** PEFT's key of an adapter matrix: `base_model.model.<module>.lora_A.weight`. */
export function peftKey(path: string, which: 'A' | 'B'): string {
  return `base_model.model.${path}.lora_${which}.weight`;
}

/** Writes a PEFT adapter folder from a downloaded Tinker checkpoint. */
export async function exportPeftAdapter(options: PeftExportOptions): Promise<ExportSummary> {
  const adapter = readLoraAdapter(options.adapterDir);
  if (options.baseDir !== undefined) checkAdapterFitsBase(adapter, openBaseModelFolder(options.baseDir));
  const targets = [...new Set(adapter.modules.map((m) => m.path.split('.').at(-1)!))].sort();
  const config = {
    peft_type: 'LORA',
    task_type: 'CAUSAL_LM',
    base_model_name_or_path: options.baseModelName ?? adapter.baseModel ?? null,
    r: adapter.rank,
    lora_alpha: adapter.alpha,
    lora_dropout: 0,
    target_modules: targets,
    bias: 'none',
    fan_in_fan_out: false,
    inference_mode: true,
    init_lora_weights: true,
    modules_to_save: null,
    rank_pattern: {},
    alpha_pattern: {},
  };
  const tensors = adapter.modules.flatMap((m) => [
    { name: peftKey(m.path, 'A'), shape: [adapter.rank, m.inFeatures], data: m.A },
    { name: peftKey(m.path, 'B'), shape: [m.outFeatures, adapter.rank], data: m.B },
  ]);
  const bytes = tensors.reduce((s, t) => s + t.data.length * 4, 0);
  await writeFolderAtomic(options.outDir, bytes, options, (tmp) => {
    writeFileSync(join(tmp, 'adapter_config.json'), `${JSON.stringify(config, null, 2)}\n`);
    writeSafetensors(join(tmp, 'adapter_model.safetensors'), tensors, { format: 'pt' });
  });
  return { outDir: options.outDir, files: ['adapter_config.json', 'adapter_model.safetensors'], bytes };
}
