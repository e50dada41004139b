export { BoundedMap } from './bounded-map.js';
export {
  type CompleteOptions,
  getLogprobs,
  type MessageCompleter,
  type StopCondition,
  type TokenCompleter,
  type TokensWithLogprobs,
} from './completers.js';
export {
  type ConfigField,
  type ConfigKeyOptions,
  type ConfigKeyStyle,
  closestMatch,
  configFields,
  configFromKeyStyle,
  configHelp,
  configToKeyStyle,
  editDistance,
  parseConfig,
} from './config.js';
export {
  type Datum,
  type DatumJSON,
  datumFromJSON,
  datumFromModelInputWeights,
  datumFromTokensWeights,
  datumFullSequence,
  datumToJSON,
  lossInput,
  validateDatum,
  type WeightReduction,
} from './datum.js';
export {
  CheckpointError,
  ConfigError,
  CookbookError,
  type CookbookErrorOptions,
  DataError,
  type DataErrorOptions,
  InterruptedError,
  RendererError,
  TrainingError,
} from './errors.js';
export {
  getLoraLrOverFullFinetuneLr,
  getLoraParamCount,
  getLr,
  KNOWN_MODEL_SHAPES,
  type LoraTargets,
  type ModelShape,
} from './hyperparams.js';
export {
  clearInterruption,
  type InterruptSignal,
  interruptionSignal,
  noteInterruption,
  signalExitCode,
} from './interruption.js';
export { toCamelCase, toSnakeCase } from './key-case.js';
export { computeScheduleLrMultiplier, LrScheduleName } from './lr-schedule.js';
export {
  type ContentPart,
  getTextContent,
  type ImagePart,
  type LoadedImage,
  type Message,
  type TextPart,
  type ThinkingPart,
  type ToolCall,
  type ToolSpec,
  type UnparsedToolCall,
} from './messages.js';
export { allSame, dictMean, iterationDir, safeZip, splitList } from './misc.js';
export {
  baseModelName,
  CHAT_TEMPLATE_RENDERER_NAME,
  DEFAULT_MODEL_NAME,
  describeKnownModels,
  findModel,
  getModel,
  type LocalModelSpec,
  LR_EXPONENTS,
  type LrRule,
  listLocalModels,
  listModels,
  MODEL_FAMILY_LABELS,
  type ModelEntry,
  type ModelFamily,
  OFFLINE_TOKENIZERS,
  type OfflineTokenizerName,
  type TokenizerSource,
} from './model-catalog.js';
export {
  chunkLength,
  type EncodedTextChunk,
  type ImageAssetPointerChunk,
  type ImageChunk,
  ModelInput,
  type ModelInputChunk,
  type ModelInputJSON,
} from './model-input.js';
export {
  BUILT_IN_LEARNING_RATES,
  defaultLearningRate,
  isBuiltInModelName,
  isHubRepoId,
  isRepoId,
  type LoopKind,
  type ModelKind,
  type ModelRef,
  resolveLearningRate,
  resolveModelRef,
} from './model-ref.js';
export { isMissingPackage, loadOptionalPeer } from './optional-peer.js';
export {
  acquireProcessLock,
  describeLockOwner,
  type HeldLock,
  LockHeldError,
  type LockOwner,
  lockOwnerAlive,
  readLockOwner,
} from './process-lock.js';
export { deriveSeed } from './random/derive-seed.js';
export { Mulberry32Rng, mulberry32 } from './random/mulberry32.js';
export { PythonRandom } from './random/python-random.js';
export { Sfc32Rng } from './random/sfc32.js';
export { seededPermutation, shuffleInPlace } from './random/shuffle.js';
export { seededRandom, splitMix32 } from './random/splitmix32.js';
export { randomSeed, Xoshiro128Rng } from './random/xoshiro128.js';
export { type NumberedLine, parseJsonLine, readLinesSync } from './read-lines.js';
export {
  isSparse,
  maybeSparse,
  type NumericArray,
  type TensorData,
  type TensorDType,
  tensorFromFloat32,
  tensorFromInt64,
  tensorNumel,
  tensorShape,
  tensorToBigInt64Array,
  tensorToFloat32Array,
  tensorToNumbers,
  toCsr,
  toDense,
} from './tensor-data.js';
export { escapeControlChars } from './terminal-text.js';
export { recordTime, Tracer, type TraceSpan, timed, traceScope, withTracer } from './timing.js';
