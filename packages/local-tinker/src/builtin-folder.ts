/**
 * A built-in model (`local/*`) written out as a Hugging Face folder (config.json, f32 safetensors, tokenizer files),
 * so that what works on a downloaded base model — a merged export, loading it elsewhere — works on the built-ins too.
 */
import { listBuiltinModels, loadBaseModel, saveHfCheckpoint } from '@cookbook/engine';
import { HttpError } from './http-errors.js';

/** True when `name` is one of the embedded engine's built-in models. */
export function isBuiltinModel(name: string): boolean {
  return listBuiltinModels().some((m) => m.name === name);
}

/**
 * Writes built-in model `name` to folder `dir` (atomically; f32, so a merge over it is exact).
 * @throws HttpError (400) naming the built-ins when `name` is not one
 */
export async function writeBuiltinModelFolder(name: string, dir: string): Promise<void> {
  if (!isBuiltinModel(name)) {
    const names = listBuiltinModels()
      .map((m) => m.name)
      .join(', ');
    throw new HttpError(400, `"${name}" is not a built-in model of the embedded service (${names})`);
  }
  await saveHfCheckpoint(await loadBaseModel(name), dir, { dtype: 'float32' });
}
