export { readLoraAdapter } from './adapter.js';
export { type HubBaseOptions, resolveBaseModelDir } from './hub-base.js';
export { exportMergedModel, type MergedExportOptions } from './merged-export.js';
export { formatBytes, type OutputOptions, writeFolderAtomic } from './output-dir.js';
export { type ExportSummary, exportPeftAdapter, type PeftExportOptions } from './peft-export.js';
export {
  bf16ToF32,
  f16ToF32,
  f32ToBf16,
  f32ToF16,
  type SafetensorsDtype,
  SafetensorsFile,
  sha256File,
  writeSafetensors,
} from './safetensors.js';
export { extractTar } from './tar.js';
