/**
 * Which `base_model` names the embedded service serves: its built-in models (the model catalog's), and a folder
 * holding an HF checkpoint only under the operator's model roots. Anything else is a 400 that lists what is
 * available and, for a name the catalog knows as hosted or open, says where it can be trained instead.
 */
import { existsSync, realpathSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { findModel, isHubRepoId, listLocalModels } from '@cookbook/core';
import { HttpError } from './http-errors.js';

/** `path` with symlinks resolved, or just made absolute when it does not exist. */
export function realOrResolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * Rejects an unknown base model at submission, with the list of what is available (from the model catalog). A
 * folder is accepted only under `roots`, the operator's model roots (real paths; `'any'`: every folder holding a
 * config.json); the reply is the same for a folder outside them whether or not it exists.
 */
export function checkBaseModel(name: string, roots: readonly string[] | 'any'): void {
  const builtins = listLocalModels().map((m) => m.name);
  if (builtins.includes(name)) return;
  if (roots !== 'any') {
    const real = realOrResolved(name);
    const allowed = roots.some((r) => real === r || real.startsWith(r.endsWith(sep) ? r : r + sep));
    if (!allowed || !existsSync(join(real, 'config.json'))) {
      const where =
        roots.length === 0
          ? 'this service loads no folders (its operator can allow some: cookbook serve model_roots=…)'
          : 'a folder must lie in one of the folders its operator allows (cookbook serve model_roots=…) and hold an HF checkpoint';
      throw new HttpError(
        400,
        `unknown base_model "${name}": this embedded service has ${builtins.join(', ')}; ${where}`,
      );
    }
    return;
  }
  if (existsSync(join(name, 'config.json'))) return;
  const entry = findModel(name);
  const toHosted =
    'set TINKER_API_KEY to train it on the hosted Tinker service (or TINKER_BASE_URL for another server)';
  // A Hub name (`org/model`) the catalog does not know is most likely meant for another server.
  const hint =
    entry === undefined
      ? isHubRepoId(name)
        ? `; "${name}" looks like a hosted model: ${toHosted}`
        : ''
      : entry.hosted
        ? `; "${name}" is a model of the hosted Tinker service: ${toHosted}`
        : `; "${name}" is an open checkpoint: download it and give its folder as base_model`;
  throw new HttpError(
    400,
    `unknown base_model "${name}": this embedded service has ${builtins.join(', ')}, or give a folder holding an HF checkpoint (config.json + *.safetensors)${hint}`,
  );
}
