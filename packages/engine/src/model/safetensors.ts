// The engine's view of `@cookbook/weights`' safetensors reader and writer: the same functions, with the engine's
// error kinds (a base model that cannot be read is a ModelLoadError, a checkpoint that cannot be written a
// CheckpointError), which the embedded service maps to its replies by name.
import {
  type SafetensorsEntry,
  SafetensorsError,
  type TensorToWrite,
  SafetensorsFile as WeightsSafetensorsFile,
  writeSafetensors as writeWeightsSafetensors,
} from '@cookbook/weights';
import { CheckpointError, ModelLoadError } from '../errors.js';

export {
  bf16ToF32,
  f16ToF32,
  f32ToBf16,
  f32ToF16,
  type SafetensorsDtype,
  type SafetensorsEntry,
  sha256File,
  type TensorToWrite,
} from '@cookbook/weights';

function rethrowAs<T>(make: (message: string, cause: unknown) => Error, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof SafetensorsError) throw make(e.message, e);
    throw e;
  }
}

const asLoad = (message: string, cause: unknown) => new ModelLoadError(message, { cause });

/** Writes tensors to `path` as one safetensors file; returns its SHA-256 (hex). */
export function writeSafetensors(path: string, tensors: TensorToWrite[], metadata?: Record<string, string>): string {
  return rethrowAs(
    (m, cause) => new CheckpointError(m, { cause }),
    () => writeWeightsSafetensors(path, tensors, metadata),
  );
}

/** An open safetensors file: header parsed, tensors read on demand; failures are ModelLoadErrors. */
export class SafetensorsFile {
  private constructor(private readonly inner: WeightsSafetensorsFile) {}

  /** Opens `path` and parses its header. */
  static open(path: string): SafetensorsFile {
    return new SafetensorsFile(rethrowAs(asLoad, () => WeightsSafetensorsFile.open(path)));
  }

  get path(): string {
    return this.inner.path;
  }

  get entries(): Map<string, SafetensorsEntry> {
    return this.inner.entries;
  }

  get metadata(): Record<string, string> {
    return this.inner.metadata;
  }

  /** Reads one tensor widened to f32. */
  read(name: string): { shape: number[]; data: Float32Array } {
    return rethrowAs(asLoad, () => this.inner.read(name));
  }

  /** Releases the file descriptor. */
  close(): void {
    this.inner.close();
  }
}
