import { CheckpointError } from '@cookbook/core';

/** A safetensors file that cannot be read or written (the message names the file and the tensor). */
export class SafetensorsError extends CheckpointError {
  override name = 'SafetensorsError';
}

/**
 * An export or archive that cannot be made: a bad adapter folder, a base model that does not fit the adapter, a
 * corrupt archive, an output folder that exists, too little disk space. The message names the file or folder.
 */
export class WeightsError extends CheckpointError {
  override name = 'WeightsError';
}
