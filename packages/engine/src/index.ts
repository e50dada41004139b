export type { AdamParams } from './adamw.js';
export { EngineInputError, ModelLoadError } from './errors.js';
export { FullModel } from './full-model.js';
export { kernelInfo } from './kernels/kernel.js';
export { createLoraModel, LoraModel, loadSampler } from './lora-model.js';
export { type EngineDatum, validateBatch } from './losses.js';
export {
  BaseModel,
  builtinLayersFile,
  listBuiltinModels,
  loadBaseModel,
  type SaveHfOptions,
  saveHfCheckpoint,
} from './model/base-model.js';
export type { ModelConfig } from './model/config.js';
export type { ForwardBackwardResult } from './pack.js';
export type { SampleOptions, SampleResult, SamplerOptions } from './sample-request.js';
export { Sampler } from './sampler.js';
