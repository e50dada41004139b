export type { AdamParams } from './adamw.js';
export {
  EngineCancelledError,
  EngineError,
  EngineInputError,
  KernelError,
  ModelLoadError,
} from './errors.js';
export { FullModel } from './full-model.js';
export type { WeightFormat } from './kernels/half.js';
export { type KernelInfo, kernelInfo, sgemm } from './kernels/kernel.js';
export { sgemmJs } from './kernels/sgemm-js.js';
export { DEFAULT_LORA_ALPHA, type LoraSpec, type ResolvedLoraSpec } from './lora.js';
export {
  createLoraModel,
  LoraModel,
  loadPeftAdapter,
  loadSampler,
} from './lora-model.js';
export {
  type EngineDatum,
  type EngineTensor,
  requiredLossInputs,
  resolveLossConfig,
  type TensorValues,
  validateBatch,
} from './losses.js';
export {
  BaseModel,
  builtinLayersFile,
  listBuiltinModels,
  loadBaseModel,
  randomModel,
  type SaveHfOptions,
  saveHfCheckpoint,
} from './model/base-model.js';
export type { Llama3RopeScaling, ModelConfig } from './model/config.js';
export type { SamplerWeights } from './model/sampling-weights.js';
export { loadTokenDecoder, type TokenDecoder } from './model/token-decoder.js';
export type { ForwardBackwardResult } from './pack.js';
export type { SampledSequence, SampleOptions, SampleResult, SamplerOptions } from './sample-request.js';
export { Sampler } from './sampler.js';
