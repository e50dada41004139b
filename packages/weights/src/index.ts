export { type LoraAdapterFolder, type LoraPair, readLoraAdapter } from './adapter.js';
export {
  type BaseModelFolder,
  type BaseTensor,
  baseTensorOf,
  checkAdapterFitsBase,
  EXPORT_MODEL_TYPES,
  openBaseModelFolder,
} from './base-folder.js';
export { SafetensorsError, WeightsError } from './errors.js';
export { type HubBaseOptions, resolveBaseModelDir } from './hub-base.js';
export {
  addLoraDelta,
  COPIED_BASE_FILES,
  DEFAULT_MAX_SHARD_BYTES,
  exportMergedModel,
  type MergedExportOptions,
} from './merged-export.js';
export { formatBytes, freeBytesAt, type OutputOptions, writeFolderAtomic } from './output-dir.js';
export { type ExportSummary, exportPeftAdapter, type PeftExportOptions, peftKey } from './peft-export.js';
export {
  bf16ToF32,
  f16ToF32,
  f32ToBf16,
  f32ToF16,
  type SafetensorsDtype,
  type SafetensorsEntry,
  SafetensorsFile,
  sha256File,
  type TensorToWrite,
  writeSafetensors,
} from './safetensors.js';
export { DEFAULT_MAX_ARCHIVE_BYTES, type ExtractedFile, extractTar } from './tar.js';
