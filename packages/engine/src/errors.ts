import { CookbookError } from '@cookbook/core';

/**
 * Base class of the engine's own errors, under the cookbook's one root (`CookbookError`); `name` is the
 * subclass name (the embedded service maps a worker's failure back to its kind by that name). A training state, sampler weights
 * or adapter folder that cannot be read or written throws `@cookbook/core`'s `CheckpointError` (safetensors and
 * archive failures `@cookbook/weights`' `SafetensorsError` / `WeightsError`, both `CheckpointError`s).
 */
export class EngineError extends CookbookError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Invalid request data: bad tensor shapes, token ids out of range, unknown loss or config key (a 400 upstream). */
export class EngineInputError extends EngineError {}

/** A model folder, config.json or safetensors file that cannot be read or is not supported. */
export class ModelLoadError extends EngineError {}

/** The requested compute kernel is unavailable (e.g. `COOKBOOK_KERNEL=native` without a built addon). */
export class KernelError extends EngineError {}

/** An operation stopped because its caller cancelled it (e.g. a sample whose session ended). */
export class EngineCancelledError extends EngineError {}
